// Output is captured per stream and capped at output_max: the head and the tail are kept and the
// cut is marked (SPEC 2).
#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("output past output_max keeps the head and the tail and marks the cut") {
  TestDaemon d("output_max = \"4KiB\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "seq", "1", "100000"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  std::string full;
  for (int i = 1; i <= 100000; ++i) full += std::to_string(i) + "\n";
  const size_t half = 2048;
  const std::string expected = full.substr(0, half) +
                               "\n[tq: " + std::to_string(full.size() - 2 * half) +
                               " bytes cut]\n" + full.substr(full.size() - half);
  const RunResult logs = Tq(d, {"logs", id});
  CHECK(logs.exit_code == 0);
  CHECK(logs.out.size() == expected.size());
  CHECK(logs.out == expected);
}

TEST_CASE("output under output_max is kept whole on both streams") {
  TestDaemon d("output_max = \"4KiB\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sh", "-c", "seq 1 500; seq 1 600 >&2"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  std::string out, err;
  for (int i = 1; i <= 500; ++i) out += std::to_string(i) + "\n";
  for (int i = 1; i <= 600; ++i) err += std::to_string(i) + "\n";
  CHECK(out.size() < 4096);
  CHECK(Tq(d, {"logs", id}).out == out);
  CHECK(Tq(d, {"logs", id, "--stderr"}).out == err);
}

TEST_CASE("tq logs and tq logs -f return output larger than one response chunk whole") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "seq", "1", "300000"});  // about 2 MiB
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  std::string full;
  for (int i = 1; i <= 300000; ++i) full += std::to_string(i) + "\n";
  const RunResult logs = Tq(d, {"logs", id});
  CHECK(logs.exit_code == 0);
  CHECK(logs.out.size() == full.size());
  CHECK(logs.out == full);
  const RunResult follow = Tq(d, {"logs", "-f", id});
  CHECK(follow.exit_code == 0);
  CHECK(follow.out == full);
}

TEST_CASE("tq logs -f on a task that has not started yet waits for its output") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1s", "--", "echo", "later"});
  auto follow = TqBackground(d, {"logs", "-f", id});
  const RunResult r = follow->Finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "later\n");
  CHECK(TaskState(d, id) == "succeeded");
}
