// Purge in the SQLite store: the rows of a purged task go with it (attempts, labels, an
// environment no other task uses), and nothing is left dangling.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/store/sqlite/db.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

TEST_CASE("PurgeEnded deletes ended rows with their attempts, and leaves younger ones") {
  TempDir dir("store");
  const std::string path = dir.File("tq.db");
  auto store = OpenSqlite(path);
  CHECK_FALSE(store->OldestEnded()->has_value());
  TaskSpec own_env = Spec({"f"});
  own_env.env = {"ONLY=failed"};
  own_env.labels = {"gone"};
  const TaskId failed = MustInsert(*store, kAlice, own_env);
  StartAndFinish(*store, failed, TaskState::kFailed, 1000);  // 1010
  const TaskId cancelled = MustInsert(*store, kAlice, Spec({"c"}));
  REQUIRE(store->EndPending(cancelled, TaskState::kCancelled, TaskReason::kCancelled, 1020).ok());
  const TaskId expired = MustInsert(*store, kAlice, Spec({"e"}));
  StartAndFinish(*store, expired, TaskState::kSucceeded, 1020);  // 1030
  REQUIRE(store->ExpireSucceeded(1030, 10)->size() == 1);
  const TaskId succeeded = MustInsert(*store, kAlice, Spec({"s"}));
  StartAndFinish(*store, succeeded, TaskState::kSucceeded, 900);  // 910, but not ended for purge
  const TaskId young = MustInsert(*store, kAlice, Spec({"y"}));
  StartAndFinish(*store, young, TaskState::kFailed, 5000);  // 5010
  TaskSpec after_expired = Spec({"a"});
  after_expired.after = {expired};
  after_expired.not_before = 99999;
  const TaskId pending = MustInsert(*store, kAlice, after_expired, 2000);

  CHECK(*store->OldestEnded() == std::optional<WallMs>(1010));
  CHECK(store->PurgeEnded(1009, 10)->empty());
  CHECK(*store->PurgeEnded(1030, 2) == std::vector<TaskId>{failed, cancelled});
  CHECK(*store->PurgeEnded(1030, 10) == std::vector<TaskId>{expired});
  CHECK(store->PurgeEnded(1030, 10)->empty());
  CHECK(*store->OldestEnded() == std::optional<WallMs>(5010));

  for (TaskId id : {failed, cancelled, expired}) {
    CAPTURE(id);
    CHECK(store->Get(id).status().code() == ErrorCode::kNotFound);
  }
  for (TaskId id : {succeeded, young, pending}) CHECK(store->Get(id).ok());
  CHECK(MustGet(*store, pending).spec.after.empty());  // the edge went with the row
  CHECK(*store->PromoteDue(99999, 1000) == 1);

  Result<sqlite::Db> db = sqlite::Db::Open(path);
  REQUIRE(db.ok());
  auto count = [&db](const std::string& sql) { return *db->QueryInt("count", sql); };
  CHECK(count("SELECT count(*) FROM attempts") == 2);  // succeeded's and young's
  CHECK(count("SELECT count(*) FROM task_labels") == 0);
  CHECK(count("SELECT count(*) FROM envs") == 1);  // the failed task's own env is gone
  CHECK(db->QueryText("check", "PRAGMA foreign_key_check")->empty());

  // Ids are never reused.
  CHECK(MustInsert(*store, kAlice, Spec({"new"})) > pending);
}

}  // namespace
}  // namespace tq
