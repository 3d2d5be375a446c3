// The PostgreSQL store (SPEC 12): the SQL store (sql/sql_store.h) over one PostgreSQL database,
// for several hosts sharing one queue. What PostgreSQL adds: the connection (pg_db.*), the
// schema (schema.*), one tqd per host name, and hosts that write side by side: no lock orders
// the store's writes, the row locks of the SQL (statements.cc) guard what must see every host's
// writes.
// OpenPostgresStore (open.h) is the one name the daemon needs.
#pragma once

#include <memory>
#include <string>

#include "core/store/sql/sql_store.h"

namespace tq {

namespace pg {
class Db;
}

/// The PostgreSQL store.
class PostgresStore : public SqlStore {
 public:
  /// As SqlStore's, and one tqd per host name: a second session joining as the same host is
  /// refused ("another tqd is host NAME on this store").
  Status JoinHost(const std::string& host, const std::string& version, int max_running,
                  WallMs now) override;

  /// As SqlStore's, and this session's counter rows are the host's, as JoinHost's are; it takes
  /// no lock of the host's (the session that joined holds it).
  Status ActForHost(const std::string& host, int64_t epoch) override;

  /// Connects with libpq's `conninfo` and brings the schema (search_path's first) to the current
  /// version; `durability_full` waits for each commit to reach the server's disk
  /// (synchronous_commit = on), else a server crash may lose the last commits, never more.
  static Result<std::unique_ptr<PostgresStore>> Open(const std::string& conninfo,
                                                     bool durability_full);

 private:
  /// A store over `db` whose every new connection runs `session` first.
  PostgresStore(std::unique_ptr<pg::Db> db, std::string session);

  std::string session_;  ///< the session's settings, run again on every new connection
};

}  // namespace tq
