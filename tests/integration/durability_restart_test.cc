// Restarts and crashes lose nothing (SPEC 6, issue 4): tasks running through a kill -9 of tqd are
// re-attached and end once with their whole output and their real pid; a task that ends while
// tqd is down is collected with its real exit code; a SIGTERM of tqd leaves tasks running, and
// cancel and timeout still work on the tasks the restarted daemon re-attached; a restart right
// after a kill -9 waits for the state lock a half-started child of the dead daemon still holds.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE(
    "three tasks running through a kill -9 of tqd succeed once each with their whole output") {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string flag = d.dir() + "/flag";
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(Submit(d, {"--", "sh", "-c",
                             "echo $$ > " + Quoted(d.dir()) + "/pid.$TQ_TASK_ID; while [ ! -e " +
                                 Quoted(flag) + " ]; do sleep 0.05; done; echo done-$TQ_TASK_ID"}));
  std::map<std::string, pid_t> pids;
  for (const std::string& id : ids) pids[id] = WaitPidFile(d.dir() + "/pid." + id);

  d.Kill9();
  for (const std::string& id : ids) CHECK_FALSE(ProcessGone(pids[id]));
  d.Start();
  d.WaitReady();
  for (const std::string& id : ids) CHECK(TaskState(d, id) == "running");
  WriteFile(flag, "");

  for (const std::string& id : ids) {
    CAPTURE(id);
    CHECK(Tq(d, {"wait", id}).exit_code == 0);
    const nlohmann::json t = TaskJson(d, id);
    CHECK(t["state"] == "succeeded");
    CHECK(t["attempts"] == 1);
    REQUIRE(t["attempt_log"].size() == 1);
    const nlohmann::json& a = t["attempt_log"][0];
    CHECK(a["reason"] == "exit");
    CHECK(a["exit_code"] == 0);
    CHECK(a["pid"] == pids[id]);
    CHECK(Tq(d, {"logs", id}).out == "done-" + id + "\n");
  }
}

TEST_CASE("a task that ends while tqd is down is collected at the next start with its exit code") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string flag = d.dir() + "/flag";
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--", "sh", "-c",
                 "echo $$ > " + Quoted(pidfile) + "; while [ ! -e " + Quoted(flag) +
                     " ]; do sleep 0.05; done; echo ended-while-tqd-was-down; exit 7"});
  const pid_t pid = WaitPidFile(pidfile);

  d.Kill9();
  WriteFile(flag, "");
  // The shim writes its final record when the task is gone; tqd is not there to see it.
  const std::string record = RecordPath(d, id);
  REQUIRE(WaitFor([&] { return ReadFile(record).find("\nfinished=1\n") != std::string::npos; }));
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
  d.Start();
  d.WaitReady();

  CHECK(Tq(d, {"wait", id}).exit_code == 7);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "exit");
  CHECK(t["exit_code"] == 7);
  CHECK(t["attempts"] == 1);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "exit");
  CHECK(t["attempt_log"][0]["exit_code"] == 7);
  CHECK(t["attempt_log"][0]["pid"] == pid);
  CHECK(Tq(d, {"logs", id}).out == "ended-while-tqd-was-down\n");
}

TEST_CASE("a SIGTERM of tqd leaves tasks running and the restarted daemon cancels and times out") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pa = d.dir() + "/a.pid", pb = d.dir() + "/b.pid";
  const std::string a =
      Submit(d, {"--", "sh", "-c", "echo $$ > " + Quoted(pa) + "; echo started-a; exec sleep 600"});
  const std::string b = Submit(d, {"--timeout", "5s", "--", "sh", "-c",
                                   "echo $$ > " + Quoted(pb) + "; echo started-b; exec sleep 600"});
  const pid_t pid_a = WaitPidFile(pa), pid_b = WaitPidFile(pb);

  d.Stop();
  CHECK_FALSE(ProcessGone(pid_a));
  CHECK_FALSE(ProcessGone(pid_b));
  d.Start();
  d.WaitReady();
  CHECK(TaskState(d, a) == "running");  // re-attached, not lost

  const RunResult cancel = Tq(d, {"cancel", a});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  const nlohmann::json ta = TaskJson(d, a);
  CHECK(ta["state"] == "cancelled");
  CHECK(ta["reason"] == "cancelled");
  CHECK(ta["attempts"] == 1);
  REQUIRE(ta["attempt_log"].size() == 1);
  CHECK(ta["attempt_log"][0]["reason"] == "cancelled");
  CHECK(ta["attempt_log"][0]["pid"] == pid_a);
  CHECK(WaitFor([&] { return ProcessGone(pid_a); }));
  CHECK(Tq(d, {"logs", a}).out == "started-a\n");

  CHECK(Tq(d, {"wait", b}).exit_code == 124);
  const nlohmann::json tb = TaskJson(d, b);
  CHECK(tb["state"] == "failed");
  CHECK(tb["reason"] == "timeout");
  CHECK(tb["attempts"] == 1);
  REQUIRE(tb["attempt_log"].size() == 1);
  CHECK(tb["attempt_log"][0]["reason"] == "timeout");
  CHECK(tb["attempt_log"][0]["pid"] == pid_b);
  CHECK(WaitFor([&] { return ProcessGone(pid_b); }));
  CHECK(Tq(d, {"logs", b}).out == "started-b\n");
}

TEST_CASE("tqd waits for a state lock held a moment longer by what its killed predecessor left") {
  // A tqd killed while it starts a shim leaves the lock to that child until the child's exec
  // closes it. Played here by the test: it holds the lock with a dead pid in the file.
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  Process gone({"/bin/sh", "-c", "exit 0"}, {});
  const pid_t dead = gone.pid();
  REQUIRE(gone.Finish().exit_code == 0);
  const std::string lock = d.state_dir() + "/tqd.lock";
  const int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(flock(fd, LOCK_EX) == 0);
  const std::string holder = std::to_string(dead) + "\n";
  REQUIRE(ftruncate(fd, 0) == 0);
  REQUIRE(pwrite(fd, holder.data(), holder.size(), 0) == static_cast<ssize_t>(holder.size()));

  const size_t log_before = d.Log().size();
  d.Start();
  const bool waiting = WaitFor([&] {
    return d.Log().find("waiting for it", log_before) != std::string::npos || !d.Alive();
  });
  close(fd);
  CHECK(waiting);
  d.WaitReady();
  const std::string id = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
}
