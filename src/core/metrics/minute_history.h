// The last hour of tqd's totals, a sample a minute, kept in memory so the console's charts of
// tasks finished, queue wait and tasks running come from the daemon itself, not from how long a
// page has been open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "core/model/clock.h"

namespace tq {

/// tqd's totals at one moment; what happened between two samples is their difference.
struct MinuteSample {
  WallMs at = 0;            ///< when it was taken
  uint64_t succeeded = 0;   ///< tasks that succeeded since tqd started
  uint64_t failed = 0;      ///< tasks that failed since tqd started
  double wait_sum_s = 0;    ///< the queue wait of every start since tqd started, seconds
  uint64_t wait_count = 0;  ///< starts since tqd started
  int64_t running = 0;      ///< attempts running when it was taken
  bool operator==(const MinuteSample&) const = default;
};

/// The newest samples, oldest first: an hour of them at one a minute.
class MinuteHistory {
 public:
  static constexpr size_t kMaxSamples = 61;  ///< sixty minutes from the first to the last

  /// Keeps `sample` as the newest; the oldest goes when there are more than kMaxSamples.
  void Observe(const MinuteSample& sample);
  /// The samples kept, oldest first.
  std::vector<MinuteSample> samples() const { return {samples_.begin(), samples_.end()}; }

 private:
  std::deque<MinuteSample> samples_;
};

}  // namespace tq
