#include "daemon/host/proc.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("a process is recognised by its start time until it is gone") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    setpgid(0, 0);
    pause();
    _exit(0);
  }
  auto started = ProcessStartTime(child);
  REQUIRE(started.has_value());
  CHECK(StillRunsProcess(child, *started));
  CHECK_FALSE(StillRunsProcess(child, *started + 1));
  REQUIRE(kill(child, SIGKILL) == 0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK_FALSE(StillRunsProcess(child, *started));
}

// A restarted tqd can get the pid its old task had, within the clock tick the task started in:
// the start time then matches, and killing "the task" would kill tqd.
TEST_CASE("tqd never takes itself, its parent or its group or session leader for a task") {
  for (const pid_t pid : {getpid(), getppid(), getpgrp(), getsid(0)}) {
    CAPTURE(pid);
    auto started = ProcessStartTime(pid);
    if (!started) continue;  // a leader outside this pid namespace
    CHECK_FALSE(StillRunsProcess(pid, *started));
  }
  CHECK_FALSE(StillRunsProcess(0, 0));
  CHECK_FALSE(StillRunsProcess(-1, 0));
}

}  // namespace
}  // namespace tq
