// What `tq update` changes of a pending task (SPEC 10): the settings a person gets wrong at
// submit and wants to fix before the task starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/task.h"

namespace tq {

/// Each member that is set replaces the task's own; the rest stay as they are.
struct TaskChanges {
  std::optional<int> priority;
  std::optional<std::string> queue;
  std::optional<std::vector<std::string>> labels;  ///< the whole list (empty: none)
  std::optional<WallMs> not_before;                ///< earliest start (0: at once)
  std::optional<int64_t> timeout_ms;               ///< 0: none
  std::optional<int> retries;

  /// True when nothing is set.
  bool Empty() const {
    return !priority && !queue && !labels && !not_before && !timeout_ms && !retries;
  }
  /// `spec` with these changes made.
  TaskSpec AppliedTo(TaskSpec spec) const {
    if (priority) spec.priority = *priority;
    if (queue) spec.queue = *queue;
    if (labels) spec.labels = *labels;
    if (not_before) spec.not_before = *not_before;
    if (timeout_ms) spec.timeout_ms = *timeout_ms;
    if (retries) spec.retry.retries = *retries;
    return spec;
  }
};

}  // namespace tq
