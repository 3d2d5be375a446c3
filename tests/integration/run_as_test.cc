// The system daemon runs each task as its submitter (SPEC 8): the task's ids and groups are the
// submitter's, its environment loses what steers loaders and shells, and a task whose account
// was deleted or renamed before it started fails `user-gone` instead of running. The users are
// made for each test (root only).
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The task's stdout once it ended successfully.
std::string OutputOf(const TestDaemon& d, const std::string& id) {
  const RunResult wait = Tq(d, {"wait", id});
  INFO(Tq(d, {"status", id}).out);
  REQUIRE(wait.exit_code == 0);
  const RunResult logs = Tq(d, {"logs", id});
  REQUIRE(logs.exit_code == 0);
  return logs.out;
}
}  // namespace

TEST_CASE("a task runs as its submitter: uid, gid and groups, real, effective and saved") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempGroup extra;
  TempUser alice("/home/tq-test-alice", {extra.name()});
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = SubmitAs(d, alice,
                                  {"--", "sh", "-c",
                                   "id -u; id -g; id -G; grep -E '^(Uid|Gid):' /proc/self/status; "
                                   "echo \"$HOME $USER $LOGNAME $SHELL\""});
  const std::string u = std::to_string(alice.uid()), g = std::to_string(alice.gid());
  CHECK(OutputOf(d, id) == u + "\n" + g + "\n" + g + " " + std::to_string(extra.gid()) +
                               "\nUid:\t" + u + "\t" + u + "\t" + u + "\t" + u + "\nGid:\t" + g +
                               "\t" + g + "\t" + g + "\t" + g + "\n/home/tq-test-alice " +
                               alice.name() + " " + alice.name() + " /bin/sh\n");
  // Root's own tasks still run as root.
  const std::string root = Submit(d, {"--", "id", "-u"});
  CHECK(OutputOf(d, root) == "0\n");
}

TEST_CASE("the submitter's LD_PRELOAD and BASH_ENV never reach the task") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      SubmitAs(d, alice, {"--", "env"},
               {"LD_PRELOAD=/nonexistent/tq-test-preload.so", "LD_LIBRARY_PATH=/nonexistent",
                "BASH_ENV=/nonexistent/rc", "ENV=/nonexistent/rc", "GCONV_PATH=/nonexistent",
                "HOME=/root", "TQ_TEST_KEPT=yes"});
  const std::string env = OutputOf(d, id);
  for (const char* gone :
       {"LD_PRELOAD=", "LD_LIBRARY_PATH=", "BASH_ENV=", "\nENV=", "GCONV_PATH=", "HOME=/root"}) {
    CAPTURE(gone);
    CHECK(env.find(gone) == std::string::npos);
  }
  CHECK(env.find("TQ_TEST_KEPT=yes\n") != std::string::npos);   // everything else is kept
  CHECK(env.find("HOME=/nonexistent\n") != std::string::npos);  // the account's own
}

TEST_CASE("a waiting task whose account was deleted or renamed fails user-gone") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser deleted, renamed;
  TestDaemon d("[queues.q]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "q"}).exit_code == 0);
  const std::string marker = d.dir() + "/ran";
  const std::vector<std::string> task = {"--queue", "q", "--", "touch", marker};
  const std::string gone_id = SubmitAs(d, deleted, task);
  const std::string renamed_id = SubmitAs(d, renamed, task);
  deleted.Delete();
  const std::string new_name = renamed.name() + "r";
  REQUIRE(
      Process({"/usr/sbin/usermod", "--login", new_name, renamed.name()}, {}).Finish().exit_code ==
      0);
  REQUIRE(Tq(d, {"queue", "resume", "q"}).exit_code == 0);
  for (const std::string& id : {gone_id, renamed_id}) {
    CHECK(Tq(d, {"wait", id}).exit_code != 0);
    const nlohmann::json t = TaskJson(d, id);
    CHECK(t["state"] == "failed");
    CHECK(t["reason"] == "user-gone");
    CHECK(t["attempt_log"].empty());  // it never started
  }
  CHECK(access(marker.c_str(), F_OK) != 0);
  CHECK(
      Process({"/usr/sbin/usermod", "--login", renamed.name(), new_name}, {}).Finish().exit_code ==
      0);
  CHECK(d.Log().find("user-gone") != std::string::npos);
}

TEST_CASE("a job runs as the user it names, in that user's home") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string home = d.dir() + "/home";
  TempUser bob(home);
  REQUIRE(mkdir(home.c_str(), 0700) == 0);
  REQUIRE(chown(home.c_str(), bob.uid(), bob.gid()) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // bob may pass through to his home
  d.WriteJobFile("bob.toml", JobFile("report", "0 0 1 1 *", "id -u; pwd; echo $HOME $LOGNAME",
                                     {"user = \"" + bob.name() + "\""}));
  Reload(d);
  const RunResult run = Tq(d, {"jobs", "run", "report"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(OutputOf(d, id) ==
        std::to_string(bob.uid()) + "\n" + home + "\n" + home + " " + bob.name() + "\n");
}

TEST_CASE("a job of a user without a home runs in /, and a missing cwd it names still fails") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  TempUser nobody_like;  // home /nonexistent, as Debian's nobody
  const std::string user = "user = \"" + nobody_like.name() + "\"";
  d.WriteJobFile("svc.toml",
                 JobFile("homeless", "0 0 1 1 *", "pwd; echo $HOME", {user}) +
                     JobFile("strict", "0 0 1 1 *", "pwd", {user, "cwd = \"/nonexistent/work\""}));
  Reload(d);
  for (int round = 0; round < 2; ++round) {
    const RunResult run = Tq(d, {"jobs", "run", "homeless"});
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    CHECK(OutputOf(d, run.out.substr(0, run.out.find('\n'))) == "/\n/nonexistent\n");
  }
  // Said once per job, however often it runs.
  const std::string log = d.Log();
  const std::string warning = "job homeless: cannot enter /nonexistent";
  const size_t first = log.find(warning);
  CHECK(first != std::string::npos);
  CHECK(log.find(warning, first + 1) == std::string::npos);

  const RunResult strict = Tq(d, {"jobs", "run", "strict"});
  REQUIRE_MESSAGE(strict.exit_code == 0, strict.err);
  const std::string id = strict.out.substr(0, strict.out.find('\n'));
  CHECK(Tq(d, {"wait", id}).exit_code != 0);
  const nlohmann::json task = TaskJson(d, id);
  CHECK(task["state"] == "failed");
  CHECK(task.dump().find("/nonexistent/work") != std::string::npos);
}
