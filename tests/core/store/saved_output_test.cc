// Output kept in the store for every host (SPEC 12): saved per attempt, replaced by a second
// save, refused for an attempt the store does not hold, and gone with its task.
#include <doctest/doctest.h>

#include <string>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("an attempt's output is kept byte for byte, and replaced by a second save") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  StartAndFinish(*store, id, TaskState::kSucceeded, 1000);
  CHECK_FALSE(store->SavedOutput(id, 1)->has_value());
  const std::string bytes("out\0\xff\n", 6);
  REQUIRE(store->SaveOutput(id, 1, StoredOutput{bytes, "err\n", "o 6\ne 4\n"}).ok());
  Result<std::optional<StoredOutput>> kept = store->SavedOutput(id, 1);
  REQUIRE(kept.ok());
  REQUIRE(kept->has_value());
  CHECK((*kept)->stdout_bytes == bytes);
  CHECK((*kept)->stderr_bytes == "err\n");
  CHECK((*kept)->order == "o 6\ne 4\n");
  REQUIRE(store->SaveOutput(id, 1, StoredOutput{"again", "", ""}).ok());
  CHECK((*store->SavedOutput(id, 1))->stdout_bytes == "again");
  CHECK_FALSE(store->SavedOutput(id, 2)->has_value());
}

STORE_TEST_CASE("output of an attempt the store does not hold is refused, changing nothing") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  Status none = store->SaveOutput(id, 1, StoredOutput{"a", "b", ""});
  CHECK(none.code() == ErrorCode::kNotFound);
  CHECK(none.field() == "attempt");
  CHECK(store->SaveOutput(id + 100, 1, StoredOutput{}).code() == ErrorCode::kNotFound);
  CHECK_FALSE(store->SavedOutput(id, 1)->has_value());
}

STORE_TEST_CASE("output given with an attempt's end is kept with it, and not when it is refused") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  const int n = MustStart(*store, id, 1000);
  const StoredOutput output{std::string("o\0\xff", 3), "e", "o 3\ne 1\n"};
  // Not the attempt that runs: refused, nothing kept.
  CHECK(store
            ->FinishAttempt(id, n + 1, Exited(1100, 0), TaskState::kSucceeded, TaskReason::kExit,
                            &output)
            .status()
            .field() == "attempt");
  CHECK_FALSE(store->SavedOutput(id, n)->has_value());
  REQUIRE(
      store
          ->FinishAttempt(id, n, Exited(1100, 0), TaskState::kSucceeded, TaskReason::kExit, &output)
          .ok());
  Result<std::optional<StoredOutput>> kept = store->SavedOutput(id, n);
  REQUIRE(kept.ok());
  REQUIRE(kept->has_value());
  CHECK((*kept)->stdout_bytes == output.stdout_bytes);
  CHECK((*kept)->stderr_bytes == "e");
  CHECK((*kept)->order == output.order);
  CHECK(store->Get(id)->state == TaskState::kSucceeded);
  // None given: none kept.
  const TaskId other = MustInsert(*store, kAlice, Spec({"y"}));
  StartAndFinish(*store, other, TaskState::kFailed, 1200);
  CHECK_FALSE(store->SavedOutput(other, 1)->has_value());
}

STORE_TEST_CASE("an attempt's kept output goes with its task") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  StartAndFinish(*store, id, TaskState::kFailed, 1000);
  REQUIRE(store->SaveOutput(id, 1, StoredOutput{"out", "err", ""}).ok());
  Result<RemovedTasks> removed = store->RemoveFinished({id});
  REQUIRE(removed.ok());
  CHECK_FALSE(store->SavedOutput(id, 1)->has_value());
}

}  // namespace
}  // namespace tq
