// How the daemon rides out a store that fails (a full disk, a lost or slow connection, an I/O
// error): timed work that failed waits a growing pause before it tries again, instead of trying
// at once and forever, and the failures cost one log line per 10 s, not the disk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/model/clock.h"
#include "daemon/host/log_throttle.h"

namespace tq {

/// The pause and the log of one kind of work the store or the disk can fail (a turn of
/// dispatch, the start of attempts). Work notes each failure
/// as it meets it, then ends its round; a round with a failure grows the pause, one without ends
/// it.
class StoreFaults {
 public:
  /// The first pause, and the longest one.
  static constexpr int64_t kFirstPauseMs = 100;
  static constexpr int64_t kMaxPauseMs = 10 * 1000;
  /// At most one failure line per this long.
  static constexpr int64_t kLogIntervalMs = 10 * 1000;

  /// `recovered` is logged when a round works after failed ones ("the store takes writes
  /// again").
  StoreFaults(const Clock& clock, std::string recovered)
      : clock_(clock), log_(clock, kLogIntervalMs), recovered_(std::move(recovered)) {}

  /// A store call of this round failed with `message`: logged as an error unless a line went
  /// out in the last 10 s (then counted, and named in the next line). True when it was logged.
  bool Failed(const std::string& message);
  /// Ends a round: after a failure the pause doubles (up to 10 s) and runs from now; after none
  /// it ends, and a store that had failed is logged as working again.
  void EndRound();
  /// The pause after one of `pause_ms` (0: none yet): the first, or twice it up to the longest.
  static int64_t NextPause(int64_t pause_ms);
  /// The monotonic time before which timed work should not try again; nullopt when none.
  std::optional<MonoMs> PausedUntil() const;
  /// The current pause (0 when the store works).
  int64_t pause_ms() const { return pause_ms_; }

 private:
  const Clock& clock_;
  LogThrottle log_;
  std::string recovered_;
  bool failed_this_round_ = false;
  int64_t pause_ms_ = 0;
  MonoMs paused_until_ = 0;
  uint64_t failed_rounds_ = 0;
};

}  // namespace tq
