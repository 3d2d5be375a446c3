#include "daemon/host/store_faults.h"

#include <doctest/doctest.h>

#include "support/fake_clock.h"

namespace tq {

TEST_CASE(
    "store faults: the pause doubles per failed round up to 10 s, and one that works ends it") {
  FakeClock clock;
  StoreFaults faults(clock, "the store takes writes again");
  CHECK_FALSE(faults.PausedUntil());
  faults.EndRound();  // a round that worked: no pause
  CHECK_FALSE(faults.PausedUntil());
  const int64_t expected[] = {100, 200, 400, 800, 1600, 3200, 6400, 10000, 10000, 10000};
  for (const int64_t pause : expected) {
    faults.Failed("a turn of dispatch is not stored: database or disk is full");
    faults.EndRound();
    CHECK(faults.pause_ms() == pause);
    REQUIRE(faults.PausedUntil());
    CHECK(*faults.PausedUntil() == clock.MonoNow() + pause);
    clock.Advance(pause);
  }
  faults.EndRound();
  CHECK(faults.pause_ms() == 0);
  CHECK_FALSE(faults.PausedUntil());
  faults.Failed("again");
  faults.EndRound();
  CHECK(faults.pause_ms() == 100);  // starts over
}

TEST_CASE("store faults: one line per 10 s, however many failures") {
  FakeClock clock;
  StoreFaults faults(clock, "the store takes writes again");
  int logged = 0;
  for (int ms = 0; ms < 30'000; ms += 50) {
    logged += faults.Failed("database or disk is full") ? 1 : 0;
    clock.Advance(50);
  }
  CHECK(logged == 3);
}

}  // namespace tq
