// The store's work per call stays bounded: PromoteDue makes at most `limit` tasks ready,
// ReadyQueues lists only the queues that hold a ready task (however many idle queues exist), and
// RequeueAll re-queues many tasks in one transaction.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

std::vector<std::string> NamesOf(const std::vector<QueueState>& queues) {
  std::vector<std::string> names;
  for (const QueueState& q : queues) names.push_back(q.name);
  return names;
}

STORE_TEST_CASE("PromoteDue makes at most `limit` tasks ready per call, the earliest first") {
  auto store = OpenStore();
  std::vector<TaskId> ids;
  for (int i = 0; i < 5; ++i) {
    TaskSpec spec = Spec({"t"});
    spec.not_before = 5000 - i * 100;  // the last inserted is due first
    ids.push_back(MustInsert(*store, kAlice, spec, 1000));
  }
  CHECK(*store->PromoteDue(9000, 2) == 2);
  CHECK(Ready(*store, "default") == ids[3]);  // not_before 4600 and 4700 went first
  CHECK(*store->PromoteDue(9000, 2) == 2);
  CHECK(*store->PromoteDue(9000, 2) == 1);
  CHECK(*store->PromoteDue(9000, 2) == 0);
}

STORE_TEST_CASE("ReadyQueues lists only the queues holding a ready task, with their settings") {
  auto store = OpenStore();
  for (int i = 0; i < 200; ++i) {
    const std::string queue = "idle" + std::to_string(i);
    REQUIRE(store->SetQueuePaused(queue, false).ok());
    // A queue that had a task, which ended: still named, never ready again.
    StartAndFinish(*store, MustInsert(*store, kAlice, Spec({"t"}, queue)), TaskState::kSucceeded,
                   2000);
  }
  MustInsert(*store, kAlice, Spec({"a"}, "b-queue"));
  MustInsert(*store, kAlice, Spec({"a"}, "b-queue"));
  MustInsert(*store, kAlice, Spec({"z"}, "z-queue"));
  TaskSpec later = Spec({"d"}, "delayed");
  later.not_before = 99999;
  MustInsert(*store, kAlice, later, 1000);
  REQUIRE(store->SetQueuePaused("z-queue", true).ok());
  REQUIRE(store->SetQueueConcurrency("b-queue", 3).ok());

  Result<std::vector<QueueState>> ready = store->ReadyQueues();
  REQUIRE_MESSAGE(ready.ok(), ready.status().message());
  REQUIRE(NamesOf(*ready) == std::vector<std::string>{"b-queue", "z-queue"});
  CHECK((*ready)[0].concurrency == 3);
  CHECK_FALSE((*ready)[0].paused);
  CHECK((*ready)[1].paused);
  CHECK_FALSE((*ready)[1].concurrency.has_value());
}

STORE_TEST_CASE(
    "RequeueAll re-queues many tasks in one transaction, skipping blocked ones on request") {
  auto store = OpenStore();
  const TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}));
  TaskSpec after = Spec({"after"});
  after.after = {dep};
  const TaskId dependent = MustInsert(*store, kAlice, after);
  const TaskId other = MustInsert(*store, kAlice, Spec({"other"}));
  StartAndFinish(*store, dep, TaskState::kFailed, 2000);  // fails `dependent` too
  StartAndFinish(*store, other, TaskState::kFailed, 2000);
  REQUIRE(StateOf(*store, dependent) == TaskState::kFailed);

  SUBCASE("in order, a dependency first: all of them") {
    Result<std::vector<TaskId>> done = store->RequeueAll({dep, dependent, other}, 5000, false, {});
    REQUIRE_MESSAGE(done.ok(), done.status().message());
    CHECK(*done == std::vector<TaskId>{dep, dependent, other});
    for (TaskId id : {dep, dependent, other}) CHECK(StateOf(*store, id) == TaskState::kPending);
  }
  SUBCASE("a blocked task refuses the whole call: nothing changes") {
    Result<std::vector<TaskId>> done = store->RequeueAll({other, dependent}, 5000, false, {});
    REQUIRE_FALSE(done.ok());
    CHECK(done.status().field() == "after");
    CHECK(StateOf(*store, other) == TaskState::kFailed);
  }
  SUBCASE("skipping blocked tasks: the others are re-queued") {
    Result<std::vector<TaskId>> done = store->RequeueAll({dependent, other}, 5000, true, {});
    REQUIRE_MESSAGE(done.ok(), done.status().message());
    CHECK(*done == std::vector<TaskId>{other});
    CHECK(StateOf(*store, dependent) == TaskState::kFailed);
  }
}

}  // namespace
}  // namespace tq
