#include "daemon/serve/frame_pace.h"

#include <algorithm>

namespace tq {

MonoMs FrameDeadline(const FramePace& pace, MonoMs start, size_t frame_bytes, size_t received) {
  const MonoMs whole = start + pace.whole_ms;
  if (frame_bytes <= pace.paced_bytes || pace.min_rate == 0) return whole;
  // Capped so the product cannot overflow: past whole_ms the first bound decides anyway.
  const int64_t earned_ms =
      static_cast<int64_t>(std::min<size_t>(received, size_t{1} << 40) * 1000 / pace.min_rate);
  return std::min(whole, start + pace.grace_ms + earned_ms);
}

}  // namespace tq
