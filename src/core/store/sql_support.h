// What the SQL stores' connection layers (sqlite/db.h, postgres/pg_db.h) share: the error of a
// failed store call, the walk over a statement's rows, and a transaction scoped to a block.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/model/status.h"

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

/// A transaction of `Db` (its Begin, Commit and Rollback) that rolls back on destruction unless
/// committed.
template <typename Db>
class ScopedTransaction {
 public:
  explicit ScopedTransaction(Db& db) : db_(db) {}
  ~ScopedTransaction() {
    if (open_) db_.Rollback();
  }
  ScopedTransaction(const ScopedTransaction&) = delete;
  ScopedTransaction& operator=(const ScopedTransaction&) = delete;

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
  Db& db_;
  bool open_ = false;
};

}  // namespace tq::sql
