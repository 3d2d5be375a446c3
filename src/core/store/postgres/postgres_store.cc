#include "core/store/postgres/postgres_store.h"

#include <utility>

#include "core/store/postgres/open.h"
#include "core/store/postgres/pg_db.h"
#include "core/store/postgres/schema.h"

namespace tq {

Result<std::unique_ptr<PostgresStore>> PostgresStore::Open(const std::string& conninfo,
                                                           bool durability_full) {
  Result<std::unique_ptr<pg::Db>> db = pg::Db::Open(conninfo);
  if (!db.ok()) return db.status();
  // One tqd per store: it holds a lock for as long as its session lives (and takes it again
  // on a new connection). A write waits at most 10 s for the lock that orders writes (a
  // lock_timeout is a transient fault); a session left inside a transaction is ended by the
  // server after a minute.
  const std::string session =
      std::string(
          "DO $$ BEGIN IF NOT pg_try_advisory_lock(29810, hashtext(current_schema())) THEN "
          "RAISE EXCEPTION 'another tqd is using this store'; END IF; END $$; "
          "SET lock_timeout = '10s'; SET idle_in_transaction_session_timeout = '60s'; ") +
      (durability_full ? "SET synchronous_commit = on" : "SET synchronous_commit = off");
  if (Status s = (*db)->OnConnect(session); !s.ok()) return s;
  if (Status s = pg::Migrate(**db); !s.ok()) return s;
  (*db)->BeginWith("BEGIN; SELECT pg_advisory_xact_lock(29809, hashtext(current_schema()))");
  std::unique_ptr<PostgresStore> store(new PostgresStore(std::move(*db), sql::Dialect::kPostgres));
  if (Status s = store->Prepare(); !s.ok()) return s;
  return store;
}

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo,
                                                 bool durability_full) {
  Result<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(conninfo, durability_full);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

}  // namespace tq
