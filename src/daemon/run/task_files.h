// Where a task's files live in the state directory: tasks/<id>/ holds the stdin payload and,
// per attempt, the captured output and the supervisor's status record.
#pragma once

#include <string>

#include "core/model/task.h"

namespace tq {

/// Paths of one task's files under `state_dir`.
class TaskFiles {
 public:
  explicit TaskFiles(std::string state_dir) : root_(std::move(state_dir) + "/tasks") {}

  std::string Root() const { return root_; }
  std::string Dir(TaskId id) const { return root_ + "/" + std::to_string(id); }
  std::string Stdin(TaskId id) const { return Dir(id) + "/stdin"; }
  std::string Stdout(TaskId id, int attempt) const { return Attempt(id, attempt) + ".out"; }
  std::string Stderr(TaskId id, int attempt) const { return Attempt(id, attempt) + ".err"; }
  std::string StatusRecord(TaskId id, int attempt) const {
    return Attempt(id, attempt) + ".status";
  }

 private:
  std::string Attempt(TaskId id, int attempt) const {
    return Dir(id) + "/" + std::to_string(attempt);
  }
  std::string root_;
};

}  // namespace tq
