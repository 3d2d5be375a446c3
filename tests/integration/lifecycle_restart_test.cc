// The lifecycle survives a restart of the daemon (SPEC 6): a task waiting between retries goes
// on retrying, a running task's timeout is still enforced, a pending task's ttl still runs out,
// and a running dependency adopted by the new daemon still fails its dependents.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("a task waiting between retries goes on retrying after a daemon restart") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string runs = d.dir() + "/runs";
  const std::string id = Submit(
      d, {"--retries", "2", "--backoff", "fixed", "--backoff-base", "1s", "--no-jitter", "--", "sh",
          "-c", "n=$(( $(cat \"$1\" 2>/dev/null || echo 0) + 1 )); echo $n > \"$1\"; [ $n -ge 3 ]",
          "sh", runs});
  REQUIRE(WaitFor([&] { return !TaskJson(d, id)["attempt_log"].empty(); }));
  d.Restart();
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 3);
  CHECK(t["attempt_log"].size() == 3);
  CHECK(ReadFile(runs) == "3\n");
}

TEST_CASE("a running task's timeout is enforced by the restarted daemon") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--timeout", "2s", "--", "sh", "-c", "echo $$ > " + pidfile + "; exec sleep 600"});
  std::string pid;
  REQUIRE(WaitFor([&] {
    pid = ReadFile(pidfile);
    return !pid.empty() && pid.back() == '\n';
  }));
  d.Restart();
  CHECK(Tq(d, {"wait", id}).exit_code == 124);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "timeout");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "timeout");
  CHECK(WaitFor([&] { return ProcessGone(static_cast<pid_t>(std::stol(pid))); }));
}

TEST_CASE("a pending task's ttl runs out after a daemon restart") {
  TestDaemon d("[queues.held]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string id = Submit(d, {"--queue", "held", "--pending-ttl", "2s", "--", "true"});
  const std::string dependent = Submit(d, {"--after", id, "--", "true"});
  d.Restart();
  CHECK(Tq(d, {"wait", id}).exit_code == 125);
  CHECK(TaskJson(d, id)["reason"] == "expired-pending");
  CHECK(Tq(d, {"wait", dependent}).exit_code == 125);
  CHECK(TaskJson(d, dependent)["reason"] == "dependency-failed");
}

TEST_CASE("a running dependency adopted across a restart still fails its chain when it fails") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go";
  const std::string a =
      Submit(d, {"--", "sh", "-c", "while [ ! -e '" + gate + "' ]; do sleep 0.05; done; exit 5"});
  const std::string b = Submit(d, {"--after", a, "--", "true"});
  const std::string c = Submit(d, {"--after", b, "--", "true"});
  REQUIRE(WaitState(d, a, "running"));
  d.Restart();
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", a}).exit_code == 5);
  CHECK(Tq(d, {"wait", c}).exit_code == 125);
  for (const std::string& id : {b, c}) {
    const nlohmann::json t = TaskJson(d, id);
    CHECK(t["state"] == "failed");
    CHECK(t["reason"] == "dependency-failed");
  }
}
