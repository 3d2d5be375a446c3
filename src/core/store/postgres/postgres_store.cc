#include "core/store/postgres/postgres_store.h"

#include <utility>

#include "core/model/host_name.h"
#include "core/store/postgres/open.h"
#include "core/store/postgres/pg_db.h"
#include "core/store/postgres/schema.h"

namespace tq {

Result<std::unique_ptr<PostgresStore>> PostgresStore::Open(const std::string& conninfo,
                                                           bool durability_full) {
  Result<std::unique_ptr<pg::Db>> db = pg::Db::Open(conninfo);
  if (!db.ok()) return db.status();
  // A write waits at most 10 s for the lock that orders writes (a lock_timeout is a transient
  // fault); a session left inside a transaction is ended by the server after a minute.
  std::string session =
      std::string("SET lock_timeout = '10s'; SET idle_in_transaction_session_timeout = '60s'; ") +
      (durability_full ? "SET synchronous_commit = on; " : "SET synchronous_commit = off; ");
  if (Status s = (*db)->OnConnect(session); !s.ok()) return s;
  if (Status s = pg::Migrate(**db); !s.ok()) return s;
  // Past the migration (which may take long on a large store), a call that the server leaves
  // unanswered this long (well past the lock_timeout above) gives its connection up, so a server
  // or network that stops answering stalls tqd's loop that long at most.
  (*db)->SetAnswerTimeout(30 * 1000);
  // Every write holds the store's lock: alone, or, for transactions that only claim ready tasks
  // (ClaimTogether), shared with the other hosts' claims, which skip each other's rows.
  (*db)->BeginWith("BEGIN; SELECT pg_advisory_xact_lock(29809, hashtext(current_schema()))",
                   "BEGIN; SELECT pg_advisory_xact_lock_shared(29809, hashtext(current_schema()))");
  std::unique_ptr<PostgresStore> store(new PostgresStore(std::move(*db), std::move(session)));
  if (Status s = store->Prepare(); !s.ok()) return s;
  return store;
}

PostgresStore::PostgresStore(std::unique_ptr<pg::Db> db, std::string session)
    : SqlStore(std::move(db), sql::Dialect::kPostgres), session_(std::move(session)) {}

Status PostgresStore::JoinHost(const std::string& host, const std::string& version, int max_running,
                               WallMs now) {
  if (Status s = CheckHostName("host", host); !s.ok()) return s;  // it goes into SQL below
  // One tqd per host name: it holds a lock for as long as its session lives, taken again on
  // every new connection. It waits up to 5 s for the lock: the session of a tqd of this host
  // that just exited (a restart) may still be ending on the server.
  const std::string key = "29810, hashtext(current_schema() || '/" + host + "')";
  const std::string lock = "DO $$ BEGIN FOR i IN 1..50 LOOP IF pg_try_advisory_lock(" + key +
                           ") THEN RETURN; END IF; PERFORM pg_sleep(0.1); END LOOP; "
                           "RAISE EXCEPTION 'another tqd is host " +
                           host + " on this store'; END $$";
  if (Status s = static_cast<pg::Db&>(db()).OnConnect(session_ + lock); !s.ok()) return s;
  return SqlStore::JoinHost(host, version, max_running, now);
}

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo,
                                                 bool durability_full) {
  Result<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(conninfo, durability_full);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

}  // namespace tq
