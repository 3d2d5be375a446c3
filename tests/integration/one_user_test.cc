// One user against everyone (SPEC 8, 9): what a single unprivileged request may make the system
// daemon hold or do is bounded, so no user can crash or stall it for the others.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/jobs.h"
#include "support/raw_client.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The resident set of `pid` in KiB, from /proc/PID/status; -1 when it cannot be read.
long RssKiB(pid_t pid) {
  for (const std::string& line : FileLines("/proc/" + std::to_string(pid) + "/status"))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// `{"proto":1,"type":TYPE,"ids":[ID, ID, ...]}` with `copies` copies of `id`.
std::string RepeatedIds(const std::string& type, const std::string& id, int copies) {
  std::string ids;
  for (int i = 0; i < copies; ++i) ids += (i ? "," : "") + id;
  return R"({"proto":1,"type":")" + type + R"(","ids":[)" + ids + "]}";
}

}  // namespace

TEST_CASE("an id sent 100,000 times is read once: tqd neither grows nor stalls") {
  // Under AddressSanitizer what tqd frees stays resident in its quarantine (256 MiB): a small
  // one leaves the resident set to what tqd holds (a release build ignores the option).
  const char* asan = std::getenv("ASAN_OPTIONS");
  TestDaemon d("", {"/usr/bin/env", std::string("ASAN_OPTIONS=") + (asan ? asan : "") +
                                        (asan && *asan ? ":" : "") + "quarantine_size_mb=16"});
  TQ_LOG_ON_FAILURE(d);
  // The largest task there can be: 8 MiB of stdin, pending an hour.
  const RunResult big = RunTq(d.socket(), {"submit", "--stdin", "--delay", "1h", "--", "cat"}, {},
                              std::string(8u << 20, 'x'));
  REQUIRE_MESSAGE(big.exit_code == 0, big.err);
  const std::string id = big.out.substr(0, big.out.find('\n'));
  const pid_t tqd = d.DaemonPid();
  const long before = RssKiB(tqd);
  REQUIRE(before > 0);

  RawClient waiter(d.socket());
  REQUIRE(waiter.SendFrame(RepeatedIds("wait", id, 100000)));
  // Another user's ping meanwhile: answered (its latency is printed, never asserted).
  const auto start = std::chrono::steady_clock::now();
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  const double ping_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("ping during a wait of 100,000 copies of one id: " << ping_ms << " ms");

  RawClient canceller(d.socket());
  REQUIRE(canceller.SendFrame(RepeatedIds("cancel", id, 400)));
  const auto cancelled = canceller.ReadFrame(kWaitTimeoutS);
  REQUIRE(cancelled.has_value());
  INFO(cancelled->dump().substr(0, 400));
  CHECK((*cancelled)["ok"] == true);
  REQUIRE((*cancelled)["tasks"].is_array());
  CHECK((*cancelled)["tasks"].size() == 1);  // one task, answered once

  const auto first = waiter.ReadFrame(kWaitTimeoutS);
  REQUIRE(first.has_value());
  CHECK((*first)["ok"] == true);
  CHECK((*first)["task"]["id"].dump() == id);
  const auto end = waiter.ReadFrame(kWaitTimeoutS);
  REQUIRE(end.has_value());
  CHECK((*end)["end"] == true);

  const long after = RssKiB(tqd);
  MESSAGE("tqd RSS " << before << " KiB before, " << after << " KiB after");
  // Loading the 8 MiB task once per copy took hundreds of MiB; a summary once takes nothing.
  CHECK(after - before < 64 * 1024);
  CHECK(d.Alive());
}

TEST_CASE(
    "300 jobs firing every second: clients are answered between batches, the log stays short" *
    doctest::test_suite("long")) {
  TestDaemon d("[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  std::string file;
  for (int i = 0; i < 300; ++i)
    file += JobFile("tick" + std::to_string(i), "* * * * * *", "true", {"queue = \"held\""});
  d.WriteJobFile("ticks.toml", file);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);  // each job keeps one pending run
  Reload(d);
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick299").size() == 1; }));
  // Another client's pings while every job fires each second (latency printed, never asserted).
  double worst_ms = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  int pings = 0;
  while (std::chrono::steady_clock::now() < until) {
    const auto start = std::chrono::steady_clock::now();
    CHECK(Tq(d, {"ping"}).exit_code == 0);
    worst_ms =
        std::max(worst_ms,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    ++pings;
  }
  MESSAGE("ping while 300 jobs fire every second: worst " << worst_ms << " ms of " << pings);
  // A line per firing at most ten times a second, the rest counted in the next line.
  size_t firing_lines = 0;
  const std::string log = d.Log();
  for (size_t at = log.find(": firing of "); at != std::string::npos;
       at = log.find(": firing of ", at + 1))
    ++firing_lines;
  CHECK(firing_lines < 300);
  CHECK(d.Log().find("more suppressed") != std::string::npos);
}
