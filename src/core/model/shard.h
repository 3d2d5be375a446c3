// Sharded work (SPEC 12, seed 003): one piece of work split into N tasks, each told its slice by
// TQ_SHARD_INDEX and TQ_SHARD_TOTAL, kept together as a group that is waited on, cancelled,
// retried and notified as one.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/model/status.h"

namespace tq {

enum class TaskState;

/// A group has 1 to this many shards.
constexpr int kMaxShards = 1000;

/// A task's place in its group. The group's id is taken from the tasks' ids (no task has it),
/// so a verb given it acts on the group.
struct ShardOf {
  int64_t group = 0;  ///< the group's id
  int index = 0;      ///< 0 .. total-1: TQ_SHARD_INDEX
  int total = 0;      ///< the group's size: TQ_SHARD_TOTAL
  bool operator==(const ShardOf&) const = default;
};

/// Checks a shard count given as `field`: 1..kMaxShards; the refusal names the field, the value
/// and what is allowed.
Status CheckShardCount(const char* field, int64_t shards);

/// Where a group is, from its shards' states: running while any runs, else pending while any is
/// pending; once all have ended, failed if any failed, else cancelled if any was cancelled, else
/// succeeded (expired shards had succeeded). kPending for no shards.
TaskState GroupState(const std::vector<TaskState>& shards);

/// Counts a job's unfinished runs as its overlap policy sees them: a task that is no shard is
/// one run; the shards of a group together are one, in flight while any of them is.
class RunTally {
 public:
  /// Adds one unfinished task: a shard of `group` (0: no shard), in flight or pending.
  void Add(int64_t group, bool in_flight);
  int pending() const;
  int in_flight() const;

 private:
  int pending_ = 0;
  int in_flight_ = 0;
  std::map<int64_t, bool> groups_;  ///< each group seen: whether a shard of it is in flight
};

}  // namespace tq
