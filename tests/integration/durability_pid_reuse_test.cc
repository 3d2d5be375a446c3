// A reused pid is never signalled (SPEC 6, issue 4). The tests force an unrelated process (a
// "squatter") onto the pid a shim or a task had, by writing pid-1 to
// /proc/sys/kernel/ns_last_pid right before fork, and check that restarts, cancels and timeouts
// leave it alone. Root only; a pid namespace that does not allow it skips the test.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "support/raw_client.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Makes this test process the child subreaper while it lives: the shims that a kill -9 of tqd
// orphans become our children, so the test reaps them itself and their pids are free at once.
class Subreaper {
 public:
  Subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~Subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 0); }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;
};

// `sleep 1000` in a process group of its own (so a kill(-pid) would reach it too), on the pid
// `want` when that can be arranged. Killed and reaped on destruction.
class Squatter {
 public:
  explicit Squatter(pid_t want) {
    for (int attempt = 0; attempt < 50 && pid_ != want; ++attempt) {
      Reset();
      if (!SetLastPid(want - 1)) return;
      pid_ = Fork();
    }
    if (pid_ != want) Reset();
  }
  ~Squatter() { Reset(); }
  Squatter(const Squatter&) = delete;
  Squatter& operator=(const Squatter&) = delete;

  /// The squatter's pid, or -1 when it did not get the pid it wanted.
  pid_t pid() const { return pid_; }
  /// True while it runs: not reaped and not a zombie (then nobody signalled it).
  bool Alive() const {
    if (pid_ <= 0) return false;
    int status = 0;
    return waitpid(pid_, &status, WNOHANG) == 0 && !ProcessGone(pid_);
  }

 private:
  static bool SetLastPid(pid_t last) {
    const int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const std::string text = std::to_string(last);
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
  }
  static pid_t Fork() {
    const std::string sleep_path =
        access("/bin/sleep", X_OK) == 0 ? "/bin/sleep" : "/usr/bin/sleep";
    char arg0[] = "sleep", arg1[] = "1000";
    char* argv[] = {arg0, arg1, nullptr};
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      execv(sleep_path.c_str(), argv);
      _exit(127);
    }
    return pid;
  }
  void Reset() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  pid_t pid_ = -1;
};

// The state letter of /proc/PID/stat ('T' stopped, 'Z' zombie...), or '?' when it is gone.
char ProcState(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

// True when `sig` is pending for the whole process `pid` (blocked there, not yet handled).
bool SignalPending(pid_t pid, int sig) {
  const std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("\nShdPnd:\t");
  if (at == std::string::npos) return false;
  const unsigned long long mask = std::stoull(status.substr(at + 9, 16), nullptr, 16);
  return (mask >> (sig - 1)) & 1;
}

long long WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool CanForcePids() {
  return geteuid() == 0 && access("/proc/sys/kernel/ns_last_pid", W_OK) == 0;
}

// Kills `pid` (a child of this process, as the subreaper) and reaps it, so the pid is free.
void KillAndReap(pid_t pid) {
  REQUIRE(kill(pid, SIGKILL) == 0);
  REQUIRE_MESSAGE(waitpid(pid, nullptr, 0) == pid,
                  "pid " << pid << " is not a child of the test: " << strerror(errno));
}

}  // namespace

TEST_CASE("a dead shim's pid taken by an unrelated process is not re-attached after a restart") {
  if (!CanForcePids()) {
    TQ_SKIP("needs root and a writable /proc/sys/kernel/ns_last_pid");
  }
  Subreaper subreaper;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--", "sh", "-c", "echo $$ > '" + pidfile + "'; exec sleep 600"});
  const pid_t task = WaitPidFile(pidfile);
  const pid_t shim = static_cast<pid_t>(RecordField(RecordPath(d, id), "shim_pid"));
  REQUIRE(shim > 0);

  d.Kill9();
  // The shim dies without a final record (its lock goes with it), then the task: the shim led
  // the task's session, so its pid is free only once the task is gone too.
  KillAndReap(shim);
  KillAndReap(task);
  Squatter squatter(shim);
  if (squatter.pid() < 0) {
    TQ_SKIP("could not place a process on pid " << shim);
  }
  d.Start();
  d.WaitReady();

  REQUIRE(WaitFor([&] { return TaskState(d, id) == "failed"; }));
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["reason"] == "lost");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "lost");
  // Cancelling the task now must not reach the squatter either.
  Tq(d, {"cancel", id});
  CHECK(squatter.Alive());
  CHECK(d.Log().find("re-attached to task " + id + " ") == std::string::npos);
}

TEST_CASE(
    "cancel and timeout of re-attached tasks whose shims died never hit the pid's new owner") {
  if (!CanForcePids()) {
    TQ_SKIP("needs root and a writable /proc/sys/kernel/ns_last_pid");
  }
  Subreaper subreaper;
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pc = d.dir() + "/c.pid", pt = d.dir() + "/t.pid";
  const std::string c = Submit(d, {"--", "sh", "-c", "echo $$ > '" + pc + "'; exec sleep 600"});
  const std::string t =
      Submit(d, {"--timeout", "12s", "--", "sh", "-c", "echo $$ > '" + pt + "'; exec sleep 600"});
  const pid_t task_c = WaitPidFile(pc), task_t = WaitPidFile(pt);
  // The task may run before its shim has written the record that names it: wait for the record.
  long long t_started = -1;
  pid_t shim_c = -1, shim_t = -1;
  REQUIRE(WaitFor([&] {
    shim_c = static_cast<pid_t>(RecordField(RecordPath(d, c), "shim_pid"));
    shim_t = static_cast<pid_t>(RecordField(RecordPath(d, t), "shim_pid"));
    t_started = RecordField(RecordPath(d, t), "started_ms");
    return shim_c > 0 && shim_t > 0 && t_started > 0;
  }));

  // A restart makes the shims strangers to tqd: it re-attaches to them with pidfds.
  d.Kill9();
  d.Start();
  d.WaitReady();
  REQUIRE(TaskState(d, c) == "running");

  // A connection tqd has accepted already, so the cancel sent below is the first thing it reads
  // when it runs again, ahead of the news that the shims are gone.
  RawClient client(d.socket());
  REQUIRE(client.SendFrame(R"({"proto":1,"type":"ping"})"));
  REQUIRE(client.ReadFrame(kWaitTimeoutS).has_value());

  const pid_t daemon = d.DaemonPid();
  REQUIRE(kill(daemon, SIGSTOP) == 0);
  REQUIRE(WaitFor([&] { return ProcState(daemon) == 't' || ProcState(daemon) == 'T'; }));
  // On a very slow machine the timeout may have ended task t before tqd was stopped.
  if (kill(shim_t, 0) != 0 || kill(task_t, 0) != 0) {
    kill(daemon, SIGCONT);
    TQ_SKIP("task " << t << " timed out before tqd could be stopped");
  }
  REQUIRE(client.SendFrame(R"({"proto":1,"type":"cancel","ids":[)" + c + "]}"));
  for (pid_t pid : {shim_c, shim_t, task_c, task_t}) KillAndReap(pid);
  Squatter squat_c(shim_c), squat_t(shim_t);
  const bool placed = squat_c.pid() > 0 && squat_t.pid() > 0;
  // The timeout falls due while tqd is stopped: it runs as soon as tqd goes on.
  if (placed) CHECK(WaitFor([&] { return WallMs() > t_started + 12500; }, 60));
  REQUIRE(kill(daemon, SIGCONT) == 0);
  if (!placed) {
    TQ_SKIP("could not place processes on pids " << shim_c << " and " << shim_t);
  }

  CHECK(client.ReadFrame(kWaitTimeoutS).has_value());  // the cancel's answer
  for (const std::string& id : {c, t}) {
    CAPTURE(id);
    CHECK(WaitFor([&] {
      const std::string s = TaskState(d, id);
      return s != "running" && s != "pending";
    }));
  }
  CHECK(squat_c.Alive());
  CHECK(squat_t.Alive());
  CHECK(d.Alive());
}

namespace {

// The task leader's pid is reused while its shim still waits for a descendant that left the
// process group and ignores TERM; the shim is held stopped while tqd asks it to end the task (by
// cancel, or by the timeout). The shim must not signal the leader's old process group, which is now
// the squatter's. Says so in a message when the timing could not be arranged.
void LeaderPidReused(bool by_timeout) {
  Subreaper subreaper;
  TestDaemon d("kill_grace = \"10s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid", flag = d.dir() + "/flag";
  std::vector<std::string> args;
  if (by_timeout) args = {"--timeout", "5s"};
  // The writer ignores TERM, so the shim waits for it (until it sends KILL after kill_grace).
  args.insert(args.end(), {"--", "sh", "-c",
                           "echo $$ > '" + pidfile +
                               "'; setsid sh -c 'trap \"\" TERM; while :; do echo x; sleep 0.02; "
                               "done' & while [ ! -e '" +
                               flag + "' ]; do sleep 0.02; done; exit 0"});
  const std::string id = Submit(d, args);
  const pid_t leader = WaitPidFile(pidfile);
  const pid_t shim = static_cast<pid_t>(RecordField(RecordPath(d, id), "shim_pid"));
  REQUIRE(shim > 0);

  WriteFile(flag, "");
  // Gone from /proc: the shim reaped it, so the pid is free.
  REQUIRE(WaitFor([&] { return ProcState(leader) == '?'; }));
  kill(shim, SIGSTOP);
  const bool stopped = WaitFor([&] {
    const char s = ProcState(shim);
    return s == 't' || s == 'T' || s == 'Z' || s == '?';
  });
  if (!stopped || ProcState(shim) == 'Z' || ProcState(shim) == '?') {
    kill(shim, SIGCONT);
    MESSAGE("not exercised: the shim ended before it could be stopped");
    return;
  }
  Squatter squatter(leader);
  std::unique_ptr<Process> cancel;
  if (squatter.pid() > 0 && !by_timeout) cancel = TqBackground(d, {"cancel", id});
  // tqd's request (TERM to the shim) waits, blocked, in the stopped shim.
  const bool asked = squatter.pid() > 0 && WaitFor([&] { return SignalPending(shim, SIGTERM); });
  kill(shim, SIGCONT);
  if (squatter.pid() < 0) {
    TQ_SKIP("could not place a process on pid " << leader);
  }
  if (by_timeout && !asked) {
    // Under heavy load the timeout may have run out before the shim was stopped.
    MESSAGE("not exercised: the timeout reached the shim before the pid was reused");
  } else {
    CHECK(asked);
  }
  if (cancel) cancel->Finish();
  CHECK(WaitFor([&] {
    const std::string s = TaskState(d, id);
    return s != "running" && s != "pending";
  }));
  CHECK(squatter.Alive());
}

}  // namespace

TEST_CASE("cancel never signals the process group of a task leader whose pid was reused" *
          doctest::test_suite("long")) {
  if (!CanForcePids()) {
    TQ_SKIP("needs root and a writable /proc/sys/kernel/ns_last_pid");
  }
  LeaderPidReused(/*by_timeout=*/false);
}

TEST_CASE("a timeout never signals the process group of a task leader whose pid was reused" *
          doctest::test_suite("long")) {
  if (!CanForcePids()) {
    TQ_SKIP("needs root and a writable /proc/sys/kernel/ns_last_pid");
  }
  LeaderPidReused(/*by_timeout=*/true);
}
