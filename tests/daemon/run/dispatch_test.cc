// The daemon without processes or a socket: a fake runner and a fake clock drive dispatch across
// queues and caps, the end of an attempt (retry or final state) and the waiters.
#include "daemon/daemon.h"

#include <doctest/doctest.h>

#include "support/fake_clock.h"
#include "support/fake_runner.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

// An opened daemon over a real store in a temp dir, with a fake runner.
struct Fixture {
  TempDir dir{"daemon"};
  FakeClock clock;
  FakeRunner* runner = nullptr;
  std::unique_ptr<Daemon> daemon;
  Owner owner{1000, 1000, "alice"};

  explicit Fixture(Config config = {}) {
    config.durability_full = false;
    DaemonOptions options;
    options.state_dir = dir.path.string();
    options.config = std::make_shared<const Config>(std::move(config));
    options.make_runner = [this](Runner::Callbacks callbacks) {
      auto fake = std::make_unique<FakeRunner>(clock, std::move(callbacks));
      runner = fake.get();
      return fake;
    };
    daemon = std::make_unique<Daemon>(std::move(options), clock);
    Status st = daemon->Open();
    REQUIRE_MESSAGE(st.ok(), st.message());
    daemon->RunReady();
  }

  // Submits a task as `tq submit` does, and lets the daemon dispatch.
  TaskId Submit(TaskSpec spec) {
    if (spec.argv.empty()) spec.argv = {"true"};
    auto id = daemon->store().Insert(owner, spec, clock.WallNow());
    REQUIRE_MESSAGE(id.ok(), id.status().message());
    daemon->ScheduleDispatch();
    daemon->RunReady();
    return *id;
  }
  TaskId SubmitTo(const std::string& queue) {
    TaskSpec spec;
    spec.queue = queue;
    return Submit(spec);
  }

  Task Get(TaskId id) {
    auto task = daemon->store().Get(id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    return *task;
  }
  // Ends the running attempt of `id` with `code` and lets the daemon react.
  void Exit(TaskId id, int code) {
    runner->Exit(id, code);
    daemon->RunReady();
  }
};

Config Caps(int max_running, std::map<std::string, int> queue_caps) {
  Config c;
  c.max_running = max_running;
  for (const auto& [name, cap] : queue_caps) c.queues[name].concurrency = cap;
  return c;
}

TEST_CASE("dispatch fills max_running across queues and never passes a queue's cap") {
  Fixture f(Caps(3, {{"a", 1}}));
  const TaskId a1 = f.SubmitTo("a"), a2 = f.SubmitTo("a");
  const TaskId b1 = f.SubmitTo("b"), b2 = f.SubmitTo("b"), b3 = f.SubmitTo("b");
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, b1, b2});

  f.Exit(b1, 0);  // a is at its cap: the free slot goes to b
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, b2, b3});
  f.Exit(a1, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{a2, b2, b3});
  CHECK(f.Get(a1).state == TaskState::kSucceeded);
  CHECK(f.runner->launches.size() == 5);
}

TEST_CASE("a free slot goes to the highest priority across queues, or to the oldest") {
  for (const double high_share : {1.0, 0.0}) {
    CAPTURE(high_share);
    Config config = Caps(1, {});
    config.high_share = high_share;
    Fixture f(config);
    const TaskId blocker = f.SubmitTo("a");
    TaskSpec low, high;
    low.queue = "a";
    low.priority = 5;
    high.queue = "b";
    high.priority = 1;
    const TaskId older = f.Submit(low), urgent = f.Submit(high);
    f.Exit(blocker, 0);
    CHECK(f.runner->Running() == std::vector<TaskId>{high_share == 1.0 ? urgent : older});
  }
}

TEST_CASE("a paused queue gets no slot, and a run-time concurrency overrides tqd.toml") {
  Fixture f(Caps(4, {{"a", 1}}));
  REQUIRE(f.daemon->store().SetQueuePaused("b", true).ok());
  REQUIRE(f.daemon->store().SetQueueConcurrency("a", 2).ok());
  const TaskId a1 = f.SubmitTo("a"), a2 = f.SubmitTo("a"), a3 = f.SubmitTo("a");
  const TaskId b1 = f.SubmitTo("b");
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a2});

  REQUIRE(f.daemon->store().SetQueuePaused("b", false).ok());
  f.daemon->ScheduleDispatch();
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a2, b1});
  f.Exit(a2, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a3, b1});
}

TEST_CASE("a dependent starts only after its dependency succeeded, a delayed task when due") {
  Fixture f;
  const TaskId first = f.Submit({});
  TaskSpec after;
  after.after = {first};
  const TaskId second = f.Submit(after);
  TaskSpec later;
  later.not_before = f.clock.WallNow() + 60'000;
  const TaskId third = f.Submit(later);
  CHECK(f.runner->Running() == std::vector<TaskId>{first});

  f.Exit(first, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{second});
  f.clock.Advance(60'000);
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{second, third});
}

TEST_CASE("a task due at a wall time starts once the clock is stepped past it") {
  // No monotonic time passes: only a wall-clock timer notices (a monotonic one would never
  // notice the step).
  Fixture f;
  TaskSpec at;
  at.not_before = f.clock.WallNow() + 3'600'000;
  const TaskId id = f.Submit(at);
  CHECK(f.runner->Running().empty());
  f.clock.StepWall(3'600'000 - 1);
  f.daemon->RunReady();
  CHECK(f.runner->Running().empty());
  f.clock.StepWall(1);
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{id});
}

TEST_CASE("a failed attempt with a retry left runs again after its delay, then succeeds") {
  Fixture f;
  TaskSpec spec;
  spec.retry.retries = 1;
  spec.retry.backoff = BackoffKind::kFixed;
  spec.retry.base_ms = 5000;
  spec.retry.jitter = false;
  const TaskId id = f.Submit(spec);
  REQUIRE(f.runner->Running() == std::vector<TaskId>{id});

  f.Exit(id, 3);
  CHECK(f.Get(id).state == TaskState::kPending);
  CHECK(f.runner->Running().empty());
  f.clock.Advance(4999);
  f.daemon->RunReady();
  CHECK(f.runner->Running().empty());
  f.clock.Advance(1);
  f.daemon->RunReady();
  REQUIRE(f.runner->Running() == std::vector<TaskId>{id});
  CHECK(f.runner->launches.back().attempt == 2);

  f.Exit(id, 0);
  const Task task = f.Get(id);
  CHECK(task.state == TaskState::kSucceeded);
  CHECK(task.attempts.size() == 2);
}

TEST_CASE("the last failed attempt ends the task failed, and its dependents with it") {
  Fixture f;
  const TaskId id = f.Submit({});
  TaskSpec after;
  after.after = {id};
  const TaskId dependent = f.Submit(after);

  f.Exit(id, 1);
  CHECK(f.Get(id).state == TaskState::kFailed);
  CHECK(f.Get(id).reason == TaskReason::kExit);
  CHECK(f.Get(dependent).state == TaskState::kFailed);
  CHECK(f.Get(dependent).reason == TaskReason::kDependencyFailed);
  CHECK(f.runner->launches.size() == 1);
}

TEST_CASE("a task that cannot start ends spawn-failed without running") {
  Fixture f;
  f.runner->refuse_starts = true;
  const TaskId id = f.Submit({});
  const Task task = f.Get(id);
  CHECK(task.state == TaskState::kFailed);
  CHECK(task.reason == TaskReason::kSpawnFailed);
  CHECK(f.runner->Running().empty());
}

TEST_CASE("an attempt whose supervisor never started is pending again and starts again") {
  Fixture f;
  const TaskId id = f.Submit({});
  AttemptOutcome never;
  never.never_started = true;
  never.reason = AttemptReason::kLost;
  f.runner->Finish(id, never);
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{id});
  CHECK(f.runner->launches.size() == 2);
  f.Exit(id, 0);
  CHECK(f.Get(id).state == TaskState::kSucceeded);
}

TEST_CASE("a stopped attempt records the stop and ends the task cancelled") {
  Fixture f;
  const TaskId id = f.Submit({});
  f.daemon->StopRunning(id, TaskReason::kCancelled);
  REQUIRE(f.runner->StopOf(id).has_value());
  CHECK(f.runner->StopOf(id)->attempt_reason == AttemptReason::kCancelled);
  f.Exit(id, 143);
  CHECK(f.Get(id).state == TaskState::kCancelled);
  CHECK(f.Get(id).reason == TaskReason::kCancelled);
}

TEST_CASE("waiters are answered when the attempt ends, and when a dependency fails") {
  Fixture f;
  const TaskId id = f.Submit({});
  TaskSpec after;
  after.after = {id};
  const TaskId dependent = f.Submit(after);
  f.daemon->waiters().Add(1, Waiters::Kind::kCollect, {f.Get(id)});
  f.daemon->waiters().Add(2, Waiters::Kind::kStream, {f.Get(id), f.Get(dependent)});
  f.daemon->waiters().Add(3, Waiters::Kind::kStream, {f.Get(dependent)});
  CHECK(f.daemon->waiters().Count() == 3);

  f.Exit(id, 1);
  CHECK(f.daemon->waiters().Count() == 0);
}

TEST_CASE("a waiter of a task that is retried waits for the retry's end") {
  Fixture f;
  TaskSpec spec;
  spec.retry.retries = 1;
  spec.retry.backoff = BackoffKind::kFixed;
  spec.retry.base_ms = 1000;
  spec.retry.jitter = false;
  const TaskId id = f.Submit(spec);
  f.daemon->waiters().Add(1, Waiters::Kind::kCollect, {f.Get(id)});
  f.Exit(id, 1);
  CHECK(f.daemon->waiters().Count() == 1);
  f.clock.Advance(1000);
  f.daemon->RunReady();
  f.Exit(id, 0);
  CHECK(f.daemon->waiters().Count() == 0);
}

}  // namespace
}  // namespace tq
