// Tasks in cgroups of their own under a delegated cgroup v2 directory (tqd.toml `cgroup`): each
// attempt runs in DIR/task-ID-ATTEMPT, a cancel or a dead supervisor ends every process in it
// (a grandchild that called setsid and ignores TERM included), and the cgroup goes with the task.
#include <signal.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/skip.h"
#include "support/test_cgroup.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task whose grandchild leaves the session and ignores TERM, writing its pid to `pidfile`.
std::vector<std::string> EscapingTask(const std::string& pidfile) {
  return {"--", "sh", "-c",
          "setsid sh -c 'trap \"\" TERM; echo $$ > " + pidfile + ".tmp; mv " + pidfile + ".tmp " +
              pidfile + "; exec sleep 1000' & exec sleep 1000"};
}

bool Exists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

// The hooks' cgroups (hook-SEQ) in `dir`.
std::vector<std::string> HookCgroups(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().starts_with("hook-")) found.push_back(e.path().string());
  return found;
}

// An on_finish hook that writes its shim's pid to `shim_pidfile`, then runs EscapingTask's
// command with `pidfile`.
std::vector<std::string> EscapingHook(const std::string& shim_pidfile, const std::string& pidfile) {
  return {"--on-finish",
          "echo $PPID > " + shim_pidfile + ".tmp; mv " + shim_pidfile + ".tmp " + shim_pidfile +
              "; " + EscapingTask(pidfile).back(),
          "--", "true"};
}

}  // namespace

TEST_CASE("cgroup: a task runs in a cgroup of its own that goes when it ends") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "cat", "/proc/self/cgroup"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const RunResult logs = Tq(d, {"logs", id});
  const std::string relative = cg.dir().substr(cg.dir().find("/tq-test-"));
  CHECK(logs.out.find("0::" + relative + "/task-" + id + "-1\n") != std::string::npos);
  CHECK_FALSE(Exists(cg.dir() + "/task-" + id + "-1"));
  CHECK(d.Log().find("each task runs in a cgroup of its own under " + cg.dir()) !=
        std::string::npos);
}

TEST_CASE("cgroup: auto takes the cgroup systemd delegated and moves tqd out of the tasks' way") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  if (setxattr(cg.dir().c_str(), "trusted.delegate", "1", 1, 0) != 0)
    TQ_SKIP("cannot mark a cgroup delegated here");
  // tqd starts inside the marked cgroup, as systemd starts a unit with Delegate=yes.
  TestDaemon d("",
               {"/bin/sh", "-c", "echo $$ > " + cg.dir() + "/cgroup.procs && exec \"$@\"", "sh"});
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "cat", "/proc/self/cgroup"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const std::string relative = cg.dir().substr(cg.dir().find("/tq-test-"));
  CHECK(Tq(d, {"logs", id}).out.find("0::" + relative + "/task-" + id + "-1\n") !=
        std::string::npos);
  CHECK(TestCgroup::Read(cg.dir() + "/cgroup.procs").empty());
  // tqd and the shims' fork server it started there, nothing else.
  std::istringstream supervisors(TestCgroup::Read(cg.dir() + "/supervisors/cgroup.procs"));
  std::vector<std::string> procs;
  for (std::string pid; supervisors >> pid;) procs.push_back(pid);
  REQUIRE(procs.size() == 2);
  std::partition(procs.begin(), procs.end(),
                 [&](const std::string& pid) { return pid == std::to_string(d.DaemonPid()); });
  CHECK(procs[0] == std::to_string(d.DaemonPid()));
  CHECK(ReadFile("/proc/" + procs[1] + "/cmdline").find("--fork-server") != std::string::npos);
  // A restart would put it in the directory again: no controllers are handed out there.
  CHECK(TestCgroup::Read(cg.dir() + "/cgroup.subtree_control").find_first_not_of(" \n") ==
        std::string::npos);
  CHECK(d.Log().find("so it enables no controllers there") != std::string::npos);
}

TEST_CASE("cgroup: auto started in DIR/supervisors (DelegateSubgroup) puts the tasks beside it") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  if (setxattr(cg.dir().c_str(), "trusted.delegate", "1", 1, 0) != 0)
    TQ_SKIP("cannot mark a cgroup delegated here");
  const std::string supervisors = cg.dir() + "/supervisors";
  REQUIRE(mkdir(supervisors.c_str(), 0755) == 0);
  TestDaemon d(
      "", {"/bin/sh", "-c", "echo $$ > " + supervisors + "/cgroup.procs && exec \"$@\"", "sh"});
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "cat", "/proc/self/cgroup"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const std::string relative = cg.dir().substr(cg.dir().find("/tq-test-"));
  CHECK(Tq(d, {"logs", id}).out.find("0::" + relative + "/task-" + id + "-1\n") !=
        std::string::npos);
  CHECK(d.Log().find("enables no controllers") == std::string::npos);
  CHECK(d.Log().find("each task runs in a cgroup of its own under " + cg.dir() + " ") !=
        std::string::npos);
}

TEST_CASE("cgroup: cancel ends a grandchild that called setsid and ignores TERM") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\nkill_grace = \"300ms\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/gc.pid";
  const std::string id = Submit(d, EscapingTask(pidfile));
  const pid_t grandchild = WaitPidFile(pidfile);
  const std::string task_cgroup = cg.dir() + "/task-" + id + "-1";
  CHECK(TestCgroup::Read(task_cgroup + "/cgroup.procs").find(std::to_string(grandchild)) !=
        std::string::npos);

  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(TaskState(d, id) == "cancelled");
  CHECK(WaitFor([&] { return ProcessGone(grandchild); }));
  CHECK(WaitFor([&] { return !Exists(task_cgroup); }));
}

TEST_CASE("cgroup: when the supervisor is killed the task's whole cgroup is ended") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/gc.pid";
  const std::string id = Submit(d, EscapingTask(pidfile));
  const pid_t grandchild = WaitPidFile(pidfile);
  const pid_t shim = WaitShimPid(d, id);
  REQUIRE(kill(shim, SIGKILL) == 0);
  // Its process group is killed, and the grandchild in another session with it: only the
  // cgroup knows it is the task's.
  CHECK(WaitState(d, id, "failed"));
  CHECK(ProcessGone(grandchild));
  CHECK(TaskJson(d, id)["attempt_log"][0]["reason"] == "lost");
  CHECK(WaitFor([&] { return !Exists(cg.dir() + "/task-" + id + "-1"); }));
}

TEST_CASE("cgroup: a limit the cgroups cannot enforce is said once and the task still runs") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  if (cg.Has("pids")) TQ_SKIP("the pids controller is enabled here: the limit is enforced");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n[queues.small]\npids_max = 20\n");
  TQ_LOG_ON_FAILURE(d);
  for (int i = 0; i < 2; i++) {
    const std::string id = Submit(d, {"--queue", "small", "--", "true"});
    CHECK(Tq(d, {"wait", id}).exit_code == 0);
  }
  const std::string log = d.Log();
  const std::string warning = "pids_max is not enforced: the pids controller is not enabled";
  CHECK(log.find(warning) != std::string::npos);
  CHECK(log.find(warning) == log.rfind(warning));
}

TEST_CASE("cgroup: the limits reach the task's cgroup and its peak memory is kept") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  if (!cg.Has("memory") || !cg.Has("pids"))
    TQ_SKIP("the memory and pids controllers are not in the cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() +
               "\"\n[queues.small]\nmemory_max = \"64MiB\"\n"
               "pids_max = 20\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--queue", "small", "--", "sh", "-c",
                 "d=" + cg.dir() + "/task-$TQ_TASK_ID-1; cat $d/memory.max $d/pids.max"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "67108864\n20\n");
  CHECK(TaskJson(d, id)["attempt_log"][0]["memory_peak_bytes"].get<int64_t>() > 0);
}

TEST_CASE("cgroup: tqd exits 78 on a cgroup setting it cannot use") {
  TestDaemon d;
  d.Stop();
  for (const std::string& bad : {d.dir(), d.dir() + "/missing"}) {
    CAPTURE(bad);
    WriteFile(d.dir() + "/tqd.toml", "cgroup = \"" + bad + "\"\n");
    Process p({BinPath("tqd"), "--socket", d.socket(), "--state", d.state_dir(), "--config",
               d.dir() + "/tqd.toml"},
              {});
    const RunResult r = p.Finish();
    CHECK(r.exit_code == 78);
    CHECK(r.err.find("cgroup: \"" + bad + "\" is not a cgroup v2 directory") != std::string::npos);
  }
}

TEST_CASE("cgroup: what a task keeps running stays in its cgroup, alive, after the task ends") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/kept.pid";
  const std::string id =
      Submit(d, {"--keep-background", "--", "sh", "-c",
                 "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > " + pidfile});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const pid_t kept = WaitPidFile(pidfile);
  const std::string task_cgroup = cg.dir() + "/task-" + id + "-1";
  CHECK_FALSE(ProcessGone(kept));
  CHECK(TestCgroup::Read(task_cgroup + "/cgroup.procs") == std::to_string(kept) + "\n");
  d.Restart();  // a new daemon sweeps only empty cgroups
  CHECK_FALSE(ProcessGone(kept));
  CHECK(Exists(task_cgroup));
  kill(kept, SIGKILL);
  CHECK(WaitFor([&] { return ProcessGone(kept); }));
}

TEST_CASE("cgroup: a hook runs in a cgroup of its own that goes when it ends") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string seen = d.dir() + "/hook-cgroup";
  const std::string id = Submit(
      d, {"--on-finish", "cat /proc/self/cgroup > " + seen + ".tmp; mv " + seen + ".tmp " + seen,
          "--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(WaitFor([&] { return Exists(seen); }));
  const std::string relative = cg.dir().substr(cg.dir().find("/tq-test-"));
  CHECK(ReadFile(seen).find("0::" + relative + "/hook-") != std::string::npos);
  CHECK(WaitFor([&] { return HookCgroups(cg.dir()).empty(); }));
}

TEST_CASE("cgroup: when a hook's supervisor is killed everything the hook started is ended") {
  TestCgroup cg;
  if (cg.dir().empty()) TQ_SKIP("no writable cgroup v2 hierarchy here");
  TestDaemon d("cgroup = \"" + cg.dir() + "\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/gc.pid", shim_pidfile = d.dir() + "/shim.pid";
  Submit(d, EscapingHook(shim_pidfile, pidfile));
  const pid_t grandchild = WaitPidFile(pidfile);
  const pid_t shim = WaitPidFile(shim_pidfile);
  SUBCASE("by tqd, at once") {
    REQUIRE(kill(shim, SIGKILL) == 0);
  }
  SUBCASE("by the next tqd, at start, when tqd was down") {
    d.Kill9();
    REQUIRE(kill(shim, SIGKILL) == 0);
    CHECK_FALSE(ProcessGone(grandchild));
    d.Start();
    d.WaitReady();
  }
  CHECK(WaitFor([&] { return ProcessGone(grandchild); }));
  CHECK(WaitFor([&] { return HookCgroups(cg.dir()).empty(); }));
  // A later hook runs: its number is not one whose cgroup was left.
  const std::string marker = d.dir() + "/after";
  const std::string id = Submit(d, {"--on-finish", "echo ran > " + marker, "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(WaitFor([&] { return ReadFile(marker) == "ran\n"; }));
}
