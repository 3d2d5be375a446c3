#include "core/model/shard.h"

#include <algorithm>
#include <string>

#include "core/model/task.h"

namespace tq {

Status CheckShardCount(const char* field, int64_t shards) {
  if (shards >= 1 && shards <= kMaxShards) return Status::Ok();
  return Status::Invalid(field, std::string(field) + ": " + std::to_string(shards) +
                                    " is not a shard count (1 to " + std::to_string(kMaxShards) +
                                    ")");
}

TaskState GroupState(const std::vector<TaskState>& shards) {
  auto any = [&](TaskState s) {
    return std::find(shards.begin(), shards.end(), s) != shards.end();
  };
  if (shards.empty()) return TaskState::kPending;
  if (any(TaskState::kRunning)) return TaskState::kRunning;
  if (any(TaskState::kPending)) return TaskState::kPending;
  if (any(TaskState::kFailed)) return TaskState::kFailed;
  if (any(TaskState::kCancelled)) return TaskState::kCancelled;
  return TaskState::kSucceeded;
}

void RunTally::Add(int64_t group, bool in_flight) {
  if (group == 0) {
    ++(in_flight ? in_flight_ : pending_);
    return;
  }
  bool& flying = groups_[group];
  flying = flying || in_flight;
}

int RunTally::pending() const {
  int n = pending_;
  for (const auto& [group, flying] : groups_) n += flying ? 0 : 1;
  return n;
}

int RunTally::in_flight() const {
  int n = in_flight_;
  for (const auto& [group, flying] : groups_) n += flying ? 1 : 0;
  return n;
}

}  // namespace tq
