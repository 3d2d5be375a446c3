// The event loop's timers: monotonic ones follow the monotonic clock, wall ones the wall clock,
// whose timerfd wakes the loop by itself. A wait on the loop (WaitFor, a call waiting for the
// store's answer) runs only the descriptors and timers marked to run during waits.
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

// Issue 49: a wait for PostgreSQL's answer blocked the whole loop (no ping, no watchdog, no
// timeout) for as long as the server did not answer.
TEST_CASE(
    "a wait on the loop runs what runs during waits, and nothing else, until its descriptor") {
  RealClock clock;
  EventLoop loop(clock);
  int awaited[2], served[2], other[2];
  REQUIRE(pipe(awaited) == 0);
  REQUIRE(pipe(served) == 0);
  REQUIRE(pipe(other) == 0);
  int served_calls = 0, other_calls = 0, during = 0, not_during = 0, deferred = 0;
  loop.Watch(
      served[0], EPOLLIN,
      [&](uint32_t) {
        char c;
        REQUIRE(read(served[0], &c, 1) == 1);
        ++served_calls;
        // What it answers lets the awaited descriptor become ready: the wait must run it first.
        REQUIRE(write(awaited[1], "x", 1) == 1);
      },
      EventLoop::DuringWaits::kYes);
  loop.Watch(other[0], EPOLLIN, [&](uint32_t) { ++other_calls; });
  loop.AddTimer(
      clock.MonoNow() + 20, [&] { ++during; }, EventLoop::DuringWaits::kYes);
  loop.AddTimer(clock.MonoNow() + 20, [&] { ++not_during; });
  loop.Defer(nullptr, [&] { ++deferred; });
  REQUIRE(write(other[1], "x", 1) == 1);

  // Nothing makes it ready: the wait runs the timer of waits and times out.
  CHECK(loop.WaitFor(awaited[0], EPOLLIN, 60) == 0);
  CHECK(during == 1);
  CHECK(not_during + other_calls + deferred + served_calls == 0);
  CHECK_FALSE(loop.waiting());

  // A descriptor of waits readies the awaited one: the wait ends with it.
  REQUIRE(write(served[1], "x", 1) == 1);
  CHECK(loop.WaitFor(awaited[0], EPOLLIN, 10'000) == 1);
  CHECK(served_calls == 1);
  CHECK(not_during + other_calls + deferred == 0);

  // The loop's own turn then runs all the rest.
  loop.RunReady();
  CHECK(not_during + other_calls + deferred == 3);
  for (int* p : {awaited, served, other}) {
    loop.Unwatch(p[0]);
    close(p[0]);
    close(p[1]);
  }
}

// Review of issue 49's waits: a wait inside a callback can close a descriptor and accept a new
// one under the same number; the batch's event for the old one then reached the new one.
TEST_CASE("an event of a descriptor closed and its number watched again in one batch is dropped") {
  RealClock clock;
  EventLoop loop(clock);
  int a[2], b[2];
  REQUIRE(pipe(a) == 0);
  REQUIRE(pipe(b) == 0);
  REQUIRE(write(a[1], "x", 1) == 1);
  REQUIRE(write(b[1], "x", 1) == 1);
  int renewed = -1, stale = 0;
  bool done = false;
  // The first callback to run closes the other pipe's read end and watches a new, empty pipe
  // whose read end takes that number: the batch's event for the old one must not reach it.
  auto first = [&](int* other) {
    if (done) return;
    done = true;
    const int number = other[0];
    loop.Unwatch(number);
    close(number);
    int fresh[2];
    REQUIRE(pipe(fresh) == 0);
    REQUIRE(fresh[0] == number);
    renewed = fresh[0];
    other[0] = fresh[0];
    close(other[1]);
    other[1] = fresh[1];
    loop.Watch(renewed, EPOLLIN, [&](uint32_t) { ++stale; });
  };
  loop.Watch(a[0], EPOLLIN, [&](uint32_t) { first(b); });
  loop.Watch(b[0], EPOLLIN, [&](uint32_t) { first(a); });
  loop.RunReady();
  CHECK(renewed >= 0);
  CHECK(stale == 0);
  for (int* p : {a, b}) {
    loop.Unwatch(p[0]);
    close(p[0]);
    close(p[1]);
  }
}

TEST_CASE("waiting() is true only inside a wait, and a wait inside a wait waits for its own") {
  RealClock clock;
  EventLoop loop(clock);
  bool inside = false;
  int nested = -2;
  loop.AddTimer(
      clock.MonoNow(),
      [&] {
        inside = loop.waiting();
        nested = loop.WaitFor(-1, 0, 5);  // for the time alone, by poll
      },
      EventLoop::DuringWaits::kYes);
  CHECK(loop.WaitFor(-1, 0, 50) == 0);
  CHECK(inside);
  CHECK(nested == 0);
  CHECK_FALSE(loop.waiting());
}

}  // namespace
}  // namespace tq
