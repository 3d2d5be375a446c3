// The PAM session of a task's user (SPEC 8): the system daemon's shim checks the account and
// opens a session of service tq before the task starts and closes it once the task is gone,
// as cron does; a refused account never runs. The service's configuration is a test-made one
// (tqd --pam-dir), with the standard modules of libpam-modules.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// Writes `text` to `path` with `mode`.
void WriteMode(const std::string& path, const std::string& text, mode_t mode) {
  { std::ofstream(path) << text; }
  REQUIRE(chmod(path.c_str(), mode) == 0);
}

}  // namespace

TEST_CASE("a task runs inside a PAM session of its user, opened before it and closed after") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  tq::TempDir pam("pam");
  const std::string dir = pam.path.string();
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  const std::string log = dir + "/log";
  WriteMode(log, "", 0666);
  WriteMode(dir + "/hook", "#!/bin/sh\necho \"$PAM_TYPE $PAM_USER\" >> " + log + "\n", 0755);
  WriteMode(dir + "/env", "TQ_PAM_TEST=from-pam\nHOME=/pam-home\n", 0644);
  WriteMode(dir + "/tq",
            "auth required pam_permit.so\naccount required pam_permit.so\n"
            "session required pam_env.so readenv=1 user_readenv=0 conffile=/dev/null envfile=" +
                dir + "/env\nsession required pam_exec.so " + dir + "/hook\n",
            0644);
  TestDaemon d("", {}, {"--pam-dir", dir});
  TQ_LOG_ON_FAILURE(d);
  const RunResult sub =
      TqAs(d, alice.run_as(),
           {"submit", "--", "sh", "-c", "echo task >> " + log + "; echo \"$TQ_PAM_TEST $HOME\""});
  REQUIRE_MESSAGE(sub.exit_code == 0, sub.err);
  const std::string id = sub.out.substr(0, sub.out.find('\n'));
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  // PAM's variables are added; the task's own (HOME from the account) win.
  CHECK(Tq(d, {"logs", id}).out == "from-pam /nonexistent\n");
  CHECK(WaitFor([&] { return FileLines(log).size() == 3; }));
  CHECK(FileLines(log) == std::vector<std::string>{"open_session " + alice.name(), "task",
                                                   "close_session " + alice.name()});
}

TEST_CASE("an account PAM refuses never runs: the start fails at pam") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  tq::TempDir pam("pam");
  const std::string dir = pam.path.string();
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  WriteMode(dir + "/tq", "account required pam_deny.so\nsession required pam_permit.so\n", 0644);
  TestDaemon d("", {}, {"--pam-dir", dir});
  TQ_LOG_ON_FAILURE(d);
  const std::string marker = d.dir() + "/ran";
  const RunResult sub = TqAs(d, alice.run_as(), {"submit", "--", "touch", marker});
  REQUIRE_MESSAGE(sub.exit_code == 0, sub.err);
  const std::string id = sub.out.substr(0, sub.out.find('\n'));
  CHECK(Tq(d, {"wait", id}).exit_code == 126);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["reason"] == "spawn-failed");
  CHECK(t["attempt_log"][0]["detail"] == "pam: Permission denied");
  CHECK(access(marker.c_str(), F_OK) != 0);
  CHECK(d.Log().find("pam account of " + alice.name()) != std::string::npos);
}

TEST_CASE("a group the PAM credentials add is the task's too, beside the account's own") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempGroup extra, own;
  TempUser alice("/nonexistent", {own.name()});
  tq::TempDir pam("pam");
  const std::string dir = pam.path.string();
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  // The test's stand-in for pam_group, loaded by its path.
  WriteMode(dir + "/tq",
            "account required pam_permit.so\nauth required " + std::string(TQ_PAM_ADD_GROUP) +
                " gid=" + std::to_string(extra.gid()) + "\nsession required pam_permit.so\n",
            0644);
  TestDaemon d("", {}, {"--pam-dir", dir});
  TQ_LOG_ON_FAILURE(d);
  const RunResult sub = TqAs(d, alice.run_as(), {"submit", "--", "id", "-G"});
  REQUIRE_MESSAGE(sub.exit_code == 0, sub.err);
  const std::string id = sub.out.substr(0, sub.out.find('\n'));
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  std::istringstream ids(Tq(d, {"logs", id}).out);
  std::set<std::string> groups;
  for (std::string g; ids >> g;) groups.insert(g);
  CHECK(groups == std::set<std::string>{std::to_string(alice.gid()), std::to_string(own.gid()),
                                        std::to_string(extra.gid())});
}
