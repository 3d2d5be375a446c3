// A clock the test moves by hand: wall and monotonic time advance together, or the wall clock
// alone is stepped as an administrator or NTP would.
#pragma once

#include "core/model/clock.h"

namespace tq {

/// Starts at `wall` (ms since the epoch); Advance moves both clocks.
class FakeClock : public Clock {
 public:
  explicit FakeClock(WallMs wall = 1'800'000'000'000) : wall_(wall) {}
  WallMs WallNow() const override { return wall_; }
  MonoMs MonoNow() const override { return mono_; }
  /// Moves time forward by `ms`.
  void Advance(int64_t ms) {
    wall_ += ms;
    mono_ += ms;
  }
  /// Steps the wall clock by `ms` (either way) while no monotonic time passes.
  void StepWall(int64_t ms) { wall_ += ms; }

 private:
  WallMs wall_;
  MonoMs mono_ = 1'000'000;
};

}  // namespace tq
