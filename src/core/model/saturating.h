// Saturating arithmetic for deadlines: now + a huge duration is the far future, never the past.
#pragma once

#include <cstdint>
#include <limits>

namespace tq {

/// a + b, or the largest (smallest) int64_t when the sum would overflow (underflow).
constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace tq
