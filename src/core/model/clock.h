// The time seam: wall-clock and monotonic readings, real or fake.
#pragma once

#include <cstdint>

namespace tq {

/// Milliseconds since the Unix epoch (UTC); what the store and the protocol keep.
using WallMs = int64_t;
/// Milliseconds on the monotonic clock; only differences mean anything.
using MonoMs = int64_t;

/// Supplies the current time; the daemon takes one so tests can drive time by hand.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time: for not_before, created and finished stamps.
  virtual WallMs WallNow() const = 0;
  /// Monotonic time: for timeouts and grace periods, immune to clock steps.
  virtual MonoMs MonoNow() const = 0;
};

/// The system's CLOCK_REALTIME and CLOCK_MONOTONIC.
class RealClock : public Clock {
 public:
  WallMs WallNow() const override;
  MonoMs MonoNow() const override;
};

}  // namespace tq
