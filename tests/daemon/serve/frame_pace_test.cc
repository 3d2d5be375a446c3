#include "daemon/serve/frame_pace.h"

#include <doctest/doctest.h>

namespace tq {

TEST_CASE("a small frame has its whole time, and a large one must keep arriving at the rate") {
  const FramePace pace;  // whole in 10 s; past 64 KiB, 1 MiB/s after a second's grace
  constexpr MonoMs kStart = 5000;
  constexpr size_t kMiB = 1u << 20;
  struct Case {
    const char* what;
    size_t frame_bytes;
    size_t received;
    MonoMs deadline;
  };
  const Case cases[] = {
      {"length not known yet", 0, 2, kStart + 10000},
      {"a small frame, nothing more came", 1000, 4, kStart + 10000},
      {"a frame of exactly the paced size", 64u << 10, 100, kStart + 10000},
      {"a large frame with only its length", (64u << 10) + 1, 4, kStart + 1000},
      {"a large frame, 512 KiB came", 16 * kMiB, kMiB / 2, kStart + 1500},
      {"a large frame, 3 MiB came", 16 * kMiB, 3 * kMiB, kStart + 4000},
      {"a large frame well along: the whole bound", 16 * kMiB, 12 * kMiB, kStart + 10000},
      {"absurd counts do not overflow", 16 * kMiB, size_t(-1), kStart + 10000},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(FrameDeadline(pace, kStart, c.frame_bytes, c.received) == c.deadline);
  }
}

TEST_CASE("a pace without a rate has only the whole bound") {
  FramePace pace;
  pace.min_rate = 0;
  CHECK(FrameDeadline(pace, 0, 16u << 20, 0) == 10000);
}

}  // namespace tq
