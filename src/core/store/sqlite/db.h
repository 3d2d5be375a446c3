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
  /// Durability "full" (synchronous = FULL: each commit waits for the disk) or WAL's NORMAL
  /// (commits wait for nothing; a checkpoint syncs).
  Status SetDurability(bool full);
  /// BEGIN IMMEDIATE: the write lock is taken at once, so a transaction never fails half way for
  /// want of it. Switches synchronous for this transaction's commit first when SyncLater asked.
  Status Begin() override;
  /// With durability "full": the next commit is NORMAL's (SQLite allows the switch only outside
  /// a transaction, so Begin makes it).
  void SyncLater() override { sync_later_ = true; }
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

  /// Switches synchronous to FULL (`full`) or NORMAL unless it is so already.
  Status SyncCommits(bool full);

  sqlite3* db_ = nullptr;
  bool durability_full_ = false;  ///< SetDurability's
  bool syncing_ = false;          ///< synchronous is FULL now
  bool sync_later_ = false;       ///< SyncLater asked, for the next Begin
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3_stmt* rollback_ = nullptr;
  sqlite3_stmt* savepoint_ = nullptr;
  sqlite3_stmt* rollback_to_ = nullptr;
  sqlite3_stmt* release_ = nullptr;
};

}  // namespace tq::sqlite
