#include "daemon/host/log_throttle.h"

#include <spdlog/spdlog.h>

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

void LogThrottle::Log(spdlog::level::level_enum level, const std::string& message) {
  if (auto line = Admit(message)) spdlog::log(level, "{}", *line);
}

}  // namespace tq
