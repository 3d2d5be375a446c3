#include "core/metrics/minute_history.h"

namespace tq {

void MinuteHistory::Observe(const MinuteSample& sample) {
  samples_.push_back(sample);
  while (samples_.size() > kMaxSamples) samples_.pop_front();
}

}  // namespace tq
