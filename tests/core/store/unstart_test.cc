// Undoing an attempt whose supervisor never started, and what v5 keeps: the keep-background
// choice of a task and why an attempt could not start.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("UnstartAttempt makes the task pending and ready again without using a retry") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"once"});
  spec.retry.retries = 0;
  const TaskId id = MustInsert(*store, kAlice, spec);
  CHECK(MustStart(*store, id, 1000) == 1);

  CHECK(store->UnstartAttempt(id, 2).code() == ErrorCode::kInvalid);  // not its running attempt
  REQUIRE(store->UnstartAttempt(id, 1).ok());
  Task task = MustGet(*store, id);
  CHECK(task.state == TaskState::kPending);
  CHECK(task.attempt_count == 0);
  CHECK(task.attempts.empty());
  CHECK(*store->FailedSinceQueued(id) == 0);
  CHECK(store->RunningAttempts()->empty());
  CHECK(store->UnstartAttempt(id, 1).code() == ErrorCode::kInvalid);  // pending now

  // It is chosen again and its next attempt is number 1 once more.
  auto first = store->FirstReady("default", ReadyOrder::kOldest);
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->id == id);
  CHECK(MustStart(*store, id, 2000) == 1);
  CHECK(store->UnstartAttempt(id + 1, 1).code() == ErrorCode::kNotFound);
}

STORE_TEST_CASE("UnstartAttempt with a time: the task waits until then, then is ready") {
  // A start a full disk prevented: the task is not picked again at once.
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"once"}));
  CHECK(MustStart(*store, id, 1000) == 1);
  REQUIRE(store->UnstartAttempt(id, 1, 5000).ok());
  Task task = MustGet(*store, id);
  CHECK(task.state == TaskState::kPending);
  CHECK(task.attempt_count == 0);
  CHECK(task.spec.not_before == 5000);
  CHECK_FALSE(store->FirstReady("default", ReadyOrder::kOldest)->has_value());
  CHECK(*store->NextDue() == std::optional<WallMs>(5000));
  CHECK(*store->PromoteDue(4999, 10) == 0);
  CHECK(*store->PromoteDue(5000, 10) == 1);
  auto first = store->FirstReady("default", ReadyOrder::kOldest);
  REQUIRE(first->has_value());
  CHECK((*first)->id == id);
}

STORE_TEST_CASE("a task's hooks and mail are stored, and come back with it") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"backup"});
  spec.notify.on_failure = std::string("echo \xff failed");
  spec.notify.on_finish = "echo done";
  spec.notify.mailto = "ops@example.com";
  spec.notify.mail_on = MailOn::kAlways;
  const TaskId told = MustInsert(*store, kAlice, spec);
  const TaskId plain = MustInsert(*store, kAlice, Spec({"x"}));
  CHECK(MustGet(*store, told).spec.notify == spec.notify);
  CHECK(MustGet(*store, plain).spec.notify == NotifySpec{});
}

STORE_TEST_CASE("keep_background and an attempt's detail are stored") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"daemonize"});
  spec.keep_background = true;
  const TaskId kept = MustInsert(*store, kAlice, spec);
  const TaskId plain = MustInsert(*store, kAlice, Spec({"x"}));
  CHECK(MustGet(*store, kept).spec.keep_background);
  CHECK_FALSE(MustGet(*store, plain).spec.keep_background);

  CHECK(MustStart(*store, plain, 1000) == 1);
  AttemptOutcome failed = Exited(2000, 127);
  failed.reason = AttemptReason::kSpawnFailed;
  failed.detail = "cwd /gone: No such file or directory";
  REQUIRE(
      store->FinishAttempt(plain, 1, failed, TaskState::kFailed, TaskReason::kSpawnFailed).ok());
  Task task = MustGet(*store, plain);
  REQUIRE(task.attempts.size() == 1);
  CHECK(task.attempts[0].detail == "cwd /gone: No such file or directory");
}

}  // namespace
}  // namespace tq
