// The shims' fork server (issue 51): tqd makes each shim through one small process that clones
// it (`tq-shim --fork-server`, shim_record.h) instead of executing tq-shim per task. The shim is
// tqd's own child, reaped by tqd; a fork server killed or stopped costs nothing but a new one,
// and one goes with its tqd.
#include <signal.h>

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The children of `pid` (its main thread's), as the kernel lists them.
std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::istringstream in(
      ReadFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"));
  std::vector<pid_t> out;
  for (long child; in >> child;) out.push_back(static_cast<pid_t>(child));
  return out;
}

// The parent of `pid` (/proc/PID/stat's fourth field), or 0 when it is gone.
pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream rest(stat.substr(paren + 2));
  char state = 0;
  long ppid = 0;
  rest >> state >> ppid;
  return static_cast<pid_t>(ppid);
}

// The running fork server among tqd's children; 0 when there is none.
pid_t ForkServerOf(TestDaemon& d) {
  for (pid_t child : ChildrenOf(d.DaemonPid())) {
    const std::string cmdline = ReadFile("/proc/" + std::to_string(child) + "/cmdline");
    if (cmdline.find("--fork-server") != std::string::npos && !ProcessGone(child)) return child;
  }
  return 0;
}

// A task that runs until its gate file exists, its shim and the fork server that made it.
struct GatedTask {
  std::string gate, id;
  pid_t shim = 0, server = 0;
};

// Submits a GatedTask on `d` and waits until its shim runs.
GatedTask SubmitGated(TestDaemon& d) {
  GatedTask t;
  t.gate = d.dir() + "/gate";
  t.id =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(t.gate) + " ]; do sleep 0.05; done"});
  t.shim = WaitShimPid(d, t.id);
  t.server = ForkServerOf(d);
  REQUIRE(t.server > 0);
  return t;
}

// Submits `true` and waits until it succeeded.
void RunTrue(const TestDaemon& d) {
  const std::string id = Submit(d, {"--", "true"});
  REQUIRE(WaitState(d, id, "succeeded"));
}

}  // namespace

TEST_CASE("a shim the fork server makes is tqd's own child, and tqd reaps it") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const auto [gate, id, shim, server] = SubmitGated(d);
  CHECK(server != shim);
  CHECK(ParentOf(shim) == d.DaemonPid());
  CHECK(ParentOf(server) == d.DaemonPid());
  // ps and top name each for what it is (not "N", of the /proc/self/fd/N tqd executes).
  CHECK(ReadFile("/proc/" + std::to_string(shim) + "/comm") == "tq-shim\n");
  CHECK(ReadFile("/proc/" + std::to_string(server) + "/comm") == "tq-fork-server\n");
  // ps names it as a shim, not as the server whose memory it was.
  CHECK(ReadFile("/proc/" + std::to_string(shim) + "/cmdline").rfind("tq-shim", 0) == 0);
  CHECK(ReadFile("/proc/" + std::to_string(shim) + "/cmdline").find("--fork-server") ==
        std::string::npos);
  WriteFile(gate, "");
  REQUIRE(WaitState(d, id, "succeeded"));
  // Reaped: no zombie is left among tqd's children, only the server.
  CHECK(WaitFor([&] { return ChildrenOf(d.DaemonPid()) == std::vector<pid_t>{server}; }));
}

TEST_CASE("a fork server killed or stopped costs nothing but a new one") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RunTrue(d);
  const pid_t first = ForkServerOf(d);
  REQUIRE(first > 0);
  SUBCASE("kill -9") {
    REQUIRE(kill(first, SIGKILL) == 0);
    for (int i = 0; i < 5; ++i) RunTrue(d);
  }
  SUBCASE("SIGSTOP: the task waits a second for it at most, and starts all the same") {
    REQUIRE(kill(first, SIGSTOP) == 0);
    RunTrue(d);
    CHECK(d.Log().find("did not answer; a new one starts") != std::string::npos);
    RunTrue(d);
  }
  CHECK(ProcessGone(first));
  const pid_t second = ForkServerOf(d);
  CHECK(second > 0);
  CHECK(second != first);
  CHECK(ListTasks(d, {"--state", "succeeded"}).size() >= 2);
}

TEST_CASE("the fork server ends with its tqd, and the shims it made are re-attached") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const auto [gate, id, shim, server] = SubmitGated(d);
  d.Kill9();
  CHECK(WaitFor([&] { return ProcessGone(server); }));
  CHECK_FALSE(ProcessGone(shim));
  d.Start();
  d.WaitReady();
  WriteFile(gate, "");
  CHECK(WaitState(d, id, "succeeded"));
  RunTrue(d);
  CHECK(ForkServerOf(d) > 0);
}
