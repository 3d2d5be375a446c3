// A token bucket: what submit_rate and submit_burst of [user_limits] allow one user (SPEC 8).
#pragma once

#include <cstdint>

#include "core/model/clock.h"

namespace tq {

/// Holds up to `burst` tokens, refilled at `rate` a second; each task submitted takes one. A new
/// bucket is full.
class TokenBucket {
 public:
  /// Takes `count` tokens at `now` when the bucket holds that many (0 returned); otherwise
  /// takes none and returns the milliseconds until it would (at least 1). A `count` above
  /// `burst` never fits: -1.
  int64_t Take(int64_t count, MonoMs now, double rate, int64_t burst);

 private:
  double tokens_ = -1;  ///< < 0 until first used: full
  MonoMs last_ = 0;     ///< when tokens_ was last brought up to date
};

}  // namespace tq
