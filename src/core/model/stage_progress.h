// Where a task with stages is (SPEC 13), read from its current stage and its state, and what its
// current stage runs with. A task without stages is one stage that runs its own command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/task.h"

namespace tq {

/// The state of stage `index` of `task`: those before its current stage succeeded; the current
/// one follows the task (pending, running, succeeded, failed, cancelled); those after it are
/// pending, or skipped once the task ended without reaching them.
StageState StageStateOf(const Task& task, size_t index);
/// Stage `stage` of `spec`, or nullptr when it has no such stage (a task without stages).
const StageSpec* StageAt(const TaskSpec& spec, int stage);
/// The argv an attempt at stage `stage` of `spec` executes (/bin/sh -c for a shell command);
/// the task's own command when it has no stages.
std::vector<std::string> StageCommand(const TaskSpec& spec, int stage);
/// The running-time limit of stage `stage`: its own, else the task's (0: none).
int64_t StageTimeout(const TaskSpec& spec, int stage);
/// The retry policy of stage `stage`: the task's with the stage's own settings over it.
RetryPolicy StageRetry(const TaskSpec& spec, int stage);
/// Whether the success of stage `stage` ends the task (the last stage, or no stages at all).
bool IsLastStage(const TaskSpec& spec, int stage);
/// The index of the stage named `name`, if `spec` has one.
std::optional<int> StageIndex(const TaskSpec& spec, const std::string& name);
/// The name of stage `stage`, "" for a task without stages.
std::string StageName(const TaskSpec& spec, int stage);

}  // namespace tq
