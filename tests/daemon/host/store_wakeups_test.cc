#include "daemon/host/store_wakeups.h"

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

// Runs `loop` until `done` holds; false when ten seconds passed first.
bool RunUntil(EventLoop& loop, const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    loop.RunReady();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST_CASE("wake-ups: one host's announcements wake the others, never itself") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  RealClock clock;
  EventLoop loop(clock);
  int a_woken = 0, b_woken = 0, c_woken = 0;
  StoreWakeups a(loop, clock, server->Conninfo(), [&] { ++a_woken; });
  StoreWakeups b(loop, clock, server->Conninfo(), [&] { ++b_woken; });
  StoreWakeups c(loop, clock, server->Conninfo(), [&] { ++c_woken; });
  a.Start();
  b.Start();
  c.Start();
  // Each looks once as its LISTEN takes effect: what changed before it listened.
  REQUIRE(RunUntil(loop, [&] { return a_woken == 1 && b_woken == 1 && c_woken == 1; }));

  // Many announcements in one turn of the loop: one notification, each other host woken.
  for (int i = 0; i < 100; ++i) a.Announce();
  CHECK(RunUntil(loop, [&] { return b_woken == 2 && c_woken == 2; }));
  b.Announce();
  CHECK(RunUntil(loop, [&] { return a_woken == 2 && c_woken == 3; }));
  // Its own announcements never woke a host.
  CHECK(a_woken == 2);
  CHECK(b_woken == 2);
}

TEST_CASE("wake-ups: a server that cannot be reached wakes nobody and stops nothing") {
  RealClock clock;
  EventLoop loop(clock);
  int woken = 0;
  StoreWakeups w(loop, clock, "host=/nonexistent port=1 user=tq dbname=tq connect_timeout=1",
                 [&] { ++woken; });
  w.Start();
  w.Announce();  // kept until a connection is made; nothing fails
  loop.RunReady();
  CHECK(woken == 0);
}

}  // namespace
}  // namespace tq
