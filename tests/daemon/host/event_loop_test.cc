// The event loop's timers: monotonic ones follow the monotonic clock, wall ones the wall clock,
// whose timerfd wakes the loop by itself.
#include "daemon/host/event_loop.h"

#include <doctest/doctest.h>

#include "support/fake_clock.h"

namespace tq {
namespace {

TEST_CASE("a wall timer fires when the wall clock reaches it, a monotonic one only by time") {
  FakeClock clock;
  EventLoop loop(clock);
  int wall = 0, mono = 0;
  loop.AddWallTimer(clock.WallNow() + 1000, [&] { ++wall; });
  loop.AddTimer(clock.MonoNow() + 1000, [&] { ++mono; });
  loop.RunReady();
  CHECK(wall + mono == 0);

  clock.StepWall(1000);
  loop.RunReady();
  CHECK(wall == 1);
  CHECK(mono == 0);
  clock.Advance(1000);
  loop.RunReady();
  CHECK(wall == 1);
  CHECK(mono == 1);
}

TEST_CASE("a cancelled wall timer never fires, and a stepped-back clock holds it back") {
  FakeClock clock;
  EventLoop loop(clock);
  int fired = 0;
  const auto id = loop.AddWallTimer(clock.WallNow() + 10, [&] { ++fired; });
  loop.AddWallTimer(clock.WallNow() + 20, [&] { ++fired; });
  loop.CancelTimer(id);
  clock.StepWall(-60'000);
  clock.Advance(60'019);  // wall is 1 ms short of the second timer
  loop.RunReady();
  CHECK(fired == 0);
  clock.Advance(1);
  loop.RunReady();
  CHECK(fired == 1);
}

TEST_CASE("a wall timer wakes a loop that has nothing else to wait for") {
  // The loop's wait ends at its monotonic deadlines only; the realtime timerfd wakes it for the
  // wall timer. The guard (checked first when both are due) ends the test if it never does.
  RealClock clock;
  EventLoop loop(clock);
  bool fired = false, guard = false;
  loop.AddTimer(clock.MonoNow() + 30'000, [&] {
    guard = true;
    loop.Stop();
  });
  loop.AddWallTimer(clock.WallNow() + 20, [&] {
    fired = true;
    loop.Stop();
  });
  loop.Run();
  CHECK(fired);
  CHECK_FALSE(guard);
}

}  // namespace
}  // namespace tq
