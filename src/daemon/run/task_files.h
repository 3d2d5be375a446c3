// Where a task's files live in the state directory: its stdin payload and, per attempt, the
// captured output and the supervisor's status record, named by task and attempt in
// attempts/<id / 1000>/, so that starting an attempt creates no directory of its own.
// Tasks an earlier tqd ran keep theirs in tasks/<id>/ until retention removes them.
#pragma once

#include <string>
#include <vector>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// Paths of the tasks' files under a state directory, and their making and removal.
class TaskFiles {
 public:
  /// The files under `state_dir`; looks once whether an earlier tqd left any in tasks/.
  explicit TaskFiles(const std::string& state_dir);

  /// Makes the directory of every task's files and SpareDir 0700 (creating them), and an
  /// earlier tqd's too, and ContextRoot 0711.
  Status Prepare() const;
  /// The directory holding `id`'s files, made by MakeDirFor.
  std::string Dir(TaskId id) const { return root_ + "/" + std::to_string(id / kPerDir); }
  /// Where status records of attempts over and stored wait to be reused (SpareRecords).
  std::string SpareDir() const { return root_ + "/spare"; }
  /// Makes Dir(id) unless it exists; ok, or why not.
  Status MakeDirFor(TaskId id) const;
  std::string Stdin(TaskId id) const { return Dir(id) + "/" + std::to_string(id) + ".stdin"; }
  std::string Stdout(TaskId id, int attempt) const { return Attempt(id, attempt, ".out"); }
  std::string Stderr(TaskId id, int attempt) const { return Attempt(id, attempt, ".err"); }
  /// The order in which the attempt wrote to the two (core/model/output_order.h).
  std::string Order(TaskId id, int attempt) const { return Attempt(id, attempt, ".order"); }
  std::string StatusRecord(TaskId id, int attempt) const { return Attempt(id, attempt, ".status"); }
  /// Where the context directories of tasks with stages live (SPEC 13): contexts/u<uid>/<id>,
  /// each its task's user's in a directory of theirs, under one they may enter but not read.
  std::string ContextRoot() const { return contexts_; }
  /// The tasks that have files in attempts/, by id (an earlier tqd's tasks/ is not read).
  std::vector<TaskId> Ids() const;
  /// Removes every file of these tasks, their context directories, and each directory this
  /// leaves empty; the paths it could not remove, with why.
  std::vector<std::string> Remove(const std::vector<TaskId>& ids) const;

 private:
  static constexpr TaskId kPerDir = 1000;  ///< tasks per directory of attempts/

  /// The path of an attempt's file with `suffix`, where an earlier tqd put it if it did.
  std::string Attempt(TaskId id, int attempt, const char* suffix) const;
  /// tasks/<id>, where an earlier tqd kept the task's files.
  std::string LegacyDir(TaskId id) const { return legacy_root_ + "/" + std::to_string(id); }

  std::string root_;         ///< STATE/attempts
  std::string legacy_root_;  ///< STATE/tasks
  std::string contexts_;     ///< STATE/contexts
  bool legacy_ = false;      ///< tasks/ held something at start-up
};

}  // namespace tq
