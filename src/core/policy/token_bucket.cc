#include "core/policy/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace tq {

int64_t TokenBucket::Take(int64_t count, MonoMs now, double rate, int64_t burst) {
  const double cap = static_cast<double>(burst);
  if (tokens_ < 0) {
    tokens_ = cap;
  } else if (now > last_) {
    tokens_ = std::min(cap, tokens_ + rate * static_cast<double>(now - last_) / 1000.0);
  }
  tokens_ = std::min(tokens_, cap);  // a lowered burst applies at once
  last_ = std::max(last_, now);
  if (count > burst) return -1;
  const double want = static_cast<double>(count);
  if (tokens_ >= want) {
    tokens_ -= want;
    return 0;
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((want - tokens_) * 1000.0 / rate)));
}

}  // namespace tq
