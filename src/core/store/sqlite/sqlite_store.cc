// The SQLite store's own part: opening a file (pragmas, migration, statements), and the query
// plans and growth limit tests check.
#include "core/store/sqlite/sqlite_store.h"

#include <memory>
#include <string>
#include <utility>

#include "core/store/sql/statements.h"
#include "core/store/sqlite/db.h"
#include "core/store/sqlite/migrations.h"
#include "core/store/sqlite/open.h"

namespace tq {

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path,
                                                       bool durability_full) {
  Result<sqlite::Db> db = sqlite::Db::Open(path);
  if (!db.ok()) return db.status();
  // Another process (an old tqd exiting, the sqlite3 shell) may hold the lock for a moment.
  if (Status s = db->Exec("set busy timeout", "PRAGMA busy_timeout = 5000"); !s.ok()) return s;
  Result<std::string> mode = db->QueryText("enable WAL", "PRAGMA journal_mode = WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal" && *mode != "memory") {
    return sql::StoreError("enable WAL", "journal mode is still " + *mode);
  }
  if (Status s = db->SetDurability(durability_full); !s.ok()) return s;
  if (Status s = Migrate(*db, path); !s.ok()) return s;
  if (Status s = db->Exec("enable foreign keys", "PRAGMA foreign_keys = ON"); !s.ok()) return s;

  std::unique_ptr<SqliteStore> store(
      new SqliteStore(std::make_unique<sqlite::Db>(std::move(*db)), sql::Dialect::kSqlite));
  if (Status s = store->Prepare(); !s.ok()) return s;
  return store;
}

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, bool durability_full) {
  Result<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, durability_full);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

Result<std::string> SqliteStore::QueryPlan(PlannedQuery query) {
  Result<sql::Stmt> stmt = db().Prepare(
      "explain query plan", "EXPLAIN QUERY PLAN " + PlannedSql(sql::Dialect::kSqlite, query));
  if (!stmt.ok()) return stmt.status();
  sql::Query q(*stmt);
  std::string plan;
  // Columns: id, parent, notused, detail.
  if (Status s = q.ForEach([&] { plan += q.Text(3) + "\n"; }); !s.ok()) return s;
  return plan;
}

Status SqliteStore::LimitGrowth(int64_t pages) {
  Result<int64_t> used = db().QueryInt("read page count", "PRAGMA page_count");
  if (!used.ok()) return used.status();
  return db().Exec("limit page count", "PRAGMA max_page_count = " + std::to_string(*used + pages));
}

Result<int64_t> SqliteStore::SyncLevel() {
  return db().QueryInt("read synchronous", "PRAGMA synchronous");
}

}  // namespace tq
