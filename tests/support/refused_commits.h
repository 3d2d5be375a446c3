// A store whose commits fail on purpose, as on a full disk: tests show with it what a failed
// commit leaves behind (nothing stored, nothing told, nothing done).
#pragma once

#include "core/model/status.h"
#include "core/store/sql/connection.h"
#include "core/store/sql/sql_store.h"

namespace tq {

/// While refusing, every COMMIT of the store fails and its transaction rolls back.
class RefusedCommits {
 public:
  explicit RefusedCommits(Store& store) : store_(dynamic_cast<SqlStore&>(store)) {
    store_.RefuseCommits([this] {
      if (!refusing) return Status::Ok();
      ++refused;
      return sql::StoreError("commit", "database or disk is full (refused by the test)");
    });
  }
  ~RefusedCommits() { store_.RefuseCommits(nullptr); }
  RefusedCommits(const RefusedCommits&) = delete;
  RefusedCommits& operator=(const RefusedCommits&) = delete;

  bool refusing = true;  ///< whether commits fail now
  int refused = 0;       ///< how many commits failed

 private:
  SqlStore& store_;
};

}  // namespace tq
