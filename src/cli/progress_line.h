// The progress line of `tq wait` on a terminal, as text: pure, the clock's readings passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tq {

/// How far `tq wait` has got: tasks ended (of which `failed` did not succeed) out of `total`,
/// `elapsed_ms` after it started waiting.
struct WaitCounts {
  size_t done = 0;
  size_t failed = 0;
  size_t total = 0;
  int64_t elapsed_ms = 0;
};

/// Tasks ended per second since the wait started; nullopt before any time has passed.
std::optional<double> TasksPerSecond(const WaitCounts& c);
/// Milliseconds until the rest have ended at the rate so far: 0 once all have, nullopt while
/// none has (or no time has passed).
std::optional<int64_t> EtaMs(const WaitCounts& c);
/// A duration as a clock reads: "0:05", "12:34", "1:02:03" (rounded down to the second).
std::string ClockDuration(int64_t ms);

/// The progress line for a terminal `width` columns wide, never longer than `width`:
/// "[######....]  12/20 done  1 failed  2.4/s  elapsed 0:05  ETA 0:03". The bar (10 to 40
/// columns inside) leaves room for wider numbers, so its size stays put as they change; when it
/// does not fit it goes first, then elapsed, the rate, the ETA and the failed count; then the rest
/// is cut. The done count is as wide as the total.
std::string ProgressLine(const WaitCounts& c, size_t width);

}  // namespace tq
