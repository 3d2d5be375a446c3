// Sharded work's pure decisions: the shard count's bounds and a group's state from its shards'.
#include <doctest/doctest.h>

#include <vector>

#include "core/model/shard.h"
#include "core/model/task.h"

namespace tq {
namespace {

TEST_CASE("a shard count is 1 to kMaxShards, and a refusal names the field and the value") {
  CHECK(CheckShardCount("shards", 1).ok());
  CHECK(CheckShardCount("shards", kMaxShards).ok());
  for (int64_t bad : {int64_t{0}, int64_t{-3}, int64_t{kMaxShards} + 1, int64_t{1} << 40}) {
    CAPTURE(bad);
    const Status s = CheckShardCount("shards", bad);
    REQUIRE_FALSE(s.ok());
    CHECK(s.field() == "shards");
    CHECK(s.message() == "shards: " + std::to_string(bad) + " is not a shard count (1 to 1000)");
  }
}

TEST_CASE("a group's state from its shards' states") {
  using S = TaskState;
  struct Case {
    std::vector<S> shards;
    S group;
  };
  const Case cases[] = {
      {{}, S::kPending},
      {{S::kPending, S::kPending}, S::kPending},
      {{S::kSucceeded, S::kPending}, S::kPending},
      {{S::kFailed, S::kPending}, S::kPending},
      {{S::kPending, S::kRunning, S::kFailed}, S::kRunning},
      {{S::kSucceeded, S::kSucceeded}, S::kSucceeded},
      {{S::kSucceeded, S::kExpired}, S::kSucceeded},
      {{S::kExpired, S::kExpired}, S::kSucceeded},
      {{S::kSucceeded, S::kCancelled}, S::kCancelled},
      {{S::kCancelled, S::kFailed, S::kSucceeded}, S::kFailed},
      {{S::kFailed}, S::kFailed},
  };
  for (const Case& c : cases) {
    CAPTURE(c.shards.size());
    CHECK(StateName(GroupState(c.shards)) == std::string(StateName(c.group)));
  }
}

}  // namespace
}  // namespace tq
