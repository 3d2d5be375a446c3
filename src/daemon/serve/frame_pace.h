// How fast a request must arrive: every frame whole within a bound, and a large one steadily, so
// that a client cannot keep the daemon holding (or keeping room for) a large frame it never ends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/model/clock.h"

namespace tq {

/// The pace a partial frame must keep, from its first byte.
struct FramePace {
  int64_t whole_ms = 10000;        ///< every frame must be whole within this
  size_t paced_bytes = 64u << 10;  ///< a frame announced larger than this must also keep arriving:
  size_t min_rate = 1u << 20;      ///< at least this many bytes a second on average,
  int64_t grace_ms = 1000;         ///< counted from this long after its first byte
};

/// When the partial frame whose first byte was read at `start` is late, unless more of it came:
/// `start + whole_ms`; for a frame announced as `frame_bytes` (4 + its length; 0 while the
/// length is unknown) over `paced_bytes`, earlier when the `received` bytes read since `start`
/// are too few: `start + grace_ms + received / min_rate`. More bytes only move it later, so a
/// timer set for it needs checking again when it fires.
MonoMs FrameDeadline(const FramePace& pace, MonoMs start, size_t frame_bytes, size_t received);

}  // namespace tq
