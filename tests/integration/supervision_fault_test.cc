// Faults of supervision never run a task twice nor fail one that never ran (SPEC 6): a shim
// killed with -9 has its task ended before the attempt is lost and retried; an attempt whose
// shim never started (tqd died before creating its status record) goes back to pending.
#include <doctest/doctest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/store/sqlite/open.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Opens an attempt for a new `true` task straight in the store of the stopped `d`, as a tqd that
// died right after StartAttempt committed leaves it; returns the task id.
std::string OpenAttemptWithoutShim(TestDaemon& d) {
  auto store = tq::OpenSqliteStore(d.state_dir() + "/tq.db", true);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  tq::TaskSpec spec;
  spec.argv = {"true"};
  spec.cwd = "/";
  spec.env = {"PATH=/usr/bin:/bin", d.MarkEnv()};
  const passwd* pw = getpwuid(getuid());
  const tq::Owner me{getuid(), getgid(), pw ? pw->pw_name : "me"};
  auto id = (*store)->Insert(me, spec, 1000);
  REQUIRE_MESSAGE(id.ok(), id.status().message());
  auto attempt = (*store)->StartAttempt(*id, 2000, {});
  REQUIRE(attempt.ok());
  REQUIRE(*attempt == std::optional<int>(1));
  return std::to_string(*id);
}

}  // namespace

TEST_CASE("a shim killed with -9: its task is gone before the attempt is lost and retried") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string pids = d.dir() + "/pids";
  const std::string id =
      Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base", "100ms", "--no-jitter",
                 "--", "sh", "-c", "echo $$ >> " + Quoted(pids) + "; exec sleep 600"});
  const pid_t first = WaitPidFile(pids);
  const pid_t shim = WaitShimPid(d, id);
  REQUIRE(kill(shim, SIGKILL) == 0);

  REQUIRE(WaitFor([&] { return FileLines(pids).size() >= 2; }));
  CHECK(ProcessGone(first));  // never two copies at once
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 2);
  CHECK(t["attempt_log"][0]["reason"] == "lost");
  Tq(d, {"cancel", id});
}

TEST_CASE("an attempt whose shim never started goes back to pending without using a retry") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  const std::string id = OpenAttemptWithoutShim(d);
  SUBCASE("no status record at all") {}
  SUBCASE("an empty, unlocked status record (tqd died before starting the shim)") {
    std::filesystem::create_directories(TaskFilesDir(d, id));
    WriteFile(RecordPath(d, id), "");
  }
  SUBCASE("a blanked spare's record: a NUL, then what its earlier attempt wrote") {
    std::filesystem::create_directories(TaskFilesDir(d, id));
    WriteFile(RecordPath(d, id), std::string(1, '\0') + "tq-shim-status 5\nfinished=1\n");
  }
  d.Start();
  d.WaitReady();
  REQUIRE(WaitState(d, id, "succeeded"));
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "exit");
  CHECK(t["attempts"] == 1);
}
