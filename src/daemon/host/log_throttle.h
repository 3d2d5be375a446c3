// Rate-limits a repeated log line, so a failure that repeats thousands of times a second (accept
// at the descriptor limit, a flood of refused clients) costs one line per interval, not the disk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/clock.h"
#include "daemon/host/log.h"

namespace tq {

/// Lets one line through per interval and counts the ones it held back. One throttle per kind
/// of message: the call site owns it.
class LogThrottle {
 public:
  /// At most one line per `interval_ms` of `clock`'s monotonic time.
  LogThrottle(const Clock& clock, int64_t interval_ms) : clock_(clock), interval_ms_(interval_ms) {}

  /// The line to log for `message` now, with "(N more suppressed)" when earlier ones were held
  /// back; nullopt when it is held back itself.
  std::optional<std::string> Admit(const std::string& message);
  /// Logs `message` at `level` when Admit lets it through.
  void Log(LogLevel level, const std::string& message);

 private:
  const Clock& clock_;
  int64_t interval_ms_;
  std::optional<MonoMs> last_;
  uint64_t suppressed_ = 0;
};

}  // namespace tq
