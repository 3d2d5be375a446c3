// The SQLite store: the SQL store (sql/sql_store.h) over one SQLite file in WAL mode, the
// embedded default. What SQLite adds: the file's pragmas and versioned migrations
// (migrations.*), the connection (db.*), and the query plans and growth limit tests use.
// OpenSqliteStore (open.h) is the one name the daemon needs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/store/sql/sql_store.h"

namespace tq {

/// The SQLite store.
class SqliteStore : public SqlStore {
 public:
  /// Opens (creating or migrating) the store at `path` (":memory:" for a private one);
  /// `durability_full` syncs every commit (synchronous = FULL), else WAL's NORMAL.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path, bool durability_full);

  /// SQLite's EXPLAIN QUERY PLAN for `query`, one line per step (for tests).
  Result<std::string> QueryPlan(PlannedQuery query);
  /// Lets the database grow by at most `pages` more pages, as a full disk would (for tests).
  Status LimitGrowth(int64_t pages);
  /// SQLite's synchronous level (1 NORMAL, 2 FULL): inside a transaction, what its commit does
  /// (for tests).
  Result<int64_t> SyncLevel();

 private:
  using SqlStore::SqlStore;
};

}  // namespace tq
