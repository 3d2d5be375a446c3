// Submitting to the store: keyed submits (SPEC 3) through a real transaction, replace,
// supersede, dependencies that already failed, and the all-or-nothing batch.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// Drives a fresh task of key "k" and `version` to `state`; returns its id.
TaskId HeldTask(Store& store, int64_t version, TaskState state) {
  SubmitOutcome out = MustSubmit(store, kAlice, Keyed("k", version, {"old"}), 1000);
  REQUIRE(out.inserted);
  const TaskId id = out.id;
  switch (state) {
    case TaskState::kPending:
      break;
    case TaskState::kRunning:
      MustStart(store, id, 1100);
      break;
    case TaskState::kSucceeded:
    case TaskState::kFailed:
    case TaskState::kCancelled:
      StartAndFinish(store, id, state, 1100);
      break;
    case TaskState::kExpired:
      StartAndFinish(store, id, TaskState::kSucceeded, 1100);
      REQUIRE(*store.ExpireSucceeded(1110, 10) == std::vector<TaskId>{id});
      break;
  }
  REQUIRE(StateOf(store, id) == state);
  return id;
}

size_t CountAll(Store& store) {
  ListFilter all;
  all.limit = 0;
  return store.List(all)->size();
}

STORE_TEST_CASE("keyed submits through the store follow each row of SPEC 3") {
  enum Want { kInsert, kRefuse, kExisting, kReplace };
  const struct {
    const char* row;
    TaskState held_state;
    int64_t held_version;
    int64_t version;
    bool supersede_running;
    Want want;
    bool old_superseded;  // the held task ends cancelled, superseded
    bool old_to_terminate;
  } kCases[] = {
      {"a higher version", TaskState::kSucceeded, 3, 2, false, kRefuse, false, false},
      {"a higher version, pending", TaskState::kPending, 3, 2, false, kRefuse, false, false},
      {"same, running", TaskState::kRunning, 2, 2, false, kExisting, false, false},
      {"same, succeeded", TaskState::kSucceeded, 2, 2, false, kExisting, false, false},
      {"same, pending", TaskState::kPending, 2, 2, false, kReplace, false, false},
      {"same, failed", TaskState::kFailed, 2, 2, false, kReplace, false, false},
      {"same, cancelled", TaskState::kCancelled, 2, 2, false, kReplace, false, false},
      {"same, expired", TaskState::kExpired, 2, 2, false, kReplace, false, false},
      {"lower, pending", TaskState::kPending, 1, 2, false, kInsert, true, false},
      {"lower, running", TaskState::kRunning, 1, 2, false, kInsert, false, false},
      {"lower, running, superseded", TaskState::kRunning, 1, 2, true, kInsert, false, true},
      {"lower, failed", TaskState::kFailed, 1, 2, false, kInsert, false, false},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.row);
    auto store = OpenStore();
    const TaskId held = HeldTask(*store, c.held_version, c.held_state);
    const size_t before = CountAll(*store);

    SubmitOutcome out =
        MustSubmit(*store, kAlice, Keyed("k", c.version, {"new"}), 5000, c.supersede_running);
    CHECK(out.refused_newer == (c.want == kRefuse));
    CHECK(out.inserted == (c.want == kInsert || c.want == kReplace));
    CHECK(CountAll(*store) == before + (c.want == kInsert ? 1 : 0));
    if (c.want == kInsert) {
      CHECK(out.id > held);
      CHECK(MustGet(*store, out.id).spec.argv == std::vector<std::string>{"new"});
    } else {
      CHECK(out.id == held);
    }
    Task old = MustGet(*store, held);
    if (c.want == kReplace) {
      CHECK(old.state == TaskState::kPending);
      CHECK(old.spec.argv == std::vector<std::string>{"new"});
    } else if (c.old_superseded) {
      CHECK(old.state == TaskState::kCancelled);
      CHECK(old.reason == TaskReason::kSuperseded);
      CHECK(old.finished == 5000);
    } else {
      CHECK(old.state == c.held_state);  // refused, returned, or left to run
      CHECK(old.spec.argv == std::vector<std::string>{"old"});
    }
    CHECK(out.ended == (c.old_superseded ? std::vector<TaskId>{held} : std::vector<TaskId>{}));
    CHECK(out.to_terminate ==
          (c.old_to_terminate ? std::vector<TaskId>{held} : std::vector<TaskId>{}));
  }
}

STORE_TEST_CASE("a replace that would make a task wait for itself is refused") {
  auto store = OpenStore();
  const TaskId a = MustSubmit(*store, kAlice, Keyed("a", 1, {"a"})).id;
  TaskSpec b = Spec({"b"});
  b.after = {a};
  const TaskId b_id = MustInsert(*store, kAlice, b);
  TaskSpec c = Spec({"c"});
  c.after = {b_id};
  const TaskId c_id = MustInsert(*store, kAlice, c);
  const TaskId other = MustInsert(*store, kAlice, Spec({"other"}));

  const struct {
    const char* name;
    std::vector<TaskId> after;
    std::string message;
  } kCases[] = {
      {"itself", {a}, "task " + std::to_string(a) + " cannot run after itself"},
      {"a direct dependent",
       {other, b_id},
       "task " + std::to_string(b_id) + " already waits for task " + std::to_string(a) +
           ": a cycle"},
      {"a transitive dependent",
       {c_id},
       "task " + std::to_string(c_id) + " already waits for task " + std::to_string(a) +
           ": a cycle"},
  };
  for (const auto& k : kCases) {
    CAPTURE(k.name);
    TaskSpec again = Keyed("a", 1, {"a2"});
    again.after = k.after;
    Result<SubmitOutcome> out = store->Submit(kAlice, again, 3000, false);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == ErrorCode::kInvalid);
    CHECK(out.status().field() == "after");
    CHECK(out.status().message() == k.message);
    CHECK(MustGet(*store, a).spec.argv == std::vector<std::string>{"a"});
  }
  TaskSpec fine = Keyed("a", 1, {"a3"});
  fine.after = {other};
  CHECK(MustSubmit(*store, kAlice, fine, 3000).id == a);
}

STORE_TEST_CASE("superseded pending versions end cancelled, and their dependents fail") {
  auto store = OpenStore();
  // Insert stores keys without the decision: two older pending versions side by side.
  const TaskId v0 = MustInsert(*store, kAlice, Keyed("k", 0));
  const TaskId v1 = MustInsert(*store, kAlice, Keyed("k", 1));
  TaskSpec dependent = Spec({"after v1"});
  dependent.after = {v1};
  const TaskId d = MustInsert(*store, kAlice, dependent);

  SubmitOutcome out = MustSubmit(*store, kAlice, Keyed("k", 2), 4000);
  CHECK(out.inserted);
  CHECK(Sorted(out.ended) == std::vector<TaskId>{v0, v1, d});
  for (TaskId old : {v0, v1}) {
    Task t = MustGet(*store, old);
    CHECK(t.state == TaskState::kCancelled);
    CHECK(t.reason == TaskReason::kSuperseded);
  }
  CHECK(MustGet(*store, d).reason == TaskReason::kDependencyFailed);
  CHECK(Ready(*store, "default") == out.id);

  // A lower version now is refused, naming the newest.
  SubmitOutcome refused = MustSubmit(*store, kAlice, Keyed("k", 1), 5000);
  CHECK(refused.refused_newer);
  CHECK(refused.id == out.id);
  CHECK_FALSE(refused.inserted);
}

STORE_TEST_CASE("keys are scoped per owner, unkeyed submits always insert") {
  auto store = OpenStore();
  const TaskId alices = MustSubmit(*store, kAlice, Keyed("k", 5)).id;
  SubmitOutcome bobs = MustSubmit(*store, kBob, Keyed("k", 1));
  CHECK(bobs.inserted);
  CHECK_FALSE(bobs.refused_newer);
  CHECK(bobs.id != alices);
  CHECK(StateOf(*store, alices) == TaskState::kPending);
  CHECK(MustSubmit(*store, kBob, Keyed("k", 1)).id == bobs.id);  // replaced in place

  SubmitOutcome one = MustSubmit(*store, kAlice, Spec({"same"}));
  SubmitOutcome two = MustSubmit(*store, kAlice, Spec({"same"}));
  CHECK(one.inserted);
  CHECK(two.inserted);
  CHECK(two.id > one.id);
  CHECK_FALSE(MustGet(*store, one.id).spec.key.has_value());
}

STORE_TEST_CASE("a dependency that already failed or was cancelled fails the new task at once") {
  auto store = OpenStore();
  const TaskId failed = MustInsert(*store, kAlice, Spec({"f"}));
  StartAndFinish(*store, failed, TaskState::kFailed, 1000);
  const TaskId cancelled = MustInsert(*store, kAlice, Spec({"c"}));
  REQUIRE(store->EndPending(cancelled, TaskState::kCancelled, TaskReason::kCancelled, 1500).ok());
  const TaskId ok = MustInsert(*store, kAlice, Spec({"ok"}));
  StartAndFinish(*store, ok, TaskState::kSucceeded, 1600);

  for (TaskId dep : {failed, cancelled}) {
    CAPTURE(dep);
    TaskSpec spec = Spec({"late"});
    spec.after = {ok, dep};
    SubmitOutcome out = MustSubmit(*store, kAlice, spec, 3000);
    CHECK(out.ended == std::vector<TaskId>{out.id});
    Task task = MustGet(*store, out.id);
    CHECK(task.state == TaskState::kFailed);
    CHECK(task.reason == TaskReason::kDependencyFailed);
    CHECK(task.finished == 3000);
    CHECK(MustGet(*store, MustInsert(*store, kAlice, spec)).reason ==
          TaskReason::kDependencyFailed);
  }
  CHECK_FALSE(Ready(*store, "default").has_value());
}

STORE_TEST_CASE("a replaced expired task holds its pending dependents again") {
  auto store = OpenStore();
  const TaskId a = MustSubmit(*store, kAlice, Keyed("a", 1, {"a"})).id;
  StartAndFinish(*store, a, TaskState::kSucceeded, 1000);
  REQUIRE(store->ExpireSucceeded(2000, 10)->size() == 1);
  const TaskId c = MustInsert(*store, kAlice, Spec({"c"}));
  TaskSpec b = Spec({"b"});
  b.after = {a, c};  // a is expired: only c holds b
  const TaskId b_id = MustInsert(*store, kAlice, b, 3000);

  REQUIRE(MustSubmit(*store, kAlice, Keyed("a", 1, {"a again"}), 4000).id == a);
  StartAndFinish(*store, c, TaskState::kSucceeded, 4000);
  CHECK(Ready(*store, "default") == a);
  MustStart(*store, a, 5000);
  CHECK_FALSE(Ready(*store, "default").has_value());  // b waits for the new run of a
  REQUIRE(
      store->FinishAttempt(a, 1, Exited(6000, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(Ready(*store, "default") == b_id);
}

STORE_TEST_CASE("SubmitBatch inserts all in order, or nothing") {
  auto store = OpenStore();
  const TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}));
  std::vector<TaskSpec> specs = {Spec({"one"}, "batch"), Spec({"two"}, "batch"),
                                 Spec({"three"}, "batch")};
  specs[1].after = {dep};
  Result<std::vector<TaskId>> ids = store->SubmitBatch(kAlice, specs, 2000);
  REQUIRE_MESSAGE(ids.ok(), ids.status().message());
  REQUIRE(ids->size() == 3);
  CHECK((*ids)[0] > dep);
  CHECK((*ids)[1] == (*ids)[0] + 1);
  CHECK((*ids)[2] == (*ids)[1] + 1);
  CHECK(MustGet(*store, (*ids)[2]).spec.argv == std::vector<std::string>{"three"});
  CHECK(MustGet(*store, (*ids)[1]).spec.after == std::vector<TaskId>{dep});
  CHECK(Ready(*store, "batch") == (*ids)[0]);
  CHECK(store->SubmitBatch(kAlice, {}, 2000)->empty());

  const size_t before = CountAll(*store);
  std::vector<TaskSpec> nul_argv = specs;
  nul_argv[2].argv = {"x", std::string("a\0b", 3)};
  std::vector<TaskSpec> bad_after = specs;
  bad_after[1].after = {dep, 999};
  bad_after[0].queue = "never-created";
  std::vector<TaskSpec> someone_elses = specs;
  someone_elses[2].after = {MustInsert(*store, kBob, Spec({"bob"}))};
  std::vector<TaskSpec> keyed = specs;
  keyed[0].key = "k";
  const struct {
    const char* name;
    const std::vector<TaskSpec>& specs;
    ErrorCode code;
    const char* field;
    const char* message;
  } kCases[] = {
      {"a NUL", nul_argv, ErrorCode::kInvalid, "argv", "entry 3: argv[1] contains a NUL byte"},
      {"an unknown after", bad_after, ErrorCode::kNotFound, "after", "entry 2: task 999 not found"},
      {"someone else's after", someone_elses, ErrorCode::kNotFound, "after", nullptr},
      {"a key", keyed, ErrorCode::kInvalid, "key", nullptr},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    Result<std::vector<TaskId>> r = store->SubmitBatch(kAlice, c.specs, 3000);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == c.code);
    CHECK(r.status().field() == c.field);
    if (c.message) CHECK(r.status().message() == c.message);
  }
  CHECK(CountAll(*store) == before + 1);  // bob's task only
  CHECK(QueueNames(*store) == std::vector<std::string>{"batch", "default"});
}

}  // namespace
}  // namespace tq

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("a group commit submits each request on its own, in one transaction") {
  auto store = OpenStore();
  const TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}), 1000);
  TaskSpec bad_after = Spec({"b"});
  bad_after.after = {dep + 100};
  TaskSpec bobs_dep = Spec({"c"});
  bobs_dep.after = {dep};  // alice's task: bob may not wait for it
  const std::vector<SubmitItem> items = {
      {kAlice, Spec({"a"}), false},   {kAlice, bad_after, false},
      {kBob, bobs_dep, false},        {kAlice, Keyed("k", 1), false},
      {kAlice, Keyed("k", 1), false}, {kAlice, Keyed("k", 0), false},
  };
  const auto results = store->SubmitGroup(items, 2000);
  REQUIRE(results.size() == items.size());
  REQUIRE(results[0].ok());
  CHECK(results[0]->inserted);
  CHECK(results[1].status().code() == ErrorCode::kNotFound);
  CHECK(results[2].status().code() == ErrorCode::kNotFound);
  REQUIRE(results[3].ok());
  REQUIRE(results[4].ok());
  CHECK(results[4]->id == results[3]->id);  // the same key and version: replaced in place
  REQUIRE(results[5].ok());
  CHECK(results[5]->refused_newer);
  CHECK(CountAll(*store) == 3);  // dep, a and the keyed one; nothing of the refused ones
  CHECK(MustGet(*store, results[0]->id).spec.argv == std::vector<std::string>{"a"});
}

STORE_TEST_CASE("a group commit inside WriteTogether is stored only when that transaction is") {
  auto store = OpenStore();
  const std::vector<SubmitItem> items = {{kAlice, Spec({"a"}), false}, {kBob, Spec({"b"}), false}};
  std::vector<Result<SubmitOutcome>> results;
  const Status undone = store->WriteTogether([&] {
    results = store->SubmitGroup(items, 1000);
    return Status::Invalid("turn", "undone on purpose");
  });
  CHECK_FALSE(undone.ok());
  REQUIRE(results.size() == 2);
  CHECK(results[0].ok());        // as far as the group knew
  CHECK(CountAll(*store) == 0);  // but nothing of it was kept

  const Status kept = store->WriteTogether([&] {
    results = store->SubmitGroup(items, 2000);
    return Status::Ok();
  });
  REQUIRE(kept.ok());
  REQUIRE(results[1].ok());
  CHECK(CountAll(*store) == 2);
  CHECK(MustGet(*store, results[1]->id).spec.argv == std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace tq
