// tq retry (SPEC 5): failed and cancelled tasks re-queued by hand, one by one or in bulk, with
// a fresh retry budget and their earlier attempts kept; dependencies re-queued before their
// dependents.
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
std::set<std::string> Set(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("tq retry re-queues a failed task: it runs again and keeps its earlier attempts") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok_file = d.dir() + "/ok";
  const std::string id = Submit(d, {"--", "sh", "-c", "[ -e '" + ok_file + "' ]"});
  CHECK(Tq(d, {"wait", id}).exit_code == 1);
  REQUIRE(TaskState(d, id) == "failed");

  WriteFile(ok_file, "");
  const RunResult retry = Tq(d, {"retry", id});
  CHECK_MESSAGE(retry.exit_code == 0, retry.err);
  CHECK(retry.out == id + "\n");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  REQUIRE(t["attempt_log"].size() == 2);
  CHECK(t["attempt_log"][0]["exit_code"] == 1);
  CHECK(t["attempt_log"][1]["exit_code"] == 0);
  CHECK(t["attempt_log"][1]["number"] == 2);

  // A succeeded task is left as it is, named, and tq exits 1 (issue 9).
  const RunResult again = Tq(d, {"retry", id});
  CHECK(again.exit_code == 1);
  CHECK(again.out == "");
  CHECK(again.err.find("not failed or cancelled") != std::string::npos);
  CHECK(TaskState(d, id) == "succeeded");
  CHECK(TaskJson(d, id)["attempt_log"].size() == 2);

  // A cancelled task comes back too; an unknown id is not found.
  const std::string cancelled = Submit(d, {"--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"cancel", cancelled}).exit_code == 0);
  const RunResult rc = Tq(d, {"retry", cancelled});
  CHECK(rc.exit_code == 0);
  CHECK(rc.out == cancelled + "\n");
  CHECK(Tq(d, {"wait", cancelled}).exit_code == 0);  // pending at once: its --delay is dropped
  CHECK(TaskJson(d, cancelled)["attempt_log"].size() == 1);
  CHECK(Tq(d, {"retry", "999999"}).exit_code == 4);

  // The retried task gets a fresh retry budget: two more attempts with --retries 1.
  const std::string twice = Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base",
                                       "100ms", "--no-jitter", "--", "false"});
  CHECK(Tq(d, {"wait", twice}).exit_code == 1);
  CHECK(TaskJson(d, twice)["attempt_log"].size() == 2);
  CHECK(Tq(d, {"retry", twice}).out == twice + "\n");
  CHECK(Tq(d, {"wait", twice}).exit_code == 1);
  const nlohmann::json t4 = TaskJson(d, twice);
  CHECK(t4["state"] == "failed");
  CHECK(t4["attempt_log"].size() == 4);
}

TEST_CASE("tq retry --failed --queue re-queues only that queue's failed tasks") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok_file = d.dir() + "/ok";
  const std::vector<std::string> cmd = {"--", "sh", "-c", "[ -e '" + ok_file + "' ]"};
  auto submit = [&](const std::string& queue) {
    std::vector<std::string> args = {"--queue", queue};
    args.insert(args.end(), cmd.begin(), cmd.end());
    return Submit(d, args);
  };
  const std::string a1 = submit("qa"), a2 = submit("qa"), b1 = submit("qb");
  const std::string good = Submit(d, {"--queue", "qa", "--", "true"});
  CHECK(Tq(d, {"wait", a1, a2, b1}).exit_code == 1);
  CHECK(Tq(d, {"wait", good}).exit_code == 0);

  WriteFile(ok_file, "");
  const RunResult retry = Tq(d, {"retry", "--failed", "--queue", "qa"});
  CHECK_MESSAGE(retry.exit_code == 0, retry.err);
  CHECK(Set(Lines(retry.out)) == std::set<std::string>{a1, a2});
  CHECK(Tq(d, {"wait", a1, a2}).exit_code == 0);
  for (const std::string& id : {a1, a2}) CHECK(TaskJson(d, id)["attempt_log"].size() == 2);
  const nlohmann::json tb = TaskJson(d, b1);
  CHECK(tb["state"] == "failed");
  CHECK(tb["attempt_log"].size() == 1);
  CHECK(TaskJson(d, good)["attempt_log"].size() == 1);

  // Without --queue: every failed task, here the one left in qb.
  const RunResult all = Tq(d, {"retry", "--failed"});
  CHECK(all.exit_code == 0);
  CHECK(all.out == b1 + "\n");
  CHECK(Tq(d, {"wait", b1}).exit_code == 0);
}

TEST_CASE("tq retry --failed re-queues a failed chain head first and its dependents follow it") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok_file = d.dir() + "/ok";
  const std::string a = Submit(d, {"--", "sh", "-c", "[ -e '" + ok_file + "' ]"});
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  const std::string c = Submit(d, {"--after", b, "--queue", "other", "--", "true"});
  CHECK(Tq(d, {"wait", c}).exit_code == 125);
  CHECK(TaskJson(d, b)["reason"] == "dependency-failed");

  // A dependent alone cannot come back while what it waits for is still failed.
  const RunResult early = Tq(d, {"retry", b});
  CHECK(early.exit_code != 0);
  CHECK(early.out == "");
  CHECK_MESSAGE(early.err.find(a) != std::string::npos, early.err);
  CHECK(TaskState(d, b) == "failed");

  // Only the dependent in its own queue: its dependency is not re-queued, so it is left.
  const RunResult other = Tq(d, {"retry", "--failed", "--queue", "other"});
  CHECK(other.out == "");
  CHECK(TaskState(d, c) == "failed");

  WriteFile(ok_file, "");
  const RunResult all = Tq(d, {"retry", "--failed"});
  CHECK_MESSAGE(all.exit_code == 0, all.err);
  CHECK(Set(Lines(all.out)) == std::set<std::string>{a, b, c});
  CHECK(Tq(d, {"wait", a, b, c}).exit_code == 0);
  const nlohmann::json ta = TaskJson(d, a), tb = TaskJson(d, b), tc = TaskJson(d, c);
  REQUIRE(ta["attempt_log"].size() == 2);
  REQUIRE(tb["attempt_log"].size() == 1);
  REQUIRE(tc["attempt_log"].size() == 1);
  CHECK(TimeMs(tb["attempt_log"][0]["started"]) >= TimeMs(ta["attempt_log"][1]["ended"]));
  CHECK(TimeMs(tc["attempt_log"][0]["started"]) >= TimeMs(tb["attempt_log"][0]["ended"]));
}

TEST_CASE("tq retry of a dependent together with its dependency works in any order") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok_file = d.dir() + "/ok";
  const std::string a = Submit(d, {"--", "sh", "-c", "[ -e '" + ok_file + "' ]"});
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  CHECK(Tq(d, {"wait", b}).exit_code == 125);
  WriteFile(ok_file, "");
  const RunResult r = Tq(d, {"retry", b, a});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Set(Lines(r.out)) == std::set<std::string>{a, b});
  CHECK(Tq(d, {"wait", a, b}).exit_code == 0);
}
