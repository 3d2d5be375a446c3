// TaskCounts: how many tasks each (queue, state) pair holds, checked after every kind of write
// that creates, moves or removes a task against the tasks the store lists.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

/// "queue/state=n" for each pair, in order, for messages that show the whole table.
std::string Render(const std::vector<TaskCount>& counts) {
  std::string out;
  for (const TaskCount& c : counts) {
    out += c.queue + "/" + StateName(c.state) + "=" + std::to_string(c.count) + " ";
  }
  return out;
}

std::vector<TaskCount> MustTaskCounts(Store& store) {
  Result<std::vector<TaskCount>> counts = store.TaskCounts();
  REQUIRE_MESSAGE(counts.ok(), counts.status().message());
  return *counts;
}

/// The counts computed from every task List returns, in the order TaskCounts promises: by queue,
/// then in TaskState's order.
std::vector<TaskCount> CountByListing(Store& store) {
  ListFilter all;
  all.limit = 0;  // no limit
  Result<std::vector<Task>> tasks = store.List(all);
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  std::map<std::pair<std::string, int>, int64_t> by_pair;
  for (const Task& t : *tasks) ++by_pair[{t.spec.queue, static_cast<int>(t.state)}];
  std::vector<TaskCount> counts;
  for (const auto& [pair, n] : by_pair) {
    counts.push_back({pair.first, static_cast<TaskState>(pair.second), n});
  }
  return counts;
}

TaskSpec In(const std::string& queue, TaskSpec spec) {
  spec.queue = queue;
  return spec;
}

STORE_TEST_CASE("TaskCounts of an empty store is empty") {
  auto store = OpenStore();
  CHECK(MustTaskCounts(*store).empty());
  MustInsert(*store, kAlice, Spec({"x"}, "q1"));
  std::vector<TaskCount> counts = MustTaskCounts(*store);
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].queue == "q1");
  CHECK(counts[0].state == TaskState::kPending);
  CHECK(counts[0].count == 1);
}

STORE_TEST_CASE("TaskCounts follows every write that creates, moves or removes a task") {
  auto store = OpenStore();
  std::map<std::string, TaskId> id;  // the tasks by name, as the steps create them
  auto must_ok = [](const Status& s) { REQUIRE_MESSAGE(s.ok(), s.message()); };
  auto keyed = [&](const char* key, int64_t version, const char* queue, WallMs now,
                   bool supersede_running = false) {
    return MustSubmit(*store, kAlice, In(queue, Keyed(key, version)), now, supersede_running);
  };

  struct Step {
    std::string name;
    std::function<void()> run;
  };
  const Step steps[] = {
      {"insert",
       [&] {
         id["a"] = MustInsert(*store, kAlice, Spec({"a"}, "q1"), 1000);
         id["b"] = MustInsert(*store, kAlice, Spec({"b"}, "q1"), 1000);
         id["c"] = MustInsert(*store, kBob, Spec({"c"}, "q2"), 1000);
       }},
      {"submit a batch",
       [&] {
         Result<std::vector<TaskId>> ids =
             store->SubmitBatch(kAlice, {Spec({"d"}, "q2"), Spec({"e"}, "q3")}, 1100);
         REQUIRE_MESSAGE(ids.ok(), ids.status().message());
         REQUIRE(ids->size() == 2);
         id["d"] = (*ids)[0];
         id["e"] = (*ids)[1];
       }},
      {"submit a group",
       [&] {
         std::vector<Result<SubmitOutcome>> out = store->SubmitGroup(
             {{kBob, Spec({"f"}, "q3"), false}, {kAlice, Spec({"g"}, "q1"), false}}, 1200);
         REQUIRE(out.size() == 2);
         for (const Result<SubmitOutcome>& o : out) REQUIRE_MESSAGE(o.ok(), o.status().message());
         id["f"] = out[0]->id;
         id["g"] = out[1]->id;
       }},
      {"start", [&] { MustStart(*store, id["a"], 2000); }},
      {"retry later", [&] { must_ok(store->RetryLater(id["a"], 1, Exited(2010, 1), 90000, 4)); }},
      {"finish succeeded", [&] { StartAndFinish(*store, id["b"], TaskState::kSucceeded, 2100); }},
      {"finish failed", [&] { StartAndFinish(*store, id["c"], TaskState::kFailed, 2200); }},
      {"cancel a pending task",
       [&] {
         Result<std::vector<TaskId>> ended =
             store->EndPending(id["d"], TaskState::kCancelled, TaskReason::kCancelled, 2300);
         REQUIRE(ended.ok());
         REQUIRE(*ended == std::vector<TaskId>{id["d"]});
       }},
      {"insert a dependent",
       [&] {
         TaskSpec dependent = Spec({"h"}, "q2");
         dependent.after = {id["e"]};
         id["h"] = MustInsert(*store, kAlice, dependent, 2400);
       }},
      {"a failure fails its pending dependents",
       [&] {
         CHECK(StartAndFinish(*store, id["e"], TaskState::kFailed, 2500) ==
               std::vector<TaskId>{id["h"]});
       }},
      {"keyed submit", [&] { id["k1"] = keyed("k", 1, "q1", 2600).id; }},
      {"a keyed replace moves the pending task to another queue",
       [&] {
         SubmitOutcome out = keyed("k", 1, "q4", 2700);
         CHECK(out.id == id["k1"]);
         CHECK(MustGet(*store, id["k1"]).spec.queue == "q4");
       }},
      {"a keyed task fails",
       [&] {
         id["m"] = keyed("m", 1, "q2", 2800).id;
         StartAndFinish(*store, id["m"], TaskState::kFailed, 2800);
       }},
      {"resubmitting a failed version replaces it, pending again",
       [&] {
         CHECK(keyed("m", 1, "q2", 2900).id == id["m"]);
         CHECK(StateOf(*store, id["m"]) == TaskState::kPending);
       }},
      {"a newer version supersedes the pending one",
       [&] {
         SubmitOutcome out = keyed("k", 2, "q4", 3000);
         id["k2"] = out.id;
         CHECK(out.ended == std::vector<TaskId>{id["k1"]});
       }},
      {"start the newer version", [&] { MustStart(*store, id["k2"], 3100); }},
      {"a newer version supersedes the running one, which the daemon then ends",
       [&] {
         SubmitOutcome out = keyed("k", 3, "q1", 3200, /*supersede_running=*/true);
         id["k3"] = out.id;
         REQUIRE(out.to_terminate == std::vector<TaskId>{id["k2"]});
         AttemptOutcome stopped = Exited(3210, -1);
         stopped.reason = AttemptReason::kCancelled;
         REQUIRE(store
                     ->FinishAttempt(id["k2"], 1, stopped, TaskState::kCancelled,
                                     TaskReason::kSuperseded)
                     .ok());
       }},
      {"start a task whose supervisor will never start", [&] { MustStart(*store, id["f"], 3300); }},
      {"undo that attempt", [&] { must_ok(store->UnstartAttempt(id["f"], 1)); }},
      {"insert a task with a pending ttl",
       [&] {
         TaskSpec spec = Spec({"ttl"}, "q5");
         spec.pending_ttl_ms = 100;
         id["t"] = MustInsert(*store, kAlice, spec, 3400);
       }},
      {"its pending ttl runs out",
       [&] { CHECK(*store->ExpirePendingTtl(3500, 10) == std::vector<TaskId>{id["t"]}); }},
      {"requeue a failed task", [&] { CHECK(*store->Requeue(id["c"], 3600)); }},
      {"requeue several",
       [&] {
         Result<std::vector<TaskId>> requeued =
             store->RequeueAll({id["d"], id["e"]}, 3700, false, {});
         REQUIRE_MESSAGE(requeued.ok(), requeued.status().message());
         CHECK(requeued->size() == 2);
       }},
      {"a job fires",
       [&] {
         FireOutcome fired = MustFire(*store, {"nightly", 3800, ""}, JobRun("nightly", true), 3800);
         REQUIRE(fired.task.has_value());
         id["j"] = *fired.task;
       }},
      {"success retention expires",
       [&] { CHECK(*store->ExpireSucceeded(5000, 100) == std::vector<TaskId>{id["b"]}); }},
      {"purge by retention",
       [&] {
         Result<std::vector<TaskId>> purged = store->PurgeEnded(5000, 100);
         REQUIRE_MESSAGE(purged.ok(), purged.status().message());
         CHECK(purged->size() == 5);  // b (expired), h, k1, k2, t
       }},
  };

  std::string before = Render(MustTaskCounts(*store));
  CHECK(before.empty());
  for (const Step& step : steps) {
    INFO("step: ", step.name);
    step.run();
    std::vector<TaskCount> counts = MustTaskCounts(*store);
    for (const TaskCount& c : counts) CHECK(c.count > 0);
    const std::string now = Render(counts);
    CHECK(now == Render(CountByListing(*store)));
    CHECK_MESSAGE(now != before, "the step changed no count: it tests nothing");
    before = now;
  }
}

}  // namespace
}  // namespace tq
