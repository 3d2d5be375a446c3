// Sharded work's pure decisions: the shard count's bounds, a group's state from its shards', and
// a job's runs counted with a group as one.
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

TEST_CASE("a job's runs as overlap counts them: a group is one run, in flight while a shard is") {
  struct Task {
    int64_t group;  // 0: no shard
    bool in_flight;
  };
  struct Case {
    const char* name;
    std::vector<Task> tasks;
    int pending;
    int in_flight;
  };
  const Case cases[] = {
      {"no runs", {}, 0, 0},
      {"plain runs count one each", {{0, false}, {0, false}, {0, true}}, 2, 1},
      {"a group all pending is one pending run", {{7, false}, {7, false}, {7, false}}, 1, 0},
      {"a group with one shard in flight is one run in flight", {{7, false}, {7, true}}, 0, 1},
      {"the flying shard may come last", {{7, true}, {7, false}, {7, false}}, 0, 1},
      {"two groups and a plain run",
       {{7, true}, {7, true}, {9, false}, {9, false}, {0, false}},
       2,
       1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    RunTally tally;
    for (const Task& t : c.tasks) tally.Add(t.group, t.in_flight);
    CHECK(tally.pending() == c.pending);
    CHECK(tally.in_flight() == c.in_flight);
  }
}

}  // namespace
}  // namespace tq
