// A log line that a flood cannot multiply: at most one line per period, the rest counted into
// the next one, each line written whole (one write under a lock, never interleaved between the
// server's threads).
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace tq {

/// Lines of one kind on standard error, at most one per `period`.
class QuietLog {
 public:
  explicit QuietLog(std::chrono::seconds period = std::chrono::seconds(10)) : period_(period) {}

  /// Writes "tq web: " + `line` now, or counts it when a line was written within the period; a
  /// line written after others were counted says how many.
  void Note(const std::string& line);

 private:
  const std::chrono::steady_clock::duration period_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
  bool written_ = false;
  unsigned held_back_ = 0;  ///< lines counted since the last one written
};

}  // namespace tq
