// No process a task starts escapes it (SPEC 6): after cancel, after a timeout and when the main
// process exits, every descendant is gone once the task has ended, also those that called
// setsid() or ignore TERM; --keep-background leaves them running on purpose.
#include <doctest/doctest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The shell of the example: three descendants, in the task's group, in a session of
// their own and ignoring TERM, each writing its pid to DIR/NAME.pid; then `main`.
std::string LeavesDescendants(const std::string& dir, const std::string& main) {
  auto pid_to = [&](const std::string& name) {  // inside single quotes: double-quoted paths
    const std::string path = "\"" + dir + "/" + name;
    return "echo $$ > " + path + ".tmp\"; mv " + path + ".tmp\" " + path + ".pid\"";
  };
  return "sh -c '" + pid_to("grp") + "; exec sleep 1001' & setsid sh -c '" + pid_to("sid") +
         "; exec sleep 1002' & sh -c 'trap \"\" TERM; " + pid_to("ign") + "; exec sleep 1003' & " +
         main;
}

// Waits for the pids LeavesDescendants writes.
std::vector<pid_t> WaitDescendants(const TestDaemon& d) {
  std::vector<pid_t> pids;
  for (const char* name : {"grp", "sid", "ign"})
    pids.push_back(WaitPidFile(d.dir() + "/" + name + ".pid"));
  return pids;
}

// Checks, at once, that none of `pids` runs: the task ends only when all are gone.
void CheckAllGone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    CAPTURE(pid);
    CHECK(ProcessGone(pid));
  }
}

}  // namespace

TEST_CASE("after cancel no descendant runs, not even one in its own session that ignores TERM") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--shell", LeavesDescendants(d.dir(), "sleep 1000")});
  const std::vector<pid_t> pids = WaitDescendants(d);
  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  REQUIRE(WaitState(d, id, "cancelled"));
  CheckAllGone(pids);
}

TEST_CASE("after a timeout no descendant runs") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--timeout", "2s", "--shell", LeavesDescendants(d.dir(), "sleep 1000")});
  const std::vector<pid_t> pids = WaitDescendants(d);
  REQUIRE(WaitState(d, id, "failed"));
  CHECK(TaskJson(d, id)["reason"] == "timeout");
  CheckAllGone(pids);
}

TEST_CASE("when the main process exits, what it left running is ended with the attempt") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  // The main process ends only once every descendant has written its pid (in any order).
  std::string all_written = "true";
  for (const char* name : {"grp", "sid", "ign"})
    all_written += " && [ -e " + Quoted(d.dir() + "/" + name + ".pid") + " ]";
  const std::string id = Submit(
      d, {"--shell",
          LeavesDescendants(d.dir(), "until " + all_written + "; do sleep 0.01; done; echo done")});
  const std::vector<pid_t> pids = WaitDescendants(d);
  REQUIRE(WaitState(d, id, "succeeded"));
  CheckAllGone(pids);
  CHECK(Tq(d, {"logs", id}).out == "done\n");
}

TEST_CASE("--keep-background leaves what the task started running") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/daemon.pid";
  const std::string id =
      Submit(d, {"--keep-background", "--shell",
                 "setsid sh -c 'echo $$ > \"" + pidfile + "\"; exec sleep 1000' & " +
                     "while [ ! -e " + Quoted(pidfile) + " ]; do sleep 0.01; done"});
  const pid_t kept = WaitPidFile(pidfile);
  REQUIRE(WaitState(d, id, "succeeded"));
  CHECK(TaskJson(d, id)["keep_background"] == true);
  CHECK_FALSE(ProcessGone(kept));
  kill(kept, SIGKILL);  // the harness would too (TQ_TEST_MARK)
}
