// The event loop's timers: monotonic ones follow the monotonic clock, wall ones the wall clock,
// whose timerfd wakes the loop by itself.
#include "daemon/host/event_loop.h"

#include <doctest/doctest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <functional>

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

TEST_CASE("a timer that re-arms itself already due waits for the next pass: descriptors go first") {
  // A store that keeps failing made dispatch re-arm its timer at a time already past: the loop
  // ran it again and again inside one pass and never read a client.
  RealClock clock;
  EventLoop loop(clock);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  REQUIRE(write(fds[1], "x", 1) == 1);
  int fired = 0;
  bool read_it = false;
  std::function<void()> again = [&] {
    ++fired;
    if (!read_it && fired < 100'000) loop.AddWallTimer(clock.WallNow() - 1000, again);
  };
  loop.AddWallTimer(clock.WallNow() - 1000, again);
  loop.Watch(fds[0], EPOLLIN, [&](uint32_t) {
    read_it = true;
    loop.Stop();
  });
  loop.Run();
  CHECK(read_it);
  CHECK(fired <= 2);
  loop.Unwatch(fds[0]);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace tq
