// A thin RAII layer over libpq for the PostgreSQL store (SPEC 12): one connection that comes back
// after it is lost, statements prepared by name on each connection they are used on, parameters
// bound in call order (integers as text, bytes as binary bytea, so any bytes pass), and results
// read in binary. Nothing here throws; every failure is Status::Internal("store: <what> failed:
// <PostgreSQL's primary message>") with a fault from its SQLSTATE (a lost connection is
// transient). Only the primary message is kept: PostgreSQL's DETAIL lines may quote stored values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/status.h"
#include "core/store/sql_support.h"

struct pg_conn;
struct pg_result;

namespace tq::pg {

/// The store's error for a failure the store finds itself: "store: <what> failed: <detail>", a
/// permanent fault.
Status Error(std::string_view what, std::string_view detail);
/// How lasting a failure with SQLSTATE `sqlstate` is: a lost or refused connection (class 08),
/// a server shutting down or starting, a cancelled statement, a serialisation failure or
/// deadlock, a lock or resource shortage are transient; a full disk, a constraint, bad data,
/// a missing table, corruption and anything unknown are permanent.
StoreFault FaultOfSqlState(std::string_view sqlstate);

/// An open connection; reconnects on the first call after its connection was lost. Move-only;
/// owned and used by one thread.
class Db {
 public:
  /// Connects with libpq's `conninfo` ("host=/run/pg dbname=tq" or a postgresql:// URI).
  /// Refused or unreachable: a transient fault; bad credentials or database: permanent.
  static Result<Db> Open(const std::string& conninfo);

  Db(Db&& other) noexcept = default;
  Db& operator=(Db&& other) noexcept = default;

  /// Runs `sql` (one or more statements without parameters; rows are ignored).
  Status Exec(std::string_view what, const std::string& sql);
  /// BEGIN, COMMIT and ROLLBACK.
  Status Begin();
  Status Commit();
  /// Rolls back if a transaction is open; a no-op otherwise.
  void Rollback();
  /// True while a transaction is open (also one a failed statement has aborted).
  bool InTransaction() const;
  /// SAVEPOINT, ROLLBACK TO and RELEASE of the one savepoint "item" (not nested).
  Status Savepoint();
  Status RollbackToSavepoint();
  Status ReleaseSavepoint();

  /// The number of the current connection, unique in the process (a reconnect takes a new
  /// one): a statement is prepared again on each connection it runs on.
  uint64_t connection() const { return connection_; }
  /// The server's process for this connection (pg_backend_pid), 0 while there is none.
  int backend_pid() const;

 private:
  friend class Query;
  explicit Db(pg_conn* conn);
  /// Makes sure a connection is up: after one was lost, connects again (outside a transaction
  /// only: a transaction does not survive its connection).
  Status Ready(std::string_view what);
  /// The error of `result` (or of the connection when it is null) for `what`; notes a lost
  /// connection so the next call connects again.
  Status Failure(std::string_view what, const pg_result* result);

  /// Closes a connection (PQfinish).
  struct Closer {
    void operator()(pg_conn* conn) const;
  };
  std::unique_ptr<pg_conn, Closer> conn_;
  uint64_t connection_ = 0;
  bool lost_ = false;            ///< the connection broke: the next call connects again
  bool in_transaction_ = false;  ///< between Begin and Commit or Rollback
};

/// A statement prepared by name on each connection it runs on; `what` names it in errors.
class Stmt {
 public:
  Stmt() = default;
  Stmt(std::string what, std::string sql);

  const std::string& what() const { return what_; }

 private:
  friend class Query;
  std::string what_;
  std::string sql_;
  std::string name_;          ///< its name on the server, unique in the process
  uint64_t prepared_on_ = 0;  ///< the connection it is prepared on (Db::connection); 0: none
};

/// One execution of a statement: bind parameters in call order ($1, $2, ...), then Step through
/// its rows and read their columns. Binary results: integer columns may be smallint, integer,
/// bigint or boolean; bytea and text columns read as their bytes.
class Query {
 public:
  /// Runs `stmt` on `db` (prepared there first when it is not yet).
  Query(Db& db, Stmt& stmt);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  /// Binds the next parameter.
  Query& BindInt(int64_t value);
  /// Text the store spells itself (ASCII): a state, a reason.
  Query& BindText(std::string_view value);
  /// Any bytes, as bytea (binary: no encoding applies, NUL and invalid UTF-8 pass).
  Query& BindBytes(std::string_view value);
  /// NULL when absent.
  Query& BindOptInt(const std::optional<int64_t>& value);
  Query& BindOptBytes(const std::optional<std::string>& value);

  /// Runs the statement on the first call; then true while a row is available.
  Result<bool> Step();
  /// Runs the statement, ignoring rows.
  Status Run();
  /// Steps through every remaining row calling `on_row()` (sql::ForEachRow).
  template <typename OnRow>
  Status ForEach(OnRow&& on_row) {
    return sql::ForEachRow(*this, std::forward<OnRow>(on_row));
  }

  /// Reads column `col` (0-based) of the current row. Int reads NULL, and a column of a type
  /// other than smallint, integer, bigint or boolean, as 0.
  int64_t Int(int col) const;
  std::string Bytes(int col) const;
  bool IsNull(int col) const;
  /// Rows the statement inserted, updated or deleted (after it ran).
  int64_t Changes() const;

 private:
  /// Appends a parameter: NULL when absent; bytes sent as binary, or as text.
  Query& Bind(std::optional<std::string> value, bool binary);
  /// Prepares the statement on this connection when it is not yet.
  Status Prepare();
  /// Sends the statement with its parameters and keeps the result.
  Status Execute();

  Db& db_;
  Stmt& stmt_;
  std::vector<std::optional<std::string>> values_;
  std::vector<int> binary_;
  pg_result* result_ = nullptr;
  int row_ = -1;
};

/// A transaction that rolls back on destruction unless committed.
using Transaction = sql::ScopedTransaction<Db>;

}  // namespace tq::pg
