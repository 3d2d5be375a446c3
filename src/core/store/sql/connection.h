// What the SQL store (sql_store.h) asks of a database connection, and what each connection layer
// (sqlite/db.h, postgres/pg_db.h) gives: statements prepared once and run by one Query at a time,
// parameters numbered $1, $2, ... and bound in that order, transactions with one savepoint.
// Nothing here throws; every failure is Status::Internal("store: <what> failed: <detail>") with
// a fault saying whether trying again may help.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/model/status.h"
#include "core/store/store_waiter.h"

namespace tq::sql {

/// The store's error for a failed call: "store: <what> failed: <detail>", a permanent fault
/// unless the caller marks it otherwise.
inline Status StoreError(std::string_view what, std::string_view detail) {
  std::string message = "store: ";
  message.append(what);
  message += " failed: ";
  message.append(detail);
  return Status::Internal(std::move(message)).WithFault(StoreFault::kPermanent);
}

/// `values` each in double quotes (a quote or backslash in one escaped by a backslash), comma
/// separated, between `open` and `close`: a JSON array ('[', ']') or a PostgreSQL array ('{', '}')
/// of texts.
std::string QuotedList(const std::vector<std::string>& values, char open, char close);

/// A statement prepared on one connection, run by one Query at a time: its parameters are bound
/// in order, then its rows are stepped through and their columns read. Bind errors surface at
/// Step.
class Statement {
 public:
  virtual ~Statement() = default;

  virtual void BindInt(int64_t value) = 0;
  /// Text: a name a caller gave (any bytes) or a word the store spells.
  virtual void BindText(std::string_view value) = 0;
  /// Bytes kept as they are (argv, stdin, a directory).
  virtual void BindBlob(std::string_view value) = 0;
  virtual void BindNull() = 0;
  /// A list of texts, for the dialect's "not in the list" test (statements.cc).
  virtual void BindTextList(const std::vector<std::string>& values) = 0;

  /// Runs the statement on the first call; then true while a row is available.
  virtual Result<bool> Step() = 0;
  /// Column `col` (0-based) of the current row; Int reads NULL as 0.
  virtual int64_t Int(int col) const = 0;
  virtual std::string Text(int col) const = 0;
  virtual std::string Blob(int col) const = 0;
  virtual bool IsNull(int col) const = 0;

  /// Ends the current run: forgets its parameters and rows.
  virtual void Reset() = 0;
};

/// A prepared statement as its owner keeps it (empty until prepared).
using Stmt = std::unique_ptr<Statement>;

/// Steps `query` through every remaining row calling `on_row()`, which returns void or a Status
/// (a failing Status stops the walk and is returned).
template <typename Query, typename OnRow>
Status ForEachRow(Query& query, OnRow&& on_row) {
  for (;;) {
    Result<bool> row = query.Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    if constexpr (std::is_void_v<decltype(on_row())>) {
      on_row();
    } else if (Status s = on_row(); !s.ok()) {
      return s;
    }
  }
}

/// How many prepared statements this process has run (each Query is one run): what a piece of
/// work costs the store, counted in tests.
inline std::atomic<uint64_t> statements_run{0};

/// One run of a prepared statement: binds in call order ($1, $2, ...), steps, reads columns, and
/// ends the run when it goes out of scope (so a Query must end before its transaction commits).
class Query {
 public:
  explicit Query(const Stmt& stmt) : stmt_(*stmt) {
    statements_run.fetch_add(1, std::memory_order_relaxed);
  }
  ~Query() { stmt_.Reset(); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& BindInt(int64_t value) {
    stmt_.BindInt(value);
    return *this;
  }
  Query& BindText(std::string_view value) {
    stmt_.BindText(value);
    return *this;
  }
  Query& BindBlob(std::string_view value) {
    stmt_.BindBlob(value);
    return *this;
  }
  Query& BindTextList(const std::vector<std::string>& values) {
    stmt_.BindTextList(values);
    return *this;
  }
  /// NULL when absent.
  Query& BindOptInt(const std::optional<int64_t>& value) {
    value ? stmt_.BindInt(*value) : stmt_.BindNull();
    return *this;
  }
  Query& BindOptText(const std::optional<std::string>& value) {
    value ? stmt_.BindText(*value) : stmt_.BindNull();
    return *this;
  }
  Query& BindOptBlob(const std::optional<std::string>& value) {
    value ? stmt_.BindBlob(*value) : stmt_.BindNull();
    return *this;
  }

  /// Advances: true when a row is available, false when the statement is done.
  Result<bool> Step() { return stmt_.Step(); }
  /// Runs the statement to its end, ignoring rows.
  Status Run() {
    return ForEach([] {});
  }
  /// Steps through every remaining row calling `on_row()` (ForEachRow).
  template <typename OnRow>
  Status ForEach(OnRow&& on_row) {
    return ForEachRow(*this, std::forward<OnRow>(on_row));
  }

  int64_t Int(int col) const { return stmt_.Int(col); }
  std::string Text(int col) const { return stmt_.Text(col); }
  std::string Blob(int col) const { return stmt_.Blob(col); }
  bool IsNull(int col) const { return stmt_.IsNull(col); }

 private:
  Statement& stmt_;
};

/// An open connection to the store's database, owned and used by one thread.
class Connection {
 public:
  Connection() = default;
  virtual ~Connection() = default;

  /// Prepares `sql` (parameters $1, $2, ...); `what` names it in every error.
  virtual Result<Stmt> Prepare(std::string what, const std::string& sql) = 0;
  /// Runs `sql` (one or more statements without parameters; rows are ignored).
  virtual Status Exec(std::string_view what, const std::string& sql) = 0;
  /// The first column of the first row of `sql` as an integer; 0 when there is no row.
  Result<int64_t> QueryInt(std::string_view what, const std::string& sql);
  /// The first column of the first row of `sql` as text; "" when there is no row.
  Result<std::string> QueryText(std::string_view what, const std::string& sql);

  /// Opens a write transaction: one at a time per store in SQLite; in PostgreSQL those of
  /// several hosts run side by side, each holding only the rows it changes or locks (issue 50).
  /// Reads never wait for it.
  virtual Status Begin() = 0;
  /// Commits, and tells the observer (ObserveCommits) how long it took.
  Status Commit();
  /// Has the next transaction's commit leave its sync to a later one (CommitSync::kLater in
  /// core/store/store.h); every other commit syncs as the store's durability says. A no-op for
  /// a server that decides its own syncs.
  virtual void SyncLater() {}
  /// Rolls back if a transaction is open; a no-op otherwise.
  virtual void Rollback() = 0;
  /// True while a transaction is open. After a failed statement inside one, false means the
  /// database gave the whole transaction up (a full disk, a lost connection, ...).
  virtual bool InTransaction() const = 0;
  /// SAVEPOINT, ROLLBACK TO and RELEASE of the one savepoint "item" (not nested).
  virtual Status Savepoint() = 0;
  virtual Status RollbackToSavepoint() = 0;
  virtual Status ReleaseSavepoint() = 0;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  virtual int64_t Changes() const = 0;

  /// Calls `observe` with the seconds each successful COMMIT took (its sync included).
  void ObserveCommits(std::function<void(double seconds)> observe) {
    observe_commit_ = std::move(observe);
  }
  /// Has each COMMIT first ask `refusal`: a failing Status is that commit's failure, and the
  /// transaction rolls back. For tests of what a failed commit leaves; tqd never sets it.
  void RefuseCommits(std::function<Status()> refusal) { refuse_commit_ = std::move(refusal); }
  /// Has each wait for a network server's answer wait through `waiter` (Store::WaitWith); a
  /// connection to a file on the local disk does not wait so.
  void WaitWith(StoreWaiter waiter) { waiter_ = std::move(waiter); }

 protected:
  Connection(Connection&&) = default;
  Connection& operator=(Connection&&) = default;
  /// COMMIT itself.
  virtual Status CommitNow() = 0;
  /// WaitWith's waiter; empty when none was given.
  const StoreWaiter& waiter() const { return waiter_; }

 private:
  StoreWaiter waiter_;
  std::function<void(double)> observe_commit_;
  std::function<Status()> refuse_commit_;
};

/// A transaction that rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& db) : db_(db) {}
  ~Transaction() {
    if (open_) db_.Rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// Opens the transaction.
  Status Begin() {
    Status status = db_.Begin();
    open_ = status.ok();
    return status;
  }
  /// Commits; on failure the destructor rolls back.
  Status Commit() {
    Status status = db_.Commit();
    if (status.ok()) open_ = false;
    return status;
  }

 private:
  Connection& db_;
  bool open_ = false;
};

}  // namespace tq::sql
