// Dispatch without processes or a socket: a fake runner and a fake clock drive it across queues
// and caps, the end of an attempt (retry or final state) and what it tells of each.
#include "daemon/run/dispatch.h"

#include <doctest/doctest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/store/sql/connection.h"
#include "core/store/sqlite/open.h"
#include "daemon/host/context_dirs.h"
#include "support/fake_clock.h"
#include "support/fake_runner.h"
#include "support/refused_commits.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

// A dispatcher over a real store in a temp dir, with a fake runner; it keeps what dispatch told.
struct DispatchFixture {
  TempDir dir{"dispatch"};
  FakeClock clock;
  ConfigPtr config;
  EventLoop loop{clock};
  std::unique_ptr<Store> store;
  TaskFiles files{dir.path.string()};
  AccessRules access{clock, config, 60'000};
  UserLimitsGate limits{clock, config, 60'000};
  LookupHolds holds{clock};
  DaemonCounters counters;
  FakeRunner* runner = nullptr;
  std::vector<TaskId> started, retrying, advanced, unstarted, ended;  // as dispatch told them
  int shared = 0;                      // turns that stored what other hosts act on
  std::map<std::string, JobDef> jobs;  // the scheduler's definitions
  std::unique_ptr<Dispatcher> dispatch;
  Owner owner{1000, 1000, "alice"};

  explicit DispatchFixture(Config c = {}) {
    c.durability_full = false;
    config = std::make_shared<const Config>(std::move(c));
    auto opened = OpenSqliteStore((dir.path / "tq.db").string(), false);
    REQUIRE_MESSAGE(opened.ok(), opened.status().message());
    store = std::move(*opened);
    REQUIRE(files.Prepare().ok());
    DispatchEvents told{
        [this](const Task& task, int) { started.push_back(task.id); },
        [this](const Task& task, int, const AttemptOutcome&) { retrying.push_back(task.id); },
        [this](const Task& task, int, const AttemptOutcome&) { advanced.push_back(task.id); },
        [this](TaskId id) { unstarted.push_back(id); },
        [this](const std::vector<TaskId>& ids, const std::vector<Task>&) {
          ended.insert(ended.end(), ids.begin(), ids.end());
        },
        [](TaskId id, const Status& why) { FAIL("task ", id, " could not end: ", why.message()); },
        [] {},
        [this](const std::string& name) -> const JobDef* {
          auto it = jobs.find(name);
          return it == jobs.end() ? nullptr : &it->second;
        },
        [this] { ++shared; }};
    dispatch = std::make_unique<Dispatcher>(
        DispatchParts{loop, clock, *store, config, files, access, limits, holds, counters, {}, ""},
        std::move(told), FakeRunner::Maker(clock, &runner));
    dispatch->Schedule();
    loop.RunReady();
  }

  // Submits a task as `tq submit` does, and lets dispatch run.
  TaskId Submit(TaskSpec spec) {
    if (spec.argv.empty() && spec.stages.empty()) spec.argv = {"true"};
    auto id = store->Insert(owner, spec, clock.WallNow());
    REQUIRE_MESSAGE(id.ok(), id.status().message());
    dispatch->Schedule();
    loop.RunReady();
    return *id;
  }
  TaskId SubmitTo(const std::string& queue) {
    TaskSpec spec;
    spec.queue = queue;
    return Submit(spec);
  }

  Task Get(TaskId id) {
    auto task = store->Get(id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    return *task;
  }
  // Ends the running attempt of `id` with `code` and lets dispatch react.
  void Exit(TaskId id, int code) {
    runner->Exit(id, code);
    loop.RunReady();
  }
};

Config Caps(int max_running, std::map<std::string, int> queue_caps) {
  Config c;
  c.max_running = max_running;
  for (const auto& [name, cap] : queue_caps) c.queues[name].concurrency = cap;
  return c;
}

TEST_CASE("dispatch fills max_running across queues and never passes a queue's cap") {
  DispatchFixture f(Caps(3, {{"a", 1}}));
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
    DispatchFixture f(config);
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

TEST_CASE("a strict queue runs its highest priority first even on the oldest-first draw") {
  // high_share 0: every draw takes the oldest, so only strictness puts priority first.
  for (const bool from_toml : {true, false}) {
    CAPTURE(from_toml);
    Config config = Caps(1, {});
    config.high_share = 0.0;
    if (from_toml) config.queues["s"].priority_mix = PriorityMix::kStrict;
    DispatchFixture f(config);
    if (!from_toml) REQUIRE(f.store->SetQueuePriorityMix("s", PriorityMix::kStrict).ok());
    const TaskId blocker = f.SubmitTo("s");
    std::vector<TaskId> by_priority(6);
    for (int priority : {5, 3, 4, 1, 2}) {
      TaskSpec spec;
      spec.queue = "s";
      spec.priority = priority;
      by_priority[priority] = f.Submit(spec);
    }
    std::vector<TaskId> order;
    TaskId running = blocker;
    for (int i = 0; i < 5; ++i) {
      f.Exit(running, 0);
      REQUIRE(f.runner->Running().size() == 1);
      running = f.runner->Running()[0];
      order.push_back(running);
    }
    CHECK(order == std::vector<TaskId>{by_priority[1], by_priority[2], by_priority[3],
                                       by_priority[4], by_priority[5]});
  }
}

TEST_CASE("between queues the draw still decides: a strict queue's best is weighed by its age") {
  Config config = Caps(1, {});
  config.high_share = 0.0;  // every draw takes the oldest
  config.queues["s"].priority_mix = PriorityMix::kStrict;
  DispatchFixture f(config);
  const TaskId blocker = f.SubmitTo("m");
  TaskSpec old_low, young_high;
  old_low.queue = "m";
  old_low.priority = 5;
  young_high.queue = "s";
  young_high.priority = 1;
  const TaskId older = f.Submit(old_low), urgent = f.Submit(young_high);
  f.Exit(blocker, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{older});
  f.Exit(older, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{urgent});
}

// Whether `env` has the entry `entry`.
bool HasEntry(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST_CASE("a task waits for its units, a task behind it needing none or fewer goes first") {
  Config config = Caps(8, {});
  config.unit_pools["gpu"] = {"0", "1"};
  DispatchFixture f(config);
  TaskSpec one, two;
  one.use = {{"gpu", 1}};
  two.use = {{"gpu", 2}};
  const TaskId first = f.Submit(one);
  const TaskId both = f.Submit(two);  // one unit is free: it waits
  const TaskId plain = f.SubmitTo("default");
  const TaskId second = f.Submit(one);  // behind the waiting one, and fits
  CHECK(f.runner->Running() == std::vector<TaskId>{first, plain, second});
  REQUIRE(f.runner->launches.size() == 3);
  CHECK(HasEntry(f.runner->launches[0].env, "TQ_RESOURCE_GPU=0"));
  CHECK(HasEntry(f.runner->launches[0].env, "CUDA_VISIBLE_DEVICES=0"));
  CHECK(HasEntry(f.runner->launches[2].env, "TQ_RESOURCE_GPU=1"));
  CHECK_FALSE(HasEntry(f.runner->launches[1].env, "TQ_RESOURCE_GPU=1"));
  f.Exit(first, 0);  // one unit free again: still not enough
  CHECK(f.runner->Running() == std::vector<TaskId>{plain, second});
  f.Exit(second, 1);  // a failure gives its unit back too
  CHECK(f.runner->Running() == std::vector<TaskId>{both, plain});
  CHECK(HasEntry(f.runner->launches.back().env, "TQ_RESOURCE_GPU=0,1"));
  CHECK(f.Get(both).attempts[0].units == UnitGrant{{"gpu", {"0", "1"}}});
}

TEST_CASE("among tasks whose units are free the draw still picks by priority or age") {
  for (const double high_share : {1.0, 0.0}) {
    CAPTURE(high_share);
    Config config = Caps(8, {});
    config.high_share = high_share;
    config.unit_pools["gpu"] = {"0"};
    DispatchFixture f(config);
    TaskSpec holder, old_low, young_high;
    holder.use = old_low.use = young_high.use = {{"gpu", 1}};
    old_low.priority = 5;
    young_high.priority = 1;
    const TaskId blocker = f.Submit(holder);
    const TaskId older = f.Submit(old_low), urgent = f.Submit(young_high);
    CHECK(f.runner->Running() == std::vector<TaskId>{blocker});
    f.Exit(blocker, 0);
    CHECK(f.runner->Running() == std::vector<TaskId>{high_share == 1.0 ? urgent : older});
  }
}

TEST_CASE("a unit a reload removed is not handed out, and a waiting task starts once it fits") {
  Config config = Caps(8, {});
  config.unit_pools["gpu"] = {"0", "1"};
  DispatchFixture f(config);
  TaskSpec one;
  one.use = {{"gpu", 1}};
  const TaskId a = f.Submit(one), b = f.Submit(one);
  CHECK(f.runner->Running() == std::vector<TaskId>{a, b});
  Config fewer = *f.config;
  fewer.unit_pools["gpu"] = {"0"};
  f.config = std::make_shared<const Config>(fewer);
  f.Exit(b, 0);  // unit 1 is gone: the next task waits for unit 0
  const TaskId c = f.Submit(one);
  CHECK(f.runner->Running() == std::vector<TaskId>{a});
  f.Exit(a, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{c});
  CHECK(f.Get(c).attempts[0].units == UnitGrant{{"gpu", {"0"}}});
}

TEST_CASE("a paused queue gets no slot, and a run-time concurrency overrides tqd.toml") {
  DispatchFixture f(Caps(4, {{"a", 1}}));
  REQUIRE(f.store->SetQueuePaused("b", true).ok());
  REQUIRE(f.store->SetQueueConcurrency("a", 2).ok());
  const TaskId a1 = f.SubmitTo("a"), a2 = f.SubmitTo("a"), a3 = f.SubmitTo("a");
  const TaskId b1 = f.SubmitTo("b");
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a2});

  REQUIRE(f.store->SetQueuePaused("b", false).ok());
  f.dispatch->Schedule();
  f.loop.RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a2, b1});
  f.Exit(a2, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{a1, a3, b1});
}

TEST_CASE("a dependent starts only after its dependency succeeded, a delayed task when due") {
  DispatchFixture f;
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
  f.loop.RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{second, third});
}

TEST_CASE("a task due at a wall time starts once the clock is stepped past it") {
  // No monotonic time passes: only a wall-clock timer notices (a monotonic one would never
  // notice the step).
  DispatchFixture f;
  TaskSpec at;
  at.not_before = f.clock.WallNow() + 3'600'000;
  const TaskId id = f.Submit(at);
  CHECK(f.runner->Running().empty());
  f.clock.StepWall(3'600'000 - 1);
  f.loop.RunReady();
  CHECK(f.runner->Running().empty());
  f.clock.StepWall(1);
  f.loop.RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{id});
}

TEST_CASE("a failed attempt with a retry left runs again after its delay, then succeeds") {
  DispatchFixture f;
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
  f.loop.RunReady();
  CHECK(f.runner->Running().empty());
  f.clock.Advance(1);
  f.loop.RunReady();
  REQUIRE(f.runner->Running() == std::vector<TaskId>{id});
  CHECK(f.runner->launches.back().attempt == 2);

  f.Exit(id, 0);
  const Task task = f.Get(id);
  CHECK(task.state == TaskState::kSucceeded);
  CHECK(task.attempts.size() == 2);
}

TEST_CASE("the last failed attempt ends the task failed, and its dependents with it") {
  DispatchFixture f;
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
  DispatchFixture f;
  f.runner->refuse_starts = true;
  const TaskId id = f.Submit({});
  const Task task = f.Get(id);
  CHECK(task.state == TaskState::kFailed);
  CHECK(task.reason == TaskReason::kSpawnFailed);
  CHECK(f.runner->Running().empty());
}

TEST_CASE("an attempt whose supervisor never started is pending again and starts again") {
  DispatchFixture f;
  const TaskId id = f.Submit({});
  AttemptOutcome never;
  never.never_started = true;
  never.reason = AttemptReason::kLost;
  f.runner->Finish(id, never);
  f.loop.RunReady();
  CHECK(f.unstarted == std::vector<TaskId>{id});
  CHECK(f.runner->Running() == std::vector<TaskId>{id});
  CHECK(f.runner->launches.size() == 2);
  f.Exit(id, 0);
  CHECK(f.Get(id).state == TaskState::kSucceeded);
}

TEST_CASE("a stopped attempt records the stop and ends the task cancelled") {
  DispatchFixture f;
  const TaskId id = f.Submit({});
  f.dispatch->StopRunning(id, TaskReason::kCancelled);
  REQUIRE(f.runner->StopOf(id).has_value());
  CHECK(f.runner->StopOf(id)->attempt_reason == AttemptReason::kCancelled);
  f.Exit(id, 143);
  CHECK(f.Get(id).state == TaskState::kCancelled);
  CHECK(f.Get(id).reason == TaskReason::kCancelled);
}

TEST_CASE("an attempt's end tells of the task and of the dependents that fail with it") {
  DispatchFixture f;
  const TaskId id = f.Submit({});
  TaskSpec after;
  after.after = {id};
  const TaskId dependent = f.Submit(after);
  CHECK(f.started == std::vector<TaskId>{id});
  CHECK(f.ended.empty());

  f.Exit(id, 1);
  CHECK(f.ended == std::vector<TaskId>{id, dependent});
}

TEST_CASE("a retried task is told of as retrying, and as ended only after its retry's end") {
  DispatchFixture f;
  TaskSpec spec;
  spec.retry.retries = 1;
  spec.retry.backoff = BackoffKind::kFixed;
  spec.retry.base_ms = 1000;
  spec.retry.jitter = false;
  const TaskId id = f.Submit(spec);
  f.Exit(id, 1);
  CHECK(f.retrying == std::vector<TaskId>{id});
  CHECK(f.ended.empty());
  f.clock.Advance(1000);
  f.loop.RunReady();
  CHECK(f.started == std::vector<TaskId>{id, id});
  f.Exit(id, 0);
  CHECK(f.ended == std::vector<TaskId>{id});
}

TEST_CASE("ending a pending task tells of it and of its dependents") {
  DispatchFixture f(Caps(1, {}));
  const TaskId blocker = f.Submit({});
  const TaskId waiting = f.Submit({});
  TaskSpec after;
  after.after = {waiting};
  const TaskId dependent = f.Submit(after);
  REQUIRE(f.runner->Running() == std::vector<TaskId>{blocker});
  CHECK(f.dispatch->EndPending({waiting}, TaskState::kCancelled, TaskReason::kCancelled));
  CHECK(f.ended == std::vector<TaskId>{waiting, dependent});
  CHECK(f.Get(waiting).state == TaskState::kCancelled);
  CHECK(f.Get(dependent).reason == TaskReason::kDependencyFailed);
}

TEST_CASE(
    "a task starts with its queue's resources, its job's over them, a user's job's narrowed") {
  Config config = Caps(3, {});
  config.queues["q"].resources.nice = 5;
  config.queues["q"].resources.memory_max = 1000;
  DispatchFixture f(config);
  for (const std::string name : {"nightly", "alice/mine"}) {
    JobDef& def = f.jobs[name];
    def.name = name;
    def.resources.nice = -5;  // asks for more CPU than the queue gives
    def.resources.memory_max = 500;
  }
  f.jobs["nightly"].cwd = "/srv";
  TaskSpec spec;
  spec.queue = "q";
  f.Submit(spec);
  CHECK(f.runner->launches.back().resources.nice == 5);
  CHECK(f.runner->launches.back().cwd_fallback.empty());  // no job: no fallback to /
  spec.job = "nightly";
  f.Submit(spec);
  CHECK(f.runner->launches.back().resources.nice == -5);
  CHECK(f.runner->launches.back().resources.memory_max == 500);
  CHECK(f.runner->launches.back().cwd_fallback.empty());  // its own cwd
  spec.job = "alice/mine";
  f.Submit(spec);
  CHECK(f.runner->launches.back().resources.nice == 5);
  CHECK(f.runner->launches.back().resources.memory_max == 500);
  CHECK(f.runner->launches.back().cwd_fallback == "/");  // its home, else /
}

TEST_CASE("a turn stores the ends since the last one and the starts it makes in one commit") {
  DispatchFixture f(Caps(2, {}));
  const TaskId a = f.Submit({}), b = f.Submit({});
  const TaskId c = f.Submit({}), d = f.Submit({});
  REQUIRE(f.runner->Running() == std::vector<TaskId>{a, b});
  int commits = 0;
  f.store->ObserveCommits([&](double) { ++commits; });
  f.runner->Exit(a, 0);
  f.runner->Exit(b, 1);
  f.loop.RunReady();
  CHECK(commits == 1);
  CHECK(f.ended == std::vector<TaskId>{a, b});
  CHECK(f.Get(a).state == TaskState::kSucceeded);
  CHECK(f.Get(b).state == TaskState::kFailed);
  CHECK(f.runner->Running() == std::vector<TaskId>{c, d});
  CHECK(f.Get(c).state == TaskState::kRunning);
}

TEST_CASE(
    "a turn that stored ends or joined submits tells the other hosts, one that only starts not") {
  DispatchFixture f(Caps(1, {}));
  const TaskId a = f.Submit({});
  TaskSpec later;
  later.not_before = f.clock.WallNow() + 1000;
  const TaskId b = f.Submit(later);
  CHECK(f.shared == 0);  // starts and promotions are this host's own business
  f.clock.Advance(1000);
  f.dispatch->Schedule();
  f.loop.RunReady();
  CHECK(f.shared == 0);
  f.Exit(a, 0);
  CHECK(f.shared == 1);
  CHECK(f.runner->Running() == std::vector<TaskId>{b});
  bool joined = false;
  f.dispatch->JoinNextTurn([&] { joined = true; }, [](const Status&) {});
  f.loop.RunReady();
  CHECK(joined);
  CHECK(f.shared == 2);
}

TEST_CASE("each stage is an attempt the chooser picks: a task with higher priority runs between") {
  Config config = Caps(1, {});
  config.high_share = 1.0;
  DispatchFixture f(config);
  TaskSpec staged;
  staged.timeout_ms = 9000;
  staged.stages = {{"a", {"step-a"}, std::nullopt, 500, {}}, {"b", {}, "step b", std::nullopt, {}}};
  const TaskId s = f.Submit(staged);
  REQUIRE(f.runner->Running() == std::vector<TaskId>{s});
  TaskSpec urgent;
  urgent.priority = 1;
  const TaskId u = f.Submit(urgent);
  f.Exit(s, 0);  // stage a is done: the task waits at b, and the urgent task goes first
  CHECK(f.Get(s).state == TaskState::kPending);
  CHECK(f.Get(s).stage == 1);
  CHECK(f.advanced == std::vector<TaskId>{s});
  CHECK(f.runner->Running() == std::vector<TaskId>{u});
  f.Exit(u, 0);
  CHECK(f.runner->Running() == std::vector<TaskId>{s});
  f.Exit(s, 0);
  CHECK(f.Get(s).state == TaskState::kSucceeded);
  REQUIRE(f.runner->launches.size() == 3);
  const Launch& a = f.runner->launches[0];
  const Launch& b = f.runner->launches[2];
  CHECK(a.argv == std::vector<std::string>{"step-a"});
  CHECK(a.timeout_ms == 500);
  CHECK(b.argv == std::vector<std::string>{"/bin/sh", "-c", "step b"});
  CHECK(b.timeout_ms == 9000);
  const auto has = [](const Launch& l, const std::string& entry) {
    return std::find(l.env.begin(), l.env.end(), entry) != l.env.end();
  };
  CHECK(has(a, "TQ_STAGE=a"));
  CHECK(has(a, "TQ_STAGE_INDEX=0"));
  CHECK(has(b, "TQ_STAGE=b"));
  CHECK(has(b, "TQ_STAGE_INDEX=1"));
  CHECK(has(b, "TQ_CONTEXT=" + ContextDirPath(f.files.ContextRoot(), s, geteuid())));
}

TEST_CASE("a stage's failure spends its own retries, then fails the task at that stage") {
  DispatchFixture f;
  TaskSpec staged;
  staged.retry.retries = 0;
  staged.stages = {{"a", {"a"}, std::nullopt, std::nullopt, {}},
                   {"b", {"b"}, std::nullopt, std::nullopt, {}}};
  staged.stages[1].retry.retries = 1;
  staged.stages[1].retry.base_ms = 0;
  staged.stages[1].retry.jitter = false;
  const TaskId s = f.Submit(staged);
  f.Exit(s, 0);
  f.Exit(s, 7);  // b's first failure: its own retry
  CHECK(f.retrying == std::vector<TaskId>{s});
  CHECK(f.Get(s).stage == 1);
  f.Exit(s, 7);
  const Task t = f.Get(s);
  CHECK(t.state == TaskState::kFailed);
  CHECK(t.stage == 1);
  CHECK(t.exit_code == 7);
  CHECK(f.ended == std::vector<TaskId>{s});
}

// What a failed commit leaves (SPEC 6): nothing told, nothing started, nothing signalled; the
// turn after the store's pause does it all, once.
TEST_CASE("a turn whose commit fails starts and tells nothing, and the next one does it once") {
  DispatchFixture f;
  RefusedCommits refused(*f.store);
  refused.refusing = false;
  const TaskId first = f.SubmitTo("default");
  TaskSpec spec;
  spec.argv = {"true"};
  const TaskId next = *f.store->Insert(f.owner, spec, f.clock.WallNow());  // no turn yet
  refused.refusing = true;
  f.Exit(first, 0);  // its end and the claim of `next` in one turn, which fails
  CHECK(refused.refused >= 1);
  CHECK(f.ended.empty());
  CHECK(f.started == std::vector<TaskId>{first});
  CHECK(f.runner->launches.size() == 1);
  CHECK(f.counters.picks[kDefaultPriority] == 1);
  CHECK(f.Get(first).state == TaskState::kRunning);  // its end is kept, not lost
  CHECK(f.Get(next).state == TaskState::kPending);

  refused.refusing = false;
  f.clock.Advance(StoreFaults::kMaxPauseMs);
  f.loop.RunReady();
  CHECK(f.ended == std::vector<TaskId>{first});
  CHECK(f.Get(first).state == TaskState::kSucceeded);
  CHECK(f.started == std::vector<TaskId>{first, next});
  CHECK(f.runner->Running() == std::vector<TaskId>{next});
  CHECK(f.counters.picks[kDefaultPriority] == 2);
}

// Issue 49: a claim whose COMMIT the server kept though its answer never came stayed "running"
// with no process, counted against max_running, and `tq wait` never returned.
TEST_CASE("a running attempt of this host that it neither runs nor has an end of starts again") {
  DispatchFixture f;
  RefusedCommits refused(*f.store);
  refused.refusing = false;
  const TaskId ended = f.SubmitTo("default");  // its end is kept while the store refuses it
  refused.refusing = true;
  f.Exit(ended, 0);
  refused.refusing = false;
  TaskSpec spec;
  spec.argv = {"true"};
  const TaskId lost = *f.store->Insert(f.owner, spec, f.clock.WallNow());  // claimed, not started
  REQUIRE(f.store->StartAttempt(lost, f.clock.WallNow(), {}).ok());
  REQUIRE(f.Get(lost).state == TaskState::kRunning);

  f.dispatch->CheckRunning();
  CHECK(f.unstarted == std::vector<TaskId>{lost});
  CHECK(f.Get(lost).state == TaskState::kPending);
  CHECK(f.Get(lost).attempts.empty());               // no attempt, no retry used
  CHECK(f.Get(ended).state == TaskState::kRunning);  // its end is still to be stored

  f.clock.Advance(StoreFaults::kMaxPauseMs);
  f.loop.RunReady();
  CHECK(f.Get(ended).state == TaskState::kSucceeded);
  CHECK(f.runner->Running() == std::vector<TaskId>{lost});  // started for real now
  f.dispatch->CheckRunning();                               // it runs: nothing changes
  CHECK(f.unstarted == std::vector<TaskId>{lost});
  f.Exit(lost, 0);
  CHECK(f.Get(lost).state == TaskState::kSucceeded);
}

TEST_CASE("an attempt taken from a fenced host is left to its rescue, not started again here") {
  DispatchFixture f;
  TaskSpec spec;
  spec.argv = {"true"};
  const TaskId taken = *f.store->Insert(f.owner, spec, f.clock.WallNow());
  REQUIRE(f.store->StartAttempt(taken, f.clock.WallNow(), {}).ok());
  // As a fencing leaves it: held here, started by host c (whose shim this host never ran). The
  // rescue that ends it lost is told to the loop a little after the store holds it.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((f.dir.path / "tq.db").c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "UPDATE attempts SET host = 'c'", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(db);

  f.dispatch->CheckRunning();
  CHECK(f.unstarted.empty());
  const Task task = f.Get(taken);
  CHECK(task.state == TaskState::kRunning);
  REQUIRE(task.attempts.size() == 1);  // not dropped: its end as lost spends a retry
  CHECK(task.attempts[0].host == "c");
}

TEST_CASE("a submit joined to a turn whose commit fails is told so, and nothing of it runs") {
  DispatchFixture f;
  RefusedCommits refused(*f.store);
  TaskId id = 0;
  std::optional<Status> told;
  f.dispatch->JoinNextTurn(
      [&] {
        TaskSpec spec;
        spec.argv = {"true"};
        id = *f.store->Insert(f.owner, spec, f.clock.WallNow());
      },
      [&](const Status& committed) { told = committed; });
  f.loop.RunReady();
  REQUIRE(told.has_value());
  CHECK_FALSE(told->ok());
  CHECK(f.started.empty());
  CHECK(f.runner->launches.empty());
  CHECK(f.store->Get(id).status().code() == ErrorCode::kNotFound);
}

TEST_CASE("ending pending tasks or stopping one inside a transaction that fails does nothing") {
  DispatchFixture f(Caps(1, {}));
  const TaskId running = f.Submit({});
  const TaskId waiting = f.Submit({});
  RefusedCommits refused(*f.store);
  const Status st = f.store->WriteTogether([&] {
    CHECK(f.dispatch->EndPending({waiting}, TaskState::kCancelled, TaskReason::kSuperseded));
    f.dispatch->StopRunning(running, TaskReason::kSuperseded);
    return Status::Ok();
  });
  CHECK_FALSE(st.ok());
  CHECK(f.ended.empty());
  CHECK_FALSE(f.runner->StopOf(running).has_value());
  CHECK(f.Get(waiting).state == TaskState::kPending);

  refused.refusing = false;  // the same, committed: told and signalled after the commit
  bool inside = true;
  REQUIRE(f.store
              ->WriteTogether([&] {
                f.dispatch->EndPending({waiting}, TaskState::kCancelled, TaskReason::kSuperseded);
                f.dispatch->StopRunning(running, TaskReason::kSuperseded);
                CHECK(f.ended.empty());
                CHECK_FALSE(f.runner->StopOf(running).has_value());
                inside = false;
                return Status::Ok();
              })
              .ok());
  CHECK_FALSE(inside);
  CHECK(f.ended == std::vector<TaskId>{waiting});
  CHECK(f.runner->StopOf(running).has_value());
}

// Issue 49: a turn reads the running counts, the ready owners of each queue and each owner's
// first ready task once, and after a claim only what the claim changed. Before, it read them
// all again for every claim: slots x queues x owners statements a turn.
TEST_CASE("a turn that fills 200 slots from 200 users costs the store a few statements a claim") {
  Config config = Caps(200, {});
  config.high_share = 1.0;  // every draw by priority: fair across users, one each
  DispatchFixture f(config);
  constexpr int kUsers = 200;
  for (int user = 0; user < kUsers; ++user)
    for (const char* queue : {"a", "b", "c"}) {
      TaskSpec spec;
      spec.argv = {"true"};
      spec.queue = queue;
      const Owner owner{static_cast<uint32_t>(2000 + user), 2000, "u" + std::to_string(user)};
      REQUIRE(f.store->Insert(owner, spec, f.clock.WallNow()).ok());
    }
  const uint64_t before = sql::statements_run.load();
  f.dispatch->Schedule();
  f.loop.RunReady();
  const uint64_t statements = sql::statements_run.load() - before;
  CHECK(f.runner->Running().size() == 200);
  std::set<uint32_t> owners;
  for (const Launch& launch : f.runner->launches) owners.insert(f.Get(launch.id).owner.uid);
  CHECK(owners.size() == kUsers);  // fair: one each
  MESSAGE(statements, " statements for 200 claims");
  CHECK(statements < 200 * 20);
}

}  // namespace
}  // namespace tq
