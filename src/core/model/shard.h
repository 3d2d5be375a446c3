// Sharded work (SPEC 12, seed 003): one piece of work split into N tasks, each told its slice by
// TQ_SHARD_INDEX and TQ_SHARD_TOTAL, kept together as a group that is waited on, cancelled,
// retried and notified as one.
#pragma once

#include <cstdint>
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

}  // namespace tq
