#include "core/store/postgres/postgres_store.h"

#include <utility>

#include "core/model/host_name.h"
#include "core/store/postgres/open.h"
#include "core/store/postgres/pg_db.h"
#include "core/store/postgres/schema.h"

namespace tq {

namespace {
// The counters the schema's triggers keep have a row per host (schema v6): a session of `host`
// counts in its own.
std::string SlotOf(const std::string& host) {
  return "SET tq.slot = '" + host + "'; ";
}
}  // namespace

Result<std::unique_ptr<PostgresStore>> PostgresStore::Open(const std::string& conninfo,
                                                           bool durability_full) {
  Result<std::unique_ptr<pg::Db>> db = pg::Db::Open(conninfo);
  if (!db.ok()) return db.status();
  // A write waits at most 2 s for a row another host's transaction holds (a lock_timeout is a
  // transient fault: the client, or the next turn, tries again); a session left inside a
  // transaction is ended by the server after 15 s; the server finds a client gone in about 25 s
  // (its keepalives), also while it runs a statement.
  std::string session =
      std::string(
          "SET lock_timeout = '2s'; SET idle_in_transaction_session_timeout = '15s'; "
          "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; "
          "SET tcp_keepalives_count = 3; SET client_connection_check_interval = '5s'; ") +
      (durability_full ? "SET synchronous_commit = on; " : "SET synchronous_commit = off; ");
  if (Status s = (*db)->OnConnect(session); !s.ok()) return s;
  if (Status s = pg::Migrate(**db); !s.ok()) return s;
  // Past the migration (which may take long on a large store), a call that the server leaves
  // unanswered this long (well past the lock_timeout above) gives its connection up, so a server
  // or network that stops answering stalls tqd's loop that long at most.
  (*db)->SetAnswerTimeout(30 * 1000);
  // No lock orders the hosts' writes (SPEC 12, issue 50): each transaction holds the rows it
  // changes or locks, claims pass over the rows other hosts' claims hold, and the few decisions
  // that must see every host's writes take turns on one row (a capped queue, a job, a key).
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
  // every new connection. At the start it waits up to 5 s for the lock: the session of a tqd of
  // this host that just exited (a restart) may still be ending on the server. A reconnect, which
  // the loop waits for, waits 0.5 s: the session it gave up is ended as it connects, and one
  // that is not yet gone is tried again after the reconnect pause.
  const std::string key = "29810, hashtext(current_schema() || '/" + host + "')";
  const auto lock = [&](int tries) {
    return "DO $$ BEGIN FOR i IN 1.." + std::to_string(tries) + " LOOP IF pg_try_advisory_lock(" +
           key +
           ") THEN RETURN; END IF; PERFORM pg_sleep(0.1); END LOOP; "
           // lock_not_available, a transient fault: the other may be a session of this host
           // that has yet to end (a machine that rebooted), and systemd tries again.
           "RAISE EXCEPTION USING ERRCODE = '55P03', MESSAGE = 'another tqd is host " +
           host + " on this store'; END $$";
  };
  pg::Db& pg = static_cast<pg::Db&>(db());
  if (Status s = pg.Exec("take the host's lock", SlotOf(host) + lock(50)); !s.ok()) return s;
  pg.OnReconnect(session_ + SlotOf(host) + lock(5));
  return SqlStore::JoinHost(host, version, max_running, now);
}

Status PostgresStore::ActForHost(const std::string& host, int64_t epoch) {
  if (Status s = CheckHostName("host", host); !s.ok()) return s;  // it goes into SQL below
  pg::Db& pg = static_cast<pg::Db&>(db());
  if (Status s = pg.OnConnect(session_ + SlotOf(host)); !s.ok()) return s;
  return SqlStore::ActForHost(host, epoch);
}

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo,
                                                 bool durability_full) {
  Result<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(conninfo, durability_full);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

}  // namespace tq
