// `tq wait` exit codes (SPEC 10): the task's own code, 128+signal, 127 when it cannot be
// executed, 125 when it never ran, 4 for an unknown id; the first failed id decides.
#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("tq wait exits with the task's own exit code") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sh", "-c", "exit 7"});
  const RunResult wait = Tq(d, {"wait", id});
  CHECK(wait.exit_code == 7);
  CHECK(wait.out == "");
  CHECK(wait.err.find(id) != std::string::npos);  // the failure is described on stderr
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 7);
}

TEST_CASE("tq wait exits 128+signal for a task killed by a signal") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sh", "-c", "kill -TERM $$"});
  CHECK(Tq(d, {"wait", id}).exit_code == 143);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "signal");
  CHECK(t["signal"] == 15);
}

TEST_CASE("a task that runs past --timeout fails with reason timeout and tq wait exits 124") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--timeout", "1s", "--", "sleep", "600"});
  CHECK(Tq(d, {"wait", id}).exit_code == 124);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "timeout");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "timeout");
}

TEST_CASE("a command that cannot be executed ends failed with spawn-failed and tq wait exits 127") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "/nonexistent/prog", "arg"});
  CHECK(Tq(d, {"wait", id}).exit_code == 127);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "spawn-failed");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "spawn-failed");
}

TEST_CASE("a file that is not executable: tq wait exits 126") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string path = d.dir() + "/not-executable";
  WriteFile(path, "#!/bin/sh\nexit 0\n");
  const std::string id = Submit(d, {"--", path});
  CHECK(Tq(d, {"wait", id}).exit_code == 126);
  CHECK(TaskJson(d, id)["reason"] == "spawn-failed");
}

TEST_CASE("a task cancelled while pending: tq wait exits 125") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK(cancel.exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 125);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  CHECK(t["reason"] == "cancelled");
  CHECK(t["attempts"] == 0);
}

TEST_CASE("tq wait on several ids: the first failed id in argument order decides") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok = Submit(d, {"--", "true"});
  const std::string seven = Submit(d, {"--", "sh", "-c", "exit 7"});
  const std::string three = Submit(d, {"--", "sh", "-c", "exit 3"});
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);
  CHECK(Tq(d, {"wait", ok, seven, three}).exit_code == 7);
  CHECK(Tq(d, {"wait", three, seven, ok}).exit_code == 3);
  CHECK(Tq(d, {"wait", ok, ok}).exit_code == 0);

  const RunResult json = Tq(d, {"wait", "--json", ok, three});
  CHECK(json.exit_code == 3);
  const auto lines = JsonLines(json.out);  // one line per task, in argument order
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["id"] == std::stoll(ok));
  CHECK(lines[1]["id"] == std::stoll(three));
}

TEST_CASE("tq wait on an id that does not exist exits 4") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult wait = Tq(d, {"wait", "999999"});
  CHECK(wait.exit_code == 4);
  CHECK(wait.err.find("999999") != std::string::npos);
  const std::string ok = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", ok, "999999"}).exit_code == 4);
}
