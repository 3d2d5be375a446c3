// Fairness across users under a small cap (SPEC 4, 8): with one slot every user has 0 running
// each time it frees, so the chooser must also weigh who was served least recently, or one
// user's flood of older tasks takes every start.
#include <sys/stat.h>

#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("with max_running 1, a user's 3 tasks start within 10 starts of another's 300") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser a, b;
  // high_share 1: every pick takes the fair branch, so the order is the same on every run.
  TestDaemon d("max_running = 1\nhigh_share = 1.0\n[queues.q]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  const std::string log = d.dir() + "/starts";
  WriteFile(log, "");
  REQUIRE(chmod(log.c_str(), 0666) == 0);
  // Paused: both users' tasks are waiting before the first one starts.
  REQUIRE(Tq(d, {"queue", "pause", "q"}).exit_code == 0);
  std::string lines;
  for (int i = 0; i < 300; ++i) lines += "echo A >> " + log + "\n";
  const RunResult flood = TqAs(d, a.run_as(), {"submit", "--batch", "--queue", "q"}, {}, lines);
  REQUIRE(flood.exit_code == 0);
  for (int i = 0; i < 3; ++i) SubmitAs(d, b, {"--queue", "q", "--shell", "echo B >> " + log});
  REQUIRE(Tq(d, {"queue", "resume", "q"}).exit_code == 0);

  const auto b_count = [&] {
    int n = 0;
    for (const std::string& line : FileLines(log)) n += line == "B";
    return n;
  };
  REQUIRE(WaitFor([&] { return b_count() == 3; }, 120));
  const std::vector<std::string> starts = FileLines(log);
  size_t third_b = 0;
  for (int seen = 0; third_b < starts.size(); ++third_b)
    if (starts[third_b] == "B" && ++seen == 3) break;
  CAPTURE(third_b);
  CHECK(third_b < 10);  // 0-based: within the first ten starts
}
