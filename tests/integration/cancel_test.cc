// Cancelling a running task ends all its processes, including ones that left its process group
// with setsid(); a task that ignores TERM is killed after kill_grace.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("cancelling a running task ends its grandchildren even in another session") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gc = d.dir() + "/gc.pid", gc2 = d.dir() + "/gc2.pid";
  const std::string script = "sh -c 'echo $$ > " + gc + "; exec sleep 1000' & " +
                             "setsid sh -c 'echo $$ > " + gc2 + "; exec sleep 1000' & wait";
  const std::string id = Submit(d, {"--", "sh", "-c", script});
  const pid_t p1 = WaitPidFile(gc);
  const pid_t p2 = WaitPidFile(gc2);
  CHECK(TaskState(d, id) == "running");

  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(cancel.out.find(id) != std::string::npos);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  CHECK(t["reason"] == "cancelled");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "cancelled");
  CHECK(WaitFor([&] { return ProcessGone(p1); }));
  CHECK(WaitFor([&] { return ProcessGone(p2); }));
  CHECK(Tq(d, {"wait", id}).exit_code == 128 + 15);  // it was ended by TERM
}

TEST_CASE("a task that ignores TERM is killed after kill_grace") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--", "sh", "-c", "trap '' TERM; echo $$ > " + pidfile + "; exec sleep 1000"});
  const pid_t pid = WaitPidFile(pidfile);
  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["signal"] == 9);  // TERM was ignored: KILL ended it
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
}

TEST_CASE("cancelling a pending task and a task that already ended") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string done = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", done}).exit_code == 0);
  const std::string later = Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult cancel = Tq(d, {"cancel", "--json", later, done});
  CHECK(cancel.exit_code == 0);
  const auto lines = JsonLines(cancel.out);
  CHECK(lines.size() == 2);
  CHECK(TaskState(d, later) == "cancelled");
  CHECK(TaskState(d, done) == "succeeded");  // a terminal task stays as it was
  CHECK(Tq(d, {"cancel", "999999"}).exit_code == 4);
}
