#include "core/model/stage_progress.h"

namespace tq {

const StageSpec* StageAt(const TaskSpec& spec, int stage) {
  if (stage < 0 || static_cast<size_t>(stage) >= spec.stages.size()) return nullptr;
  return &spec.stages[static_cast<size_t>(stage)];
}

StageState StageStateOf(const Task& task, size_t index) {
  const size_t current = task.stage < 0 ? 0 : static_cast<size_t>(task.stage);
  const bool ended_short = task.state == TaskState::kFailed || task.state == TaskState::kCancelled;
  if (index < current) return StageState::kSucceeded;
  if (index > current) return ended_short ? StageState::kSkipped : StageState::kPending;
  switch (task.state) {
    case TaskState::kPending:
      return StageState::kPending;
    case TaskState::kRunning:
      return StageState::kRunning;
    case TaskState::kSucceeded:
    case TaskState::kExpired:
      return StageState::kSucceeded;
    case TaskState::kFailed:
      return StageState::kFailed;
    case TaskState::kCancelled:
      return StageState::kCancelled;
  }
  return StageState::kPending;
}

std::vector<std::string> StageCommand(const TaskSpec& spec, int stage) {
  const StageSpec* s = StageAt(spec, stage);
  const std::vector<std::string>& argv = s != nullptr ? s->argv : spec.argv;
  const std::optional<std::string>& shell = s != nullptr ? s->shell : spec.shell;
  if (shell) return {"/bin/sh", "-c", *shell};
  return argv;
}

int64_t StageTimeout(const TaskSpec& spec, int stage) {
  const StageSpec* s = StageAt(spec, stage);
  return s != nullptr && s->timeout_ms ? *s->timeout_ms : spec.timeout_ms;
}

RetryPolicy StageRetry(const TaskSpec& spec, int stage) {
  const StageSpec* s = StageAt(spec, stage);
  return s != nullptr ? ApplyOverrides(spec.retry, s->retry) : spec.retry;
}

bool IsLastStage(const TaskSpec& spec, int stage) {
  return stage < 0 || static_cast<size_t>(stage) + 1 >= spec.stages.size();
}

std::optional<int> StageIndex(const TaskSpec& spec, const std::string& name) {
  for (size_t i = 0; i < spec.stages.size(); ++i)
    if (spec.stages[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}

std::string StageName(const TaskSpec& spec, int stage) {
  const StageSpec* s = StageAt(spec, stage);
  return s != nullptr ? s->name : "";
}

}  // namespace tq
