// The two narrow windows of a restart (SPEC 6, issue 4): a kill -9 of tqd right after it started
// a shim that has not yet written its status record must not make the attempt "lost" (and run it
// a second time), and a stop (cancel, timeout) already asked of a task must still count after a
// kill -9, whether the task ends while tqd is down or only once the restarted daemon KILLs it.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// True while some process holds the flock on `path` (false if it does not exist).
bool Locked(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
  close(fd);
  return locked;
}

// Lines in `text`.
size_t LineCount(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("a shim started just before a kill -9 of tqd is waited for, not taken for lost") {
  TestDaemon d("", {}, {"--shim", TQ_GATED_SHIM_PATH});
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate", runs = d.dir() + "/runs";
  const RunResult submit = RunTq(
      d.socket(),
      {"submit", "--retries", "2", "--", "sh", "-c", "echo $$ >> " + Quoted(runs) + "; echo ran"},
      {d.MarkEnv(), "TQ_TEST_SHIM_GATE=" + gate});
  REQUIRE_MESSAGE(submit.exit_code == 0, submit.err);
  const std::string id = submit.out.substr(0, submit.out.find('\n'));
  // The daemon created and locked the record before the shim existed; the shim, held at its
  // gate, has not written a byte of it.
  const std::string record = RecordPath(d, id);
  REQUIRE(WaitFor([&] { return Locked(record); }));
  // The lock is tqd's own until the shim is forked, which holds it from then on.
  REQUIRE(WaitFor([&] {
    return d.Log().find("task " + id + " attempt 1 started (shim pid") != std::string::npos;
  }));

  d.Kill9();
  CHECK(Locked(record));
  CHECK(ReadFile(record).empty());
  d.Start();
  d.WaitReady();
  CHECK(TaskState(d, id) == "running");  // waiting for its shim, not lost
  WriteFile(gate, "");

  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 1);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "exit");
  CHECK(LineCount(ReadFile(runs)) == 1);
  CHECK(t["attempt_log"][0]["pid"] == std::stol(ReadFile(runs)));
  CHECK(Tq(d, {"logs", id}).out == "ran\n");
}

TEST_CASE("a timeout signalled before a kill -9 of tqd is the reason when the task ends unseen") {
  TestDaemon d("kill_grace = \"60s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string termed = d.dir() + "/termed", release = d.dir() + "/release";
  const std::string pidfile = d.dir() + "/task.pid";
  // Without the recorded stop this would read as a plain exit 9 of a task that may not retry.
  const std::string id = Submit(
      d, {"--timeout", "1s", "--", "sh", "-c",
          "echo $$ > " + Quoted(pidfile) + "; trap 'echo term > " + Quoted(termed) +
              "' TERM; while [ ! -e " + Quoted(release) + " ]; do sleep 0.05; done; exit 9"});
  const pid_t pid = WaitPidFile(pidfile);
  REQUIRE(WaitFor([&] { return !ReadFile(termed).empty(); }));

  d.Kill9();
  WriteFile(release, "");
  const std::string record = RecordPath(d, id);
  REQUIRE(WaitFor([&] { return ReadFile(record).find("\nfinished=1\n") != std::string::npos; }));
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
  d.Start();
  d.WaitReady();

  CHECK(Tq(d, {"wait", id}).exit_code == 124);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "failed");
  CHECK(t["reason"] == "timeout");
  CHECK(t["attempts"] == 1);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "timeout");
  CHECK(t["attempt_log"][0]["exit_code"] == 9);
}

TEST_CASE("a cancel in its grace period when tqd is killed ends with a KILL from the next tqd") {
  TestDaemon d("kill_grace = \"2s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--retries", "3", "--", "sh", "-c",
                 "echo $$ > " + Quoted(pidfile) + "; trap '' TERM; while :; do sleep 0.05; done"});
  const pid_t pid = WaitPidFile(pidfile);
  auto cancel = TqBackground(d, {"cancel", id});
  REQUIRE(WaitFor([&] {
    return d.Log().find("task " + id + " attempt 1: stopping (cancelled)") != std::string::npos;
  }));

  d.Kill9();
  CHECK_FALSE(ProcessGone(pid));  // TERM is ignored; the KILL was the dead daemon's to send
  d.Start();
  d.WaitReady();

  // No second cancel: the restarted daemon remembers the first and KILLs when its grace ends.
  CHECK(WaitState(d, id, "cancelled"));
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["reason"] == "cancelled");
  CHECK(t["attempts"] == 1);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "cancelled");
  CHECK(t["attempt_log"][0]["signal"] == 9);
}
