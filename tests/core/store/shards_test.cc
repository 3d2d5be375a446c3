// Sharded work in the store (SPEC 12): a group's id taken from the tasks' ids, its shards stored
// together or not at all, and found again by the group's id.
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
  CHECK(*store->ShardsOf(out.group) == std::vector<ShardState>{{out.ids[0], TaskState::kPending},
                                                               {out.ids[1], TaskState::kPending},
                                                               {out.ids[2], TaskState::kPending}});
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
  CHECK(*store->ShardsOf(out.group) == std::vector<ShardState>{{out.ids[0], TaskState::kFailed},
                                                               {out.ids[1], TaskState::kPending}});
  REQUIRE(store->PurgeEnded(2000, 10).ok());
  CHECK(*store->ShardsOf(out.group) == std::vector<ShardState>{{out.ids[1], TaskState::kPending}});
}

}  // namespace
}  // namespace tq
