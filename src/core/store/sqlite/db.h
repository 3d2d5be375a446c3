// The SQLite connection layer (sql/connection.h): one connection, statements prepared once and
// reused, BEGIN IMMEDIATE transactions. Statements number their parameters $1, $2, ... as the
// PostgreSQL store's do; a Query binds them in that order. Nothing here throws; every failure is
// Status::Internal("store: <what> failed: <sqlite message>").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/status.h"
#include "core/store/sql/connection.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tq::sqlite {

/// The store's error for a failed SQLite call with result code `rc`: busy, locked, I/O errors
/// and the like are transient faults, the rest (full, constraint, corrupt, read-only, ...)
/// permanent.
Status Error(std::string_view what, std::string_view detail, int rc);
/// How lasting a failure with SQLite result code `rc` (primary or extended) is.
StoreFault FaultOf(int rc);

/// An open connection; closes it on destruction. Move-only; owned and used by one thread.
class Db : public sql::Connection {
 public:
  /// Opens (creating if absent) the database file at `path`; ":memory:" gives a private
  /// in-memory database. Prepares the transaction statements.
  static Result<Db> Open(const std::string& path);

  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() override;

  Result<sql::Stmt> Prepare(std::string what, const std::string& sql) override;
  Status Exec(std::string_view what, const std::string& sql) override;
  /// BEGIN IMMEDIATE: the write lock is taken at once, so a transaction never fails half way for
  /// want of it.
  Status Begin() override;
  void Rollback() override;
  /// After a failed statement, false means SQLite rolled the whole transaction back by itself
  /// (it does on a full disk, an I/O error, ...).
  bool InTransaction() const override;
  Status Savepoint() override;
  Status RollbackToSavepoint() override;
  Status ReleaseSavepoint() override;
  int64_t Changes() const override;

 protected:
  Status CommitNow() override;

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
};

}  // namespace tq::sqlite
