// List's ListFilter::states, for every backend: the tasks in any of several states, newest
// first, each state counted once, together with the other filters and the pages.
#include <doctest/doctest.h>

#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// The ids List gives for `filter`, newest first.
std::vector<TaskId> IdsOf(Store& store, const ListFilter& filter) {
  Result<std::vector<Task>> tasks = store.List(filter);
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  std::vector<TaskId> ids;
  for (const Task& t : *tasks) ids.push_back(t.id);
  return ids;
}

// A filter for the tasks in one of `states`.
ListFilter InStates(std::vector<TaskState> states) {
  ListFilter f;
  f.states = std::move(states);
  return f;
}

STORE_TEST_CASE("List keeps the tasks in any of several states") {
  auto store = OpenStore();
  const TaskId pending = MustInsert(*store, kAlice, Spec({"x"}));
  const TaskId failed = MustInsert(*store, kAlice, Spec({"x"}));
  const TaskId succeeded = MustInsert(*store, kAlice, Spec({"x"}));
  const TaskId running = MustInsert(*store, kAlice, Spec({"x"}));
  const TaskId bobs_failed = MustInsert(*store, kBob, Spec({"x"}));
  StartAndFinish(*store, failed, TaskState::kFailed, 2000);
  StartAndFinish(*store, succeeded, TaskState::kSucceeded, 2000);
  StartAndFinish(*store, bobs_failed, TaskState::kFailed, 2000);
  REQUIRE(store->StartAttempt(running, 2000, {})->has_value());

  using S = TaskState;
  CHECK(IdsOf(*store, InStates({S::kFailed, S::kPending})) ==
        std::vector<TaskId>{bobs_failed, failed, pending});
  CHECK(IdsOf(*store, InStates({S::kPending, S::kFailed, S::kPending})) ==
        std::vector<TaskId>{bobs_failed, failed, pending});
  CHECK(IdsOf(*store, InStates({S::kRunning})) == std::vector<TaskId>{running});
  CHECK(IdsOf(*store, InStates({S::kCancelled, S::kExpired})).empty());
  CHECK(IdsOf(*store, InStates({S::kPending, S::kRunning, S::kSucceeded, S::kFailed, S::kCancelled,
                                S::kExpired})) ==
        std::vector<TaskId>{bobs_failed, running, succeeded, failed, pending});

  ListFilter alices = InStates({S::kFailed, S::kSucceeded});
  alices.owner_uid = kAlice.uid;
  CHECK(IdsOf(*store, alices) == std::vector<TaskId>{succeeded, failed});
  alices.limit = 1;  // a page, then the next from where it ended
  CHECK(IdsOf(*store, alices) == std::vector<TaskId>{succeeded});
  alices.before_id = succeeded;
  CHECK(IdsOf(*store, alices) == std::vector<TaskId>{failed});
}

}  // namespace
}  // namespace tq
