// Sharded work in the store (SPEC 12): a group's id taken from the tasks' ids, its shards stored
// together or not at all, and found again by the group's id; a job's sharded runs, made by one
// firing and counted as one run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

ShardedSubmit MustShard(Store& store, const TaskSpec& spec, int total, WallMs now = 1000) {
  Result<ShardedSubmit> out = store.SubmitShards(kAlice, spec, total, now);
  REQUIRE_MESSAGE(out.ok(), out.status().message());
  return *out;
}

STORE_TEST_CASE("shards are stored with their group, index and total, and found by the group") {
  std::unique_ptr<Store> store = OpenStore();
  const TaskId before = MustInsert(*store, kAlice, Spec({"before"}));
  const ShardedSubmit out = MustShard(*store, Spec({"settle"}, "batch"), 3);
  CHECK(out.new_queue);
  REQUIRE(out.ids.size() == 3);
  // The group's id comes from the tasks' ids: after the task before it, before its shards.
  CHECK(out.group > before);
  CHECK(out.ids[0] > out.group);
  CHECK(out.ids[1] > out.ids[0]);
  CHECK(out.ids[2] > out.ids[1]);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    const Task t = MustGet(*store, out.ids[i]);
    CHECK(t.state == TaskState::kPending);
    CHECK(t.spec.argv == std::vector<std::string>{"settle"});
    REQUIRE(t.spec.shard.has_value());
    CHECK(*t.spec.shard == ShardOf{out.group, i, 3});
  }
  CHECK(*store->ShardsOf(out.group) ==
        std::vector<ShardState>{{out.ids[0], TaskState::kPending, ""},
                                {out.ids[1], TaskState::kPending, ""},
                                {out.ids[2], TaskState::kPending, ""}});
  CHECK(store->Get(out.group).status().code() == ErrorCode::kNotFound);
  CHECK(store->ShardsOf(before)->empty());
  CHECK(store->ShardsOf(out.ids[0])->empty());
  CHECK_FALSE(MustGet(*store, before).spec.shard.has_value());
  // The next task and the next group get ids after them.
  const TaskId after = MustInsert(*store, kAlice, Spec({"after"}));
  CHECK(after > out.ids[2]);
  CHECK(MustShard(*store, Spec({"x"}), 1).group > after);
}

STORE_TEST_CASE("a group made before any task takes the first id") {
  std::unique_ptr<Store> store = OpenStore();
  const ShardedSubmit out = MustShard(*store, Spec({"x"}), 2);
  CHECK(out.group == 1);
  CHECK(out.ids == std::vector<TaskId>{2, 3});
}

STORE_TEST_CASE("sharded submits refuse a key, a count out of range and a missing dependency") {
  std::unique_ptr<Store> store = OpenStore();
  for (int total : {0, -1, kMaxShards + 1}) {
    CAPTURE(total);
    Result<ShardedSubmit> out = store->SubmitShards(kAlice, Spec({"x"}), total, 1000);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().field() == "shards");
  }
  Result<ShardedSubmit> keyed = store->SubmitShards(kAlice, Keyed("k", 1), 2, 1000);
  REQUIRE_FALSE(keyed.ok());
  CHECK(keyed.status().field() == "key");
  TaskSpec waits = Spec({"x"});
  waits.after = {12345};
  Result<ShardedSubmit> missing = store->SubmitShards(kAlice, waits, 2, 1000);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == ErrorCode::kNotFound);
  // Nothing of a refused group was stored.
  CHECK(store->List(ListFilter{})->empty());
}

STORE_TEST_CASE("a group's shards go through their lives one by one, and are purged one by one") {
  std::unique_ptr<Store> store = OpenStore();
  const ShardedSubmit out = MustShard(*store, Spec({"x"}), 2);
  StartAndFinish(*store, out.ids[0], TaskState::kFailed, 1100);
  MustStart(*store, out.ids[1], 1200);
  CHECK(*store->ShardsOf(out.group) ==
        std::vector<ShardState>{{out.ids[0], TaskState::kFailed, ""},
                                {out.ids[1], TaskState::kRunning, ""}});  // no host joined
  REQUIRE(store->PurgeEnded(2000, 10).ok());
  CHECK(*store->ShardsOf(out.group) ==
        std::vector<ShardState>{{out.ids[1], TaskState::kRunning, ""}});
}

STORE_TEST_CASE(
    "a group's end is claimed once, when its last shard ends, and again after a retry") {
  auto [alpha, beta] = OpenStorePair();
  REQUIRE(alpha->JoinHost("alpha", "0.1.0", 4, 1000).ok());
  REQUIRE(beta->JoinHost("beta", "0.1.0", 4, 1000).ok());
  const ShardedSubmit out = MustShard(*alpha, Spec({"x"}), 2);
  CHECK_FALSE(*alpha->ClaimGroupEnd(out.group));  // nothing ended
  MustStart(*alpha, out.ids[0], 1100);
  MustStart(*beta, out.ids[1], 1100);
  CHECK(*alpha->ShardsOf(out.group) ==
        std::vector<ShardState>{{out.ids[0], TaskState::kRunning, "alpha"},
                                {out.ids[1], TaskState::kRunning, "beta"}});
  REQUIRE(
      alpha->FinishAttempt(out.ids[0], 1, Exited(1200, 0), TaskState::kSucceeded, TaskReason::kExit)
          .ok());
  CHECK_FALSE(*beta->ClaimGroupEnd(out.group));  // a shard runs still
  REQUIRE(beta->FinishAttempt(out.ids[1], 1, Exited(1300, 1), TaskState::kFailed, TaskReason::kExit)
              .ok());
  // Both hosts see the group end; one claims it.
  CHECK(*beta->ClaimGroupEnd(out.group));
  CHECK_FALSE(*alpha->ClaimGroupEnd(out.group));
  CHECK_FALSE(*beta->ClaimGroupEnd(out.group));
  // A retry of the failed shard makes a new end of the group, claimed once too.
  REQUIRE(*alpha->Requeue(out.ids[1], 1400));
  CHECK_FALSE(*alpha->ClaimGroupEnd(out.group));
  StartAndFinish(*alpha, out.ids[1], TaskState::kSucceeded, 1500);
  CHECK(*alpha->ClaimGroupEnd(out.group));
  CHECK_FALSE(*beta->ClaimGroupEnd(out.group));
  CHECK_FALSE(*alpha->ClaimGroupEnd(out.ids[0]));  // a shard's id is no group
  CHECK_FALSE(*alpha->ClaimGroupEnd(999));
}

// ---- a job's sharded runs ----

// A run of `job` made of `total` shards, as the scheduler asks Fire for one.
TaskSpec ShardedRun(const std::string& job, int total) {
  TaskSpec spec = JobRun(job, true);
  spec.shard = ShardOf{0, 0, total};
  return spec;
}

JobRecord MustRecord(Store& store, const std::string& job) {
  for (const JobRecord& r : MustJobRecords(store))
    if (r.job == job) return r;
  FAIL("the store does not know job " << job);
  return {};
}

void MustFinishAt(Store& store, TaskId id, int attempt, WallMs ended, int exit_code) {
  const TaskState state = exit_code == 0 ? TaskState::kSucceeded : TaskState::kFailed;
  Result<std::vector<TaskId>> out =
      store.FinishAttempt(id, attempt, Exited(ended, exit_code), state, TaskReason::kExit);
  REQUIRE_MESSAGE(out.ok(), out.status().message());
}

STORE_TEST_CASE(
    "a sharded firing makes one group with its firing, and the group is the job's run") {
  std::unique_ptr<Store> store = OpenStore();
  const FireOutcome out = MustFire(*store, {"settle", 5000, ""}, ShardedRun("settle", 3), 5000);
  CHECK(out.fired);
  REQUIRE(out.task.has_value());
  const TaskId group = *out.task;
  REQUIRE(out.shards.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    const Task t = MustGet(*store, out.shards[i]);
    CHECK(t.spec.job == "settle");
    REQUIRE(t.spec.shard.has_value());
    CHECK(*t.spec.shard == ShardOf{group, i, 3});
  }
  CHECK(store->ShardsOf(group)->size() == 3);
  // The same time again makes nothing.
  const FireOutcome again = MustFire(*store, {"settle", 5000, ""}, ShardedRun("settle", 3), 5100);
  CHECK_FALSE(again.fired);
  CHECK(again.shards.empty());
  CHECK(store->ShardsOf(group)->size() == 3);

  JobRecord r = MustRecord(*store, "settle");
  CHECK(r.last_task == group);
  CHECK(r.last_run == 5000);
  CHECK(r.last_state == TaskState::kPending);
  // The group's outcome is the job's: running while a shard runs, failed when one failed.
  const int first = MustStart(*store, out.shards[0], 5100);
  CHECK(MustRecord(*store, "settle").last_state == TaskState::kRunning);
  MustFinishAt(*store, out.shards[0], first, 5200, 4);
  StartAndFinish(*store, out.shards[1], TaskState::kSucceeded, 5300);
  CHECK(MustRecord(*store, "settle").last_state == TaskState::kPending);
  StartAndFinish(*store, out.shards[2], TaskState::kSucceeded, 5400);
  r = MustRecord(*store, "settle");
  CHECK(r.last_state == TaskState::kFailed);
  CHECK(r.last_exit_code == 4);
  CHECK_FALSE(r.last_success.has_value());  // a run with a failed shard did not succeed
}

STORE_TEST_CASE("a sharded firing refuses a shard count out of range and changes nothing") {
  std::unique_ptr<Store> store = OpenStore();
  for (int bad : {0, kMaxShards + 1}) {
    CAPTURE(bad);
    Result<FireOutcome> out =
        store->Fire({"settle", 5000, ""}, kAlice, ShardedRun("settle", bad), 5000);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().field() == "shards");
  }
  CHECK(MustJobRecords(*store).empty());
}

STORE_TEST_CASE("a group's shards never hold each other, and together hold the job's next run") {
  std::unique_ptr<Store> store = OpenStore();
  const FireOutcome g1 = MustFire(*store, {"j", 1000, ""}, ShardedRun("j", 2), 1000);
  REQUIRE(g1.shards.size() == 2);
  const int a = MustStart(*store, g1.shards[0], 1000);
  CHECK(Ready(*store, "cron") == g1.shards[1]);  // its sibling stays ready while it runs
  JobRuns runs = *store->RunsOf("j");
  CHECK(runs.in_flight_runs == 1);
  CHECK(runs.pending_runs == 0);

  const FireOutcome g2 = MustFire(*store, {"j", 2000, ""}, ShardedRun("j", 2), 2000);
  REQUIRE(g2.shards.size() == 2);
  const int b = MustStart(*store, g1.shards[1], 2000);
  CHECK_FALSE(Ready(*store, "cron").has_value());  // the second run waits for the first
  runs = *store->RunsOf("j");
  CHECK(runs.running.size() == 2);
  CHECK(runs.pending.size() == 2);
  CHECK(runs.in_flight_runs == 1);
  CHECK(runs.pending_runs == 1);

  MustFinishAt(*store, g1.shards[0], a, 3000, 0);
  CHECK_FALSE(Ready(*store, "cron").has_value());  // one shard of the first run still runs
  CHECK_FALSE(MustRecord(*store, "j").last_success.has_value());
  MustFinishAt(*store, g1.shards[1], b, 3500, 0);
  CHECK(MustRecord(*store, "j").last_success == 3500);  // the whole group succeeded
  CHECK(Ready(*store, "cron") == g2.shards[0]);
  MustStart(*store, g2.shards[0], 3600);
  CHECK(Ready(*store, "cron") == g2.shards[1]);
}

STORE_TEST_CASE("a group with shards done and shards waiting is in flight until its last ends") {
  std::unique_ptr<Store> store = OpenStore();
  const FireOutcome g1 = MustFire(*store, {"j", 1000, ""}, ShardedRun("j", 3), 1000);
  REQUIRE(g1.shards.size() == 3);
  StartAndFinish(*store, g1.shards[0], TaskState::kSucceeded, 1000);  // the others wait for slots
  const FireOutcome g2 = MustFire(*store, {"j", 2000, ""}, ShardedRun("j", 2), 2000);
  JobRuns runs = *store->RunsOf("j");
  CHECK(runs.in_flight_runs == 1);
  CHECK(runs.pending_runs == 1);
  CHECK(runs.between_stages == std::vector<TaskId>{g1.shards[1], g1.shards[2]});
  CHECK(runs.pending == g2.shards);

  StartAndFinish(*store, g1.shards[1], TaskState::kSucceeded, 2100);
  CHECK(Ready(*store, "cron") == g1.shards[2]);  // the second run still waits
  StartAndFinish(*store, g1.shards[2], TaskState::kSucceeded, 2200);
  CHECK(Ready(*store, "cron") == g2.shards[0]);
}

STORE_TEST_CASE("a failed shard retried while its siblings run is not held by them") {
  std::unique_ptr<Store> store = OpenStore();
  const FireOutcome g = MustFire(*store, {"j", 1000, ""}, ShardedRun("j", 2), 1000);
  REQUIRE(g.shards.size() == 2);
  StartAndFinish(*store, g.shards[0], TaskState::kFailed, 1000);
  MustStart(*store, g.shards[1], 1100);
  Result<bool> requeued = store->Requeue(g.shards[0], 1200);
  REQUIRE_MESSAGE(requeued.ok(), requeued.status().message());
  CHECK(*requeued);
  CHECK(Ready(*store, "cron") == g.shards[0]);
}

}  // namespace
}  // namespace tq
