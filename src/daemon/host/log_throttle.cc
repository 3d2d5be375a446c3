#include "daemon/host/log_throttle.h"

namespace tq {

std::optional<std::string> LogThrottle::Admit(const std::string& message) {
  const MonoMs now = clock_.MonoNow();
  if (last_ && now - *last_ < interval_ms_) {
    ++suppressed_;
    return std::nullopt;
  }
  last_ = now;
  if (suppressed_ == 0) return message;
  std::string line = message + " (" + std::to_string(suppressed_) + " more suppressed)";
  suppressed_ = 0;
  return line;
}

void LogThrottle::Log(LogLevel level, const std::string& message) {
  if (auto line = Admit(message)) LogLine(level, *line);
}

}  // namespace tq
