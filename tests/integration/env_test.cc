// A task runs in the submitter's working directory and environment, captured at submit (SPEC 2),
// or with cron's environment under --clean-env (SPEC 7), plus the TQ_* variables.
#include <unistd.h>

#include <climits>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
bool HasLine(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST_CASE("the submitter's working directory and environment are captured") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  char cwd[PATH_MAX];
  REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
  const std::string pwd = Submit(d, {"--", "pwd"});
  const std::string env = Submit(d, {"--queue", "q1", "--", "env"});
  REQUIRE(Tq(d, {"wait", pwd, env}).exit_code == 0);
  CHECK(Tq(d, {"logs", pwd}).out == std::string(cwd) + "\n");
  const std::string out = Tq(d, {"logs", env}).out;
  CHECK(HasLine(out, d.MarkEnv()));  // tq ran with it, so the task has it
  CHECK(HasLine(out, "TQ_TASK_ID=" + env));
  CHECK(HasLine(out, "TQ_ATTEMPT=1"));
  CHECK(HasLine(out, "TQ_QUEUE=q1"));
}

TEST_CASE("--clean-env gives cron's environment instead of the submitter's") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--clean-env", "--", "/usr/bin/env"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  const std::string out = Tq(d, {"logs", id}).out;
  CHECK(HasLine(out, "PATH=/usr/local/bin:/usr/bin:/bin"));
  CHECK(HasLine(out, "SHELL=/bin/sh"));
  CHECK(HasLine(out, "TQ_TASK_ID=" + id));
  CHECK(out.find("TQ_TEST_MARK=") == std::string::npos);
}

TEST_CASE(
    "the task's supervisor runs with no environment: a submitter's LD_PRELOAD never acts on it") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // The task's parent is its supervisor (tq-shim): its environment is empty, the task's is not.
  const RunResult submitted =
      RunTq(d.socket(),
            {"submit", "--", "sh", "-c", "wc -c < /proc/$PPID/environ; echo \"$TQ_TEST_SECRET\""},
            {"LD_PRELOAD=/nonexistent/libtq-test-preload.so", "TQ_TEST_SECRET=only-the-task"});
  REQUIRE_MESSAGE(submitted.exit_code == 0, submitted.err);
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "0\nonly-the-task\n");
  // The loader would have complained on the supervisor's stderr, which is tqd's log.
  CHECK(d.Log().find("libtq-test-preload") == std::string::npos);
}

TEST_CASE("a task starts with no signal blocked or ignored, whatever tqd and its shim ignore") {
  TestDaemon d;  // tqd ignores SIGPIPE; the shim ignores SIGPIPE and SIGXFSZ
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}
