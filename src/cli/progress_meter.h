// The progress bar `tq wait` draws in place on a terminal while it waits.
#pragma once

#include <cstdio>
#include <functional>

#include "cli/progress_line.h"
#include "core/model/clock.h"

namespace tq {

/// Counts tasks as they end and redraws their progress line in place (carriage return) at most
/// ten times a second, and once a second while nothing ends; cleared when destroyed.
class ProgressMeter {
 public:
  /// A meter of `total` tasks, waited for since `start`, drawn on `out` (nullptr: never drawn)
  /// for a terminal `columns()` wide (asked at each draw); the line stays short of the last
  /// column, where terminals wrap.
  ProgressMeter(FILE* out, std::function<size_t()> columns, size_t total, MonoMs start);
  /// Clears the line.
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  /// One task ended at `now` (`failed`: not successfully); redraws if one is due.
  void Ended(bool failed, MonoMs now);
  /// Redraws if one is due at `now`.
  void Tick(MonoMs now);
  /// Milliseconds from `now` until a redraw is due (0: now); -1 when the meter never draws.
  int MsUntilDue(MonoMs now) const;
  /// Erases the line and leaves the cursor at its start; the meter draws nothing after it.
  void Clear();

 private:
  void Draw(MonoMs now);

  FILE* out_;
  std::function<size_t()> columns_;
  WaitCounts counts_;
  MonoMs start_;
  bool drawn_ = false;  // something is on the line
  bool dirty_ = true;   // counts changed since the last draw
  MonoMs last_draw_ = 0;
};

/// The columns of the terminal on stderr; 80 when it does not say.
size_t StderrColumns();

}  // namespace tq
