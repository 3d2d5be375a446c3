// The store's side of `tq update`, `tq hold` and `tq release`: changes to a pending task, and a
// hold that keeps it out of the ready set until released.
#include <doctest/doctest.h>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace tq::test;

bool MustUpdate(Store& store, TaskId id, const TaskChanges& changes, WallMs now) {
  Result<bool> new_queue = store.UpdatePending(id, changes, now);
  REQUIRE_MESSAGE(new_queue.ok(), new_queue.status().message());
  return *new_queue;
}

std::vector<TaskId> MustSetHeld(Store& store, const std::vector<TaskId>& ids, bool hold,
                                WallMs now = 1000) {
  Result<std::vector<TaskId>> changed = store.SetHeld(ids, hold, now);
  REQUIRE_MESSAGE(changed.ok(), changed.status().message());
  return *changed;
}

std::optional<WallMs> NextDueOf(Store& store) {
  Result<std::optional<WallMs>> due = store.NextDue();
  REQUIRE(due.ok());
  return *due;
}

STORE_TEST_CASE("UpdatePending changes what is set and leaves the rest") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"make"}, "default", 3);
  spec.labels = {"old"};
  spec.timeout_ms = 5000;
  const TaskId id = MustInsert(*store, kAlice, spec);

  TaskChanges changes;
  changes.priority = 1;
  changes.labels = std::vector<std::string>{"a", "b"};
  changes.retries = 4;
  CHECK_FALSE(MustUpdate(*store, id, changes, 1000));
  Task t = MustGet(*store, id);
  CHECK(t.spec.priority == 1);
  CHECK(t.spec.labels == std::vector<std::string>{"a", "b"});
  CHECK(t.spec.retry.retries == 4);
  CHECK(t.spec.timeout_ms == 5000);
  CHECK(t.spec.queue == "default");
  CHECK(t.spec.argv == std::vector<std::string>{"make"});
  // The chooser sees the new priority.
  auto first = store->FirstReady("default", ReadyOrder::kHighestPriority);
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->priority == 1);

  TaskChanges move;
  move.queue = "night";
  move.timeout_ms = 0;
  move.labels = std::vector<std::string>{};
  CHECK(MustUpdate(*store, id, move, 1000));  // a queue it made
  t = MustGet(*store, id);
  CHECK(t.spec.queue == "night");
  CHECK(t.spec.timeout_ms == 0);
  CHECK(t.spec.labels.empty());
  CHECK_FALSE(Ready(*store, "default").has_value());
  CHECK(Ready(*store, "night") == id);
}

STORE_TEST_CASE("UpdatePending of the start time decides readiness again") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}), 1000);
  REQUIRE(Ready(*store, "default") == id);
  TaskChanges later;
  later.not_before = 9000;
  MustUpdate(*store, id, later, 1000);
  CHECK_FALSE(Ready(*store, "default").has_value());
  CHECK(NextDueOf(*store) == 9000);
  TaskChanges now;
  now.not_before = 0;
  MustUpdate(*store, id, now, 1500);
  CHECK(Ready(*store, "default") == id);
}

STORE_TEST_CASE("UpdatePending refuses a task that is not pending, naming its state") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  MustStart(*store, id, 1000);
  TaskChanges changes;
  changes.priority = 1;
  Result<bool> r = store->UpdatePending(id, changes, 1000);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kInvalid);
  CHECK(r.status().field() == "state");
  CHECK(r.status().message().find("is running") != std::string::npos);
  CHECK(MustGet(*store, id).spec.priority == kDefaultPriority);
  Result<bool> missing = store->UpdatePending(id + 100, changes, 1000);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == ErrorCode::kNotFound);
}

STORE_TEST_CASE("a held task is neither ready nor due until released") {
  auto store = OpenStore();
  const TaskId ready = MustInsert(*store, kAlice, Spec({"a"}), 1000);
  TaskSpec later_spec = Spec({"b"});
  later_spec.not_before = 5000;
  const TaskId later = MustInsert(*store, kAlice, later_spec, 1000);
  const TaskId running = MustInsert(*store, kAlice, Spec({"c"}, "other"), 1000);
  MustStart(*store, running, 1000);

  CHECK(MustSetHeld(*store, {ready, later, running}, true) == std::vector<TaskId>{ready, later});
  CHECK(MustSetHeld(*store, {ready}, true).empty());  // already held
  CHECK(MustGet(*store, ready).on_hold);
  CHECK_FALSE(MustGet(*store, running).on_hold);
  CHECK_FALSE(Ready(*store, "default").has_value());
  CHECK_FALSE(NextDueOf(*store).has_value());
  auto promoted = store->PromoteDue(9000, 100);
  REQUIRE(promoted.ok());
  CHECK(*promoted == 0);
  // An update keeps the hold.
  TaskChanges now;
  now.not_before = 0;
  MustUpdate(*store, later, now, 2000);
  CHECK_FALSE(Ready(*store, "default").has_value());

  CHECK(MustSetHeld(*store, {ready, running}, false, 2000) == std::vector<TaskId>{ready});
  CHECK_FALSE(MustGet(*store, ready).on_hold);
  CHECK(Ready(*store, "default") == ready);
  CHECK(MustSetHeld(*store, {later}, false, 2000) == std::vector<TaskId>{later});
  CHECK(MustGet(*store, later).state == TaskState::kPending);
}

STORE_TEST_CASE("a released task that is not due yet waits for its time") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"x"});
  spec.not_before = 5000;
  const TaskId id = MustInsert(*store, kAlice, spec, 1000);
  MustSetHeld(*store, {id}, true);
  MustSetHeld(*store, {id}, false, 2000);
  CHECK_FALSE(Ready(*store, "default").has_value());
  CHECK(NextDueOf(*store) == 5000);
}

STORE_TEST_CASE("a user's hold outlasts the job's hold and a keyed replace") {
  auto store = OpenStore();
  const TaskId first = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  const int n = MustStart(*store, first, 1000);
  const TaskId second = MustInsert(*store, kAlice, JobRun("j", true), 1100);
  CHECK(MustSetHeld(*store, {second}, true) == std::vector<TaskId>{second});
  REQUIRE(store->FinishAttempt(first, n, Exited(2000, 0), TaskState::kSucceeded, TaskReason::kExit)
              .ok());
  CHECK_FALSE(Ready(*store, "cron").has_value());  // the job let it go; the user did not
  MustSetHeld(*store, {second}, false, 2100);
  CHECK(Ready(*store, "cron") == second);

  // Released while another run of its job runs, it stays held by the job.
  const int m = MustStart(*store, second, 2200);
  const TaskId third = MustInsert(*store, kAlice, JobRun("j", true), 2300);
  MustSetHeld(*store, {third}, true);
  MustSetHeld(*store, {third}, false, 2400);
  CHECK_FALSE(MustGet(*store, third).on_hold);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  REQUIRE(store->FinishAttempt(second, m, Exited(2500, 0), TaskState::kSucceeded, TaskReason::kExit)
              .ok());
  CHECK(Ready(*store, "cron") == third);

  const TaskId keyed = MustSubmit(*store, kAlice, Keyed("k", 1)).id;
  MustSetHeld(*store, {keyed}, true);
  const SubmitOutcome replaced = MustSubmit(*store, kAlice, Keyed("k", 1, {"y"}), 3000);
  CHECK(replaced.id == keyed);
  CHECK(MustGet(*store, keyed).spec.argv == std::vector<std::string>{"y"});  // replaced
  CHECK(MustGet(*store, keyed).on_hold);
  CHECK_FALSE(Ready(*store, "default").has_value());
}

}  // namespace
}  // namespace tq
