// RequeueAll with `succeeded` (tq retry --succeeded): a succeeded or expired task becomes pending
// again with a fresh retry budget, its pending dependents wait for the new run, and without the
// flag a succeeded task is left as it is.
#include <doctest/doctest.h>

#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("RequeueAll re-runs succeeded and expired tasks only when asked to") {
  auto store = OpenStore();
  const TaskId done = MustInsert(*store, kAlice, Spec({"done"}));
  const TaskId old = MustInsert(*store, kAlice, Spec({"old"}));
  StartAndFinish(*store, done, TaskState::kSucceeded, 2000);
  StartAndFinish(*store, old, TaskState::kSucceeded, 3000);
  REQUIRE(*store->ExpireSucceeded(2500, 10) == std::vector<TaskId>{done});

  Result<std::vector<TaskId>> plain = store->RequeueAll({done, old}, 5000, false, {});
  REQUIRE_MESSAGE(plain.ok(), plain.status().message());
  CHECK(plain->empty());
  CHECK(StateOf(*store, done) == TaskState::kExpired);
  CHECK(StateOf(*store, old) == TaskState::kSucceeded);

  Result<std::vector<TaskId>> again = store->RequeueAll({done, old}, 5000, false, {}, true);
  REQUIRE_MESSAGE(again.ok(), again.status().message());
  CHECK(*again == std::vector<TaskId>{done, old});
  for (TaskId id : {done, old}) {
    CHECK(StateOf(*store, id) == TaskState::kPending);
    CHECK(*store->FailedSinceQueued(id) == 0);
  }
  CHECK(Ready(*store, "default") == done);
}

STORE_TEST_CASE("a pending dependent of a task re-run after it succeeded waits for the new run") {
  auto store = OpenStore();
  const TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}));
  TaskSpec after = Spec({"after"}, "later");
  after.after = {dep};
  const TaskId dependent = MustInsert(*store, kAlice, after);
  StartAndFinish(*store, dep, TaskState::kSucceeded, 2000);
  REQUIRE(Ready(*store, "later") == dependent);

  REQUIRE(*store->RequeueAll({dep}, 5000, false, {}, true) == std::vector<TaskId>{dep});
  CHECK_FALSE(Ready(*store, "later").has_value());
  StartAndFinish(*store, dep, TaskState::kSucceeded, 6000);
  CHECK(Ready(*store, "later") == dependent);
}

}  // namespace
}  // namespace tq
