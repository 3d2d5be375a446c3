#include "daemon/host/store_faults.h"

#include "daemon/host/log.h"

#include <algorithm>

namespace tq {

bool StoreFaults::Failed(const std::string& message) {
  failed_this_round_ = true;
  const std::optional<std::string> line = log_.Admit(message);
  if (line) LogError("{}", *line);
  return line.has_value();
}

void StoreFaults::EndRound() {
  if (failed_this_round_) {
    failed_this_round_ = false;
    ++failed_rounds_;
    pause_ms_ = NextPause(pause_ms_);
    paused_until_ = clock_.MonoNow() + pause_ms_;
    return;
  }
  if (failed_rounds_ > 0) LogInfo("{} (after {} failure(s))", recovered_, failed_rounds_);
  failed_rounds_ = 0;
  pause_ms_ = 0;
  paused_until_ = 0;
}

int64_t StoreFaults::NextPause(int64_t pause_ms) {
  return pause_ms == 0 ? kFirstPauseMs : std::min(pause_ms * 2, kMaxPauseMs);
}

std::optional<MonoMs> StoreFaults::PausedUntil() const {
  if (pause_ms_ == 0) return std::nullopt;
  return paused_until_;
}

}  // namespace tq
