#include "core/model/stage.h"

#include "core/model/name_text.h"

namespace tq {

const char* StageStateName(StageState s) {
  switch (s) {
    case StageState::kPending:
      return "pending";
    case StageState::kRunning:
      return "running";
    case StageState::kSucceeded:
      return "succeeded";
    case StageState::kFailed:
      return "failed";
    case StageState::kCancelled:
      return "cancelled";
    case StageState::kSkipped:
      return "skipped";
  }
  return "?";
}

bool ValidStageName(const std::string& name) {
  return ValidNameText(name, kMaxStageNameBytes);
}

}  // namespace tq
