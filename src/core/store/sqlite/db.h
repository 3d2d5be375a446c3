// A thin RAII layer over the SQLite C API for the store: one connection, statements prepared
// once and reused, one use of a statement at a time, and BEGIN IMMEDIATE transactions. Nothing
// here throws; every failure is Status::Internal("store: <what> failed: <sqlite message>").
// Used only by the SQLite store (sqlite_*.cc) and migrations.cc; SQLite specifics stay behind the
// Store.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/model/status.h"
#include "core/store/sql_support.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tq::sqlite {

/// The store's error for a failed SQLite call: "store: <what> failed: <detail>", a permanent
/// fault (what the store itself finds wrong, e.g. a corrupt row, does not pass by retrying).
Status Error(std::string_view what, std::string_view detail);
/// The same for SQLite result code `rc`: busy, locked, I/O errors and the like are transient
/// faults, the rest (full, constraint, corrupt, read-only, ...) permanent.
Status Error(std::string_view what, std::string_view detail, int rc);
/// How lasting a failure with SQLite result code `rc` (primary or extended) is.
StoreFault FaultOf(int rc);

/// An open connection; closes it on destruction. Move-only; owned and used by one thread.
class Db {
 public:
  /// Opens (creating if absent) the database file at `path`; ":memory:" gives a private
  /// in-memory database. Prepares the transaction statements.
  static Result<Db> Open(const std::string& path);

  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  /// The raw handle, for the statements below; the Db keeps ownership.
  sqlite3* handle() const { return db_; }

  /// Runs `sql` (one or more statements without parameters; rows are ignored).
  Status Exec(std::string_view what, const std::string& sql);
  /// The first column of the first row of `sql` as an integer (pragmas); 0 when no row.
  Result<int64_t> QueryInt(std::string_view what, const std::string& sql);
  /// The first column of the first row of `sql` as text (pragmas); "" when no row.
  Result<std::string> QueryText(std::string_view what, const std::string& sql);

  /// BEGIN IMMEDIATE, COMMIT and ROLLBACK through statements prepared at open.
  Status Begin();
  Status Commit();
  /// Calls `observe` with the seconds each successful COMMIT took (its sync included).
  void ObserveCommits(std::function<void(double seconds)> observe) {
    observe_commit_ = std::move(observe);
  }
  /// Rolls back if a transaction is open; a no-op otherwise (SQLite may already have).
  void Rollback();
  /// True while a transaction is open. After a failed statement inside one, false means SQLite
  /// rolled the whole transaction back by itself (it does on a full disk, an I/O error, ...).
  bool InTransaction() const;

  /// SAVEPOINT, ROLLBACK TO and RELEASE of the one savepoint "item" (not nested).
  Status Savepoint();
  Status RollbackToSavepoint();
  Status ReleaseSavepoint();

  /// The rowid of the last successful INSERT on this connection.
  int64_t LastInsertRowid() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int Changes() const;

 private:
  explicit Db(sqlite3* db) : db_(db) {}
  void Close();

  sqlite3* db_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3_stmt* rollback_ = nullptr;
  sqlite3_stmt* savepoint_ = nullptr;
  sqlite3_stmt* rollback_to_ = nullptr;
  sqlite3_stmt* release_ = nullptr;
  std::function<void(double)> observe_commit_;
};

/// A statement prepared once for the connection's lifetime and reused; finalized on
/// destruction (before the Db that made it). Move-only.
class Stmt {
 public:
  Stmt() = default;
  /// Prepares `sql` on `db` as a persistent statement; `what` names it in every error.
  static Result<Stmt> Prepare(Db& db, std::string what, const std::string& sql);

  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&& other) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  /// True once prepared.
  bool prepared() const { return stmt_ != nullptr; }

 private:
  friend class Query;
  sqlite3_stmt* stmt_ = nullptr;
  std::string what_;
};

/// One execution of a prepared statement: bind parameters in call order, step, read columns.
/// Resets the statement and clears its bindings when it goes out of scope, so a Query must end
/// before the transaction around it commits.
class Query {
 public:
  /// Starts using `stmt`, which must be prepared and not in use by another Query.
  explicit Query(Stmt& stmt);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  /// Binds the next parameter (?1, ?2, ... in call order). Errors surface at Step.
  Query& BindInt(int64_t value);
  Query& BindText(std::string_view value);
  /// Binds bytes as a BLOB (never TEXT: no encoding applies); an empty value is an empty BLOB.
  Query& BindBlob(std::string_view value);
  /// Binds NULL when absent, otherwise a BLOB.
  Query& BindOptBlob(const std::optional<std::string>& value);
  /// Binds NULL when absent, otherwise TEXT.
  Query& BindOptText(const std::optional<std::string>& value);
  /// Binds NULL when absent, otherwise an integer.
  Query& BindOptInt(const std::optional<int64_t>& value);

  /// Advances: true when a row is available, false when the statement is done.
  Result<bool> Step();
  /// Steps until done, ignoring rows.
  Status Run();
  /// Steps through every remaining row calling `on_row()` (sql::ForEachRow).
  template <typename OnRow>
  Status ForEach(OnRow&& on_row) {
    return sql::ForEachRow(*this, std::forward<OnRow>(on_row));
  }

  /// Reads column `col` (0-based) of the current row.
  int64_t Int(int col) const;
  std::string Text(int col) const;
  std::string Blob(int col) const;
  bool IsNull(int col) const;

 private:
  Query& BindNull();

  Stmt& stmt_;
  int next_param_ = 1;
  int bind_error_ = 0;
};

/// A BEGIN IMMEDIATE transaction that rolls back on destruction unless committed.
using Transaction = sql::ScopedTransaction<Db>;

}  // namespace tq::sqlite
