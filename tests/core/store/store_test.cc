// The store's contract, for every backend: requests round-trip, the ready set, attempts,
// dependencies, List, EndPending and the running attempts.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("a task spec round-trips byte for byte") {
  auto store = OpenStore();
  TaskId dep = MustInsert(*store, kAlice, Spec({"true"}));
  TaskId later_dep = MustInsert(*store, kAlice, Spec({"true"}));

  TaskSpec full;
  full.argv = {"printf", "\xff\xfe", "", "two\nlines", "tab\there", " "};
  full.queue = "batch";
  full.priority = 1;
  full.stdin_data = std::string("payload\n\xff\x01 with a NUL \0 inside", 30);
  full.cwd = "/home/alice/caf\xe9";
  full.env = {"A=1", "EMPTY=", "LATIN1=\xe9\xff", "MULTI=a\nb"};
  full.clean_env = true;
  full.not_before = 5000;
  full.after = {later_dep, dep};  // the order given, not the ids'
  // Labels read back in one column with the task (as LENGTH:LABEL): ones that look like that too.
  full.labels = {"job:nightly", "", "x y", "10:x", ":", "3:", "caf\xc3\xa9:1", "\n"};
  full.timeout_ms = 60000;
  full.key = "nightly-\xff";
  full.version = -7;
  full.retry.retries = 4;
  full.retry.backoff = BackoffKind::kProgressive;
  full.retry.base_ms = 1500;
  full.retry.max_ms = 90000;
  full.retry.jitter = false;
  full.retry.retry_on_exit = {75, 0, -1};
  full.retry.no_retry_on_exit = {2};
  full.pending_ttl_ms = 30000;

  TaskSpec shell;
  shell.shell = "echo \"$HOME\" | tr a-z A-Z";
  shell.stdin_data = "";  // present but empty: not the same as absent
  shell.cwd = "/";

  shell.key = "";  // an empty key is still a key
  shell.retry.backoff = BackoffKind::kFixed;

  TaskSpec lone_empty_arg;
  lone_empty_arg.argv = {""};
  lone_empty_arg.shell = "";

  const struct {
    const char* name;
    TaskSpec spec;
  } kCases[] = {{"full", full}, {"shell", shell}, {"one empty arg", lone_empty_arg}};
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    TaskId id = MustInsert(*store, kAlice, c.spec, 1234);
    Task task = MustGet(*store, id);
    CHECK(task.id == id);
    CHECK(task.owner.uid == kAlice.uid);
    CHECK(task.owner.gid == kAlice.gid);
    CHECK(task.owner.name == kAlice.name);
    CheckSpecEq(task.spec, c.spec);
    CHECK(task.state == TaskState::kPending);
    CHECK(task.reason == TaskReason::kNone);
    CHECK(task.created == 1234);
    CHECK(task.finished == 0);
    CHECK(task.attempt_count == 0);
    CHECK(task.exit_code == -1);
    CHECK(task.attempts.empty());
    // List carries the same request, but for the environment and stdin.
    ListFilter newest;
    newest.limit = 1;
    Result<std::vector<Task>> listed = store->List(newest);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    TaskSpec light = (*listed)[0].spec;
    CHECK(light.env.empty());
    CHECK_FALSE(light.stdin_data.has_value());
    light.env = c.spec.env;
    light.stdin_data = c.spec.stdin_data;
    CheckSpecEq(light, c.spec);
  }
}

STORE_TEST_CASE("Insert refuses a NUL inside an argv element or an env entry") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"echo", std::string("a\0b", 3)});
  Result<TaskId> id = store->Insert(kAlice, spec, 1000);
  REQUIRE_FALSE(id.ok());
  CHECK(id.status().code() == ErrorCode::kInvalid);
  CHECK(id.status().field() == "argv");

  spec = Spec({"echo"});
  spec.env.push_back(std::string("SECRET=hun\0ter2", 15));
  id = store->Insert(kAlice, spec, 1000);
  REQUIRE_FALSE(id.ok());
  CHECK(id.status().field() == "env");
  CHECK(id.status().message().find("hun") == std::string::npos);
}

STORE_TEST_CASE("ids increase") {
  auto store = OpenStore();
  TaskId last = 0;
  for (int i = 0; i < 20; ++i) {
    TaskId id = MustInsert(*store, i % 2 ? kAlice : kBob, Spec({"true"}));
    CHECK(id > last);
    last = id;
  }
}

STORE_TEST_CASE("FirstReady picks by priority or by age, per queue") {
  auto store = OpenStore();
  // index -> (queue, priority)
  const struct {
    const char* queue;
    int priority;
  } kTasks[] = {{"a", 3}, {"a", 1}, {"b", 1}, {"a", 1}, {"a", 5}, {"b", 4}, {"b", 2}};
  std::vector<TaskId> ids;
  for (const auto& t : kTasks)
    ids.push_back(MustInsert(*store, kAlice, Spec({"x"}, t.queue, t.priority)));

  const struct {
    const char* queue;
    ReadyOrder order;
    int want;  // index into kTasks, -1: none
  } kCases[] = {
      {"a", ReadyOrder::kHighestPriority, 1},  {"a", ReadyOrder::kOldest, 0},
      {"b", ReadyOrder::kHighestPriority, 2},  {"b", ReadyOrder::kOldest, 2},
      {"c", ReadyOrder::kHighestPriority, -1}, {"c", ReadyOrder::kOldest, -1},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.queue);
    CAPTURE(static_cast<int>(c.order));
    std::optional<TaskId> got = Ready(*store, c.queue, c.order);
    if (c.want < 0) {
      CHECK_FALSE(got.has_value());
    } else {
      CHECK(got == ids[c.want]);
    }
  }
  Result<std::optional<Candidate>> c = store->FirstReady("b", ReadyOrder::kHighestPriority);
  REQUIRE(c.ok());
  CHECK((*c)->priority == 1);

  // Once the front runs, the next in line takes its place.
  REQUIRE(store->StartAttempt(ids[1], 2000, {})->has_value());
  REQUIRE(store->StartAttempt(ids[0], 2000, {})->has_value());
  CHECK(Ready(*store, "a", ReadyOrder::kHighestPriority) == ids[3]);
  CHECK(Ready(*store, "a", ReadyOrder::kOldest) == ids[3]);
  REQUIRE(store->StartAttempt(ids[2], 2000, {})->has_value());
  CHECK(Ready(*store, "b", ReadyOrder::kHighestPriority) == ids[6]);
  CHECK(Ready(*store, "b", ReadyOrder::kOldest) == ids[5]);
}

STORE_TEST_CASE("delayed tasks wait for PromoteDue, NextDue names the earliest") {
  auto store = OpenStore();
  Result<std::optional<WallMs>> due = store->NextDue();
  REQUIRE(due.ok());
  CHECK_FALSE(due->has_value());

  TaskSpec later = Spec({"later"});
  later.not_before = 5000;
  TaskSpec sooner = Spec({"sooner"});
  sooner.not_before = 3000;
  TaskSpec now = Spec({"now"});
  now.not_before = 1000;  // == now: ready at once
  TaskId later_id = MustInsert(*store, kAlice, later, 1000);
  TaskId sooner_id = MustInsert(*store, kAlice, sooner, 1000);
  TaskId now_id = MustInsert(*store, kAlice, now, 1000);

  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == now_id);
  REQUIRE(store->StartAttempt(now_id, 1000, {})->has_value());
  CHECK_FALSE(Ready(*store, "default", ReadyOrder::kOldest).has_value());
  CHECK_FALSE(store->StartAttempt(sooner_id, 1000, {})->has_value());  // not ready yet
  CHECK(*store->NextDue() == std::optional<WallMs>(3000));

  CHECK(*store->PromoteDue(2999, 1000) == 0);
  CHECK(*store->PromoteDue(3000, 1000) == 1);
  CHECK(Ready(*store, "default", ReadyOrder::kHighestPriority) == sooner_id);
  CHECK(*store->NextDue() == std::optional<WallMs>(5000));
  CHECK(*store->PromoteDue(3000, 1000) == 0);  // already ready: not counted twice
  CHECK(*store->PromoteDue(99999, 1000) == 1);
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == later_id);
  CHECK_FALSE(store->NextDue()->has_value());
}

STORE_TEST_CASE("PromoteDue tells the next due time after now, as NextDue would after it") {
  auto store = OpenStore();
  for (const WallMs at : {5000, 5500, 7000}) {
    TaskSpec spec = Spec({"x"});
    spec.not_before = at;
    MustInsert(*store, kAlice, spec, 1000);
  }
  std::optional<WallMs> next = 1;
  CHECK(*store->PromoteDue(4000, 10, &next) == 0);
  CHECK(next == std::optional<WallMs>(5000));
  // The limit leaves 5500 to the next call (the count says there may be more).
  CHECK(*store->PromoteDue(6000, 1, &next) == 1);
  CHECK(next == std::optional<WallMs>(7000));
  CHECK(*store->PromoteDue(6000, 10, &next) == 1);
  CHECK(next == std::optional<WallMs>(7000));
  CHECK(next == *store->NextDue());
  CHECK(*store->PromoteDue(8000, 10, &next) == 1);
  CHECK_FALSE(next.has_value());
}

STORE_TEST_CASE("StartAttempt is a conditional move that never starts a task twice") {
  auto store = OpenStore();
  TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  Result<std::optional<int>> first = store->StartAttempt(id, 2000, {});
  REQUIRE(first.ok());
  CHECK(*first == std::optional<int>(1));
  Result<std::optional<int>> second = store->StartAttempt(id, 2001, {});
  REQUIRE(second.ok());
  CHECK_FALSE(second->has_value());
  CHECK_FALSE(store->StartAttempt(987654, 2001, {})->has_value());  // unknown id: nothing to start

  Task task = MustGet(*store, id);
  CHECK(task.state == TaskState::kRunning);
  CHECK(task.attempt_count == 1);
  REQUIRE(task.attempts.size() == 1);
  CHECK(task.attempts[0].number == 1);
  CHECK(task.attempts[0].started == 2000);
  CHECK(task.attempts[0].ended == 0);
  CHECK(task.attempts[0].reason == AttemptReason::kNone);
}

STORE_TEST_CASE("FinishAttempt stores the outcome and releases dependents") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  TaskId other = MustInsert(*store, kAlice, Spec({"other"}));
  TaskSpec b = Spec({"b"});
  b.after = {a};
  TaskSpec c = Spec({"c"});
  c.after = {a, a};  // stored once
  c.not_before = 50000;
  TaskSpec d = Spec({"d"});
  d.after = {a, other};
  TaskId b_id = MustInsert(*store, kAlice, b);
  TaskId c_id = MustInsert(*store, kAlice, c);
  TaskId d_id = MustInsert(*store, kAlice, d);
  CHECK(MustGet(*store, c_id).spec.after == std::vector<TaskId>{a});
  // Only a and other are ready; nothing waits only for time.
  REQUIRE(store->StartAttempt(other, 1500, {})->has_value());
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == a);
  CHECK_FALSE(store->NextDue()->has_value());

  REQUIRE(*store->StartAttempt(a, 2000, {}) == std::optional<int>(1));

  AttemptOutcome out;
  out.ended = 3000;
  out.exit_code = 0;
  out.pid = 4242;
  out.shim_pid = 4241;
  out.reason = AttemptReason::kExit;
  out.user_cpu_us = 1250000;
  out.system_cpu_us = 30000;
  out.max_rss_kb = 20480;
  // Wrong attempt number, or a task that is not running: refused, nothing changes.
  CHECK(store->FinishAttempt(a, 2, out, TaskState::kSucceeded, TaskReason::kExit).status().code() ==
        ErrorCode::kInvalid);
  CHECK(store->FinishAttempt(b_id, 1, out, TaskState::kSucceeded, TaskReason::kExit)
            .status()
            .code() == ErrorCode::kInvalid);
  CHECK(store->FinishAttempt(a, 1, out, TaskState::kPending, TaskReason::kNone).status().code() ==
        ErrorCode::kInvalid);
  REQUIRE(store->FinishAttempt(a, 1, out, TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(store->FinishAttempt(a, 1, out, TaskState::kSucceeded, TaskReason::kExit).status().code() ==
        ErrorCode::kInvalid);

  Task task = MustGet(*store, a);
  CHECK(task.state == TaskState::kSucceeded);
  CHECK(task.reason == TaskReason::kExit);
  CHECK(task.exit_code == 0);
  CHECK(task.finished == 3000);
  REQUIRE(task.attempts.size() == 1);
  const Attempt& at = task.attempts[0];
  CHECK(at.started == 2000);
  CHECK(at.ended == 3000);
  CHECK(at.pid == 4242);
  CHECK(at.shim_pid == 4241);
  CHECK(at.exit_code == 0);
  CHECK(at.signal == 0);
  CHECK(at.reason == AttemptReason::kExit);
  CHECK(at.user_cpu_us == 1250000);
  CHECK(at.system_cpu_us == 30000);
  CHECK(at.max_rss_kb == 20480);

  // b: ready now. c: its dependency is done but its time has not come. d: still waits for other.
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == b_id);
  CHECK(*store->NextDue() == std::optional<WallMs>(50000));
  REQUIRE(store->StartAttempt(b_id, 3000, {})->has_value());
  CHECK_FALSE(Ready(*store, "default", ReadyOrder::kOldest).has_value());
  CHECK(*store->PromoteDue(50000, 1000) == 1);
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == c_id);

  // A failed dependency fails its pending dependents at once, and says so.
  out.exit_code = 1;
  Result<std::vector<TaskId>> ended =
      store->FinishAttempt(other, 1, out, TaskState::kFailed, TaskReason::kExit);
  REQUIRE(ended.ok());
  CHECK(*ended == std::vector<TaskId>{d_id});
  Task d_task = MustGet(*store, d_id);
  CHECK(d_task.state == TaskState::kFailed);
  CHECK(d_task.reason == TaskReason::kDependencyFailed);
  CHECK(d_task.finished == 3000);
  CHECK(*store->PromoteDue(1000000, 1000) == 0);
  REQUIRE(store->StartAttempt(c_id, 60000, {})->has_value());
  CHECK_FALSE(Ready(*store, "default", ReadyOrder::kOldest).has_value());
}

STORE_TEST_CASE("a dependency that already succeeded does not hold a new task") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  StartAndFinish(*store, a, TaskState::kSucceeded, 2000);
  TaskSpec b = Spec({"b"});
  b.after = {a};
  TaskId b_id = MustInsert(*store, kAlice, b, 3000);
  CHECK(Ready(*store, "default", ReadyOrder::kOldest) == b_id);
}

STORE_TEST_CASE("Insert refuses a dependency that is unknown or someone else's") {
  auto store = OpenStore();
  TaskId bobs = MustInsert(*store, kBob, Spec({"bob"}));
  const struct {
    const char* name;
    TaskId dep;
  } kCases[] = {{"unknown", 987654}, {"another owner's", bobs}};
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    TaskSpec spec = Spec({"x"}, "fresh-queue");
    spec.after = {c.dep};
    Result<TaskId> id = store->Insert(kAlice, spec, 1000);
    REQUIRE_FALSE(id.ok());
    CHECK(id.status().code() == ErrorCode::kNotFound);
    CHECK(id.status().field() == "after");
    CHECK(id.status().message() == "task " + std::to_string(c.dep) + " not found");
  }
  // Nothing of the refused inserts remains.
  CHECK(QueueNames(*store) == std::vector<std::string>{"default"});
  CHECK(store->List(ListFilter{})->size() == 1);
}

STORE_TEST_CASE("Get of an unknown id is not-found") {
  auto store = OpenStore();
  Result<Task> task = store->Get(42);
  REQUIRE_FALSE(task.ok());
  CHECK(task.status().code() == ErrorCode::kNotFound);
  CHECK(task.status().message() == "task 42 not found");
}

STORE_TEST_CASE("List applies its filters, newest first") {
  auto store = OpenStore();
  auto spec = [](const char* queue, std::vector<std::string> labels) {
    TaskSpec s = Spec({"x"}, queue);
    s.labels = std::move(labels);
    return s;
  };
  TaskId t1 = MustInsert(*store, kAlice, spec("default", {"job:a"}));
  TaskId t2 = MustInsert(*store, kBob, spec("batch", {"job:a", "big"}));
  TaskId t3 = MustInsert(*store, kAlice, spec("batch", {"big"}));
  TaskId t4 = MustInsert(*store, kAlice, spec("default", {}));
  StartAndFinish(*store, t1, TaskState::kSucceeded, 2000);
  REQUIRE(store->StartAttempt(t3, 2000, {})->has_value());

  auto filter = [](auto&& set) {
    ListFilter f;
    set(f);
    return f;
  };
  const struct {
    const char* name;
    ListFilter filter;
    std::vector<TaskId> want;
  } kCases[] = {
      {"all", ListFilter{}, {t4, t3, t2, t1}},
      {"owner", filter([](ListFilter& f) { f.owner_uid = kAlice.uid; }), {t4, t3, t1}},
      {"state", filter([](ListFilter& f) { f.states = {TaskState::kPending}; }), {t4, t2}},
      {"queue", filter([](ListFilter& f) { f.queue = "batch"; }), {t3, t2}},
      {"label", filter([](ListFilter& f) { f.label = "job:a"; }), {t2, t1}},
      {"label and owner",
       filter([](ListFilter& f) {
         f.label = "big";
         f.owner_uid = kAlice.uid;
       }),
       {t3}},
      {"everything",
       filter([](ListFilter& f) {
         f.owner_uid = kBob.uid;
         f.states = {TaskState::kPending};
         f.queue = "batch";
         f.label = "big";
       }),
       {t2}},
      {"no match", filter([](ListFilter& f) { f.label = "nope"; }), {}},
      {"limit", filter([](ListFilter& f) { f.limit = 2; }), {t4, t3}},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    Result<std::vector<Task>> tasks = store->List(c.filter);
    REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
    std::vector<TaskId> got;
    for (const Task& t : *tasks) got.push_back(t.id);
    CHECK(got == c.want);
  }
  // Labels and the last attempt come along; env and stdin do not.
  Result<std::vector<Task>> one = store->List(filter([](ListFilter& f) { f.queue = "default"; }));
  REQUIRE(one.ok());
  REQUIRE(one->size() == 2);
  const Task& listed = (*one)[1];
  CHECK(listed.id == t1);
  CHECK(listed.state == TaskState::kSucceeded);
  CHECK(listed.spec.labels == std::vector<std::string>{"job:a"});
  CHECK(listed.spec.argv == std::vector<std::string>{"x"});
  REQUIRE(listed.attempts.size() == 1);
  CHECK(listed.attempts[0].number == 1);
  CHECK((*one)[0].attempts.empty());  // t4 never ran
}

STORE_TEST_CASE("List reads only a task's last attempt, Get all of them") {
  auto store = OpenStore();
  TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  REQUIRE(MustStart(*store, id, 2000) == 1);
  REQUIRE(store->RetryLater(id, 1, Exited(2010, 1), 2020, 0).ok());
  REQUIRE(store->PromoteDue(2020, 10).ok());
  REQUIRE(MustStart(*store, id, 2030) == 2);
  Result<std::vector<Task>> listed = store->List(ListFilter{});
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  REQUIRE((*listed)[0].attempts.size() == 1);
  CHECK((*listed)[0].attempts[0].number == 2);
  CHECK((*listed)[0].attempts[0].started == 2030);
  CHECK((*listed)[0].attempts[0].ended == 0);
  Result<Task> whole = store->Get(id);
  REQUIRE(whole.ok());
  CHECK(whole->attempts.size() == 2);
}

STORE_TEST_CASE("EndedAmong names the ended tasks among the ids, in id order") {
  auto store = OpenStore();
  TaskId succeeded = MustInsert(*store, kAlice, Spec({"a"}));
  TaskId failed = MustInsert(*store, kAlice, Spec({"b"}));
  TaskId running = MustInsert(*store, kAlice, Spec({"c"}));
  TaskId pending = MustInsert(*store, kAlice, Spec({"d"}));
  TaskId cancelled = MustInsert(*store, kBob, Spec({"e"}));
  StartAndFinish(*store, succeeded, TaskState::kSucceeded, 2000);
  StartAndFinish(*store, failed, TaskState::kFailed, 2000);
  MustStart(*store, running, 2000);
  REQUIRE(store->EndPending(cancelled, TaskState::kCancelled, TaskReason::kCancelled, 2000).ok());
  const struct {
    const char* name;
    std::vector<TaskId> ids;
    std::vector<TaskId> want;
  } kCases[] = {
      {"none asked", {}, {}},
      {"every task",
       {cancelled, pending, running, failed, succeeded},
       {succeeded, failed, cancelled}},
      {"none ended", {running, pending}, {}},
      {"unknown ids are left out", {999, succeeded, 1000}, {succeeded}},
      {"an id twice", {failed, failed}, {failed}},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    Result<std::vector<TaskId>> ended = store->EndedAmong(c.ids);
    REQUIRE_MESSAGE(ended.ok(), ended.status().message());
    CHECK(*ended == c.want);
  }
}

STORE_TEST_CASE("EndPending ends only pending tasks") {
  auto store = OpenStore();
  TaskId pending = MustInsert(*store, kAlice, Spec({"p"}));
  TaskId running = MustInsert(*store, kAlice, Spec({"r"}));
  REQUIRE(store->StartAttempt(running, 2000, {})->has_value());

  Result<std::vector<TaskId>> ended =
      store->EndPending(pending, TaskState::kCancelled, TaskReason::kCancelled, 3000);
  REQUIRE(ended.ok());
  CHECK(*ended == std::vector<TaskId>{pending});
  Task task = MustGet(*store, pending);
  CHECK(task.state == TaskState::kCancelled);
  CHECK(task.reason == TaskReason::kCancelled);
  CHECK(task.finished == 3000);
  CHECK_FALSE(Ready(*store, "default", ReadyOrder::kOldest).has_value());

  CHECK(store->EndPending(pending, TaskState::kCancelled, TaskReason::kCancelled, 3001)->empty());
  CHECK(store->EndPending(running, TaskState::kFailed, TaskReason::kExpiredPending, 3001)->empty());
  CHECK(store->EndPending(5555, TaskState::kCancelled, TaskReason::kCancelled, 3001)
            .status()
            .code() == ErrorCode::kNotFound);
  CHECK(
      store->EndPending(running, TaskState::kSucceeded, TaskReason::kExit, 3001).status().code() ==
      ErrorCode::kInvalid);
}

STORE_TEST_CASE("RunningAttempts, RunningCounts and QueueStates") {
  auto store = OpenStore();
  CHECK(QueueNames(*store).empty());
  TaskId a = MustInsert(*store, kAlice, Spec({"a"}, "q1"));
  TaskId b = MustInsert(*store, kAlice, Spec({"b"}, "q2"));
  TaskId c = MustInsert(*store, kAlice, Spec({"c"}, "q2"));
  MustInsert(*store, kAlice, Spec({"d"}, "q1"));
  REQUIRE(store->StartAttempt(a, 2000, {})->has_value());
  REQUIRE(store->StartAttempt(b, 2000, {})->has_value());
  REQUIRE(store->StartAttempt(c, 2000, {})->has_value());
  StartAndFinish(*store, MustInsert(*store, kAlice, Spec({"e"}, "q3")), TaskState::kFailed, 2000);

  Result<std::vector<RunningAttempt>> running = store->RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 3);
  CHECK((*running)[0].task_id == a);
  CHECK((*running)[1].task_id == b);
  CHECK((*running)[1].number == 1);

  CHECK(QueueNames(*store) == std::vector<std::string>{"q1", "q2", "q3"});

  // The counts the caps are checked against: running attempts only, per queue.
  using Counts = std::map<std::string, int>;
  CHECK(*store->RunningCounts() == Counts{{"q1", 1}, {"q2", 2}});
  REQUIRE(store->RetryLater(b, 1, Exited(3000, 1), 9000, 3).ok());
  CHECK(*store->RunningCounts() == Counts{{"q1", 1}, {"q2", 1}});
  REQUIRE(
      store->FinishAttempt(a, 1, Exited(3000, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  REQUIRE(store->FinishAttempt(c, 1, Exited(3000, 1), TaskState::kFailed, TaskReason::kExit).ok());
  CHECK(store->RunningCounts()->empty());
}

STORE_TEST_CASE("a refused request is not a store fault, so nobody tries it again") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  TaskSpec unknown_dep = Spec({"y"});
  unknown_dep.after = {id + 100};
  TaskSpec keyed = Keyed("k", 1);
  const Status refusals[] = {
      store->Get(id + 100).status(),
      store->Insert(kAlice, Spec({std::string("a\0b", 3)}), 1000).status(),
      store->Insert(kAlice, unknown_dep, 1000).status(),
      store->SubmitBatch(kAlice, {keyed}, 1000).status(),
      store->FinishAttempt(id, 1, Exited(2000, 0), TaskState::kSucceeded, TaskReason::kExit)
          .status(),
      store->RetryLater(id, 1, Exited(2000, 1), 3000, 3),
      store->UnstartAttempt(id, 1),
      store->EndPending(id, TaskState::kSucceeded, TaskReason::kExit, 2000).status(),
      store->SetQueueConcurrency("default", -1),
      store->DeleteQueue("never-seen"),
      store->DeleteQueue("default"),
  };
  for (const Status& s : refusals) {
    CAPTURE(s.message());
    CHECK_FALSE(s.ok());
    CHECK(s.code() != ErrorCode::kInternal);
    CHECK(s.fault() == StoreFault::kNone);
  }
}

}  // namespace
}  // namespace tq
