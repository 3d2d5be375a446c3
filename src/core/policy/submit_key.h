// The submit-with-key decision of SPEC 3 as a pure function: given the submitter's tasks that
// carry the same key, what a new request with version V does.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/task.h"

namespace tq {

/// One of the owner's tasks with the key being submitted.
struct KeyedTask {
  TaskId id = 0;
  int64_t version = 0;
  TaskState state = TaskState::kPending;
};

/// What to do with a keyed submit.
enum class KeyAction {
  kInsert,          ///< a new task
  kRefuseNewer,     ///< a higher version exists: refuse, naming it (exit 3)
  kReturnExisting,  ///< the same version is running or succeeded: its id, nothing inserted
  kReplace,         ///< the same version ended or waits: new request in place, same id
};

/// The decision and the older tasks it ends.
struct KeyDecision {
  KeyAction action = KeyAction::kInsert;
  TaskId existing = 0;                 ///< the task refused by, returned or replaced
  std::vector<TaskId> cancel_pending;  ///< older pending versions, cancelled as superseded
  std::vector<TaskId> cancel_running;  ///< older running versions (only with supersede_running)
};

/// Applies SPEC 3's table to `same_key` (the owner's tasks with the key, any order) for a
/// request of `version`.
KeyDecision DecideKeyedSubmit(const std::vector<KeyedTask>& same_key, int64_t version,
                              bool supersede_running);

}  // namespace tq
