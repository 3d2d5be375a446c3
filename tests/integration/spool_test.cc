// Every user's own job file under one system daemon (SPEC 8): `tq jobs install`, `cat`, `remove`
// and `edit` as crontab gives them, jobs that run as their user and are named USER/NAME, a
// broken file that never replaces the last good one, and no user reading or running another's.
// The users are made for each test (root only).
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A job file with one yearly job `name` running `command` in /.
std::string OneJob(const std::string& name, const std::string& command) {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"0 0 1 1 *\"\ncwd = \"/\"\ncommand = \"" +
         command + "\"\n";
}
}  // namespace

TEST_CASE("a user's own job file: installed, run as its user, kept when a new one is broken") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob, mallory;
  TestDaemon d("deny_users = [\"" + mallory.name() + "\"]\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string good = OneJob("report", "id -u");
  const RunResult installed = TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, good);
  REQUIRE_MESSAGE(installed.exit_code == 0, installed.err);
  CHECK(installed.out == "installed 1 job(s)\n");
  const std::string full = alice.name() + "/report";
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == good);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "--json"}).out.find(full) != std::string::npos);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);  // root sees it
  CHECK(TqAs(d, bob.run_as(), {"jobs", "--json"}).out.find(full) == std::string::npos);

  // Its user runs it by its short name; it runs as that user.
  const RunResult run = TqAs(d, alice.run_as(), {"jobs", "run", "report"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(TqAs(d, alice.run_as(), {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == std::to_string(alice.uid()) + "\n");

  // A broken file, and one naming another user, change nothing.
  for (const std::string& bad :
       {std::string("[[job]]\nname = \"report\"\nschedule = \"61 * * * *\"\ncommand = \"x\"\n"),
        OneJob("report", "x") + "user = \"root\"\n"}) {
    const RunResult refused = TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, bad);
    CHECK(refused.exit_code == 2);
    CHECK_MESSAGE(refused.err.find(alice.name() + ".toml:") != std::string::npos, refused.err);
    CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == good);
  }
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);

  // Nobody else reads, replaces, runs or removes it.
  CHECK(TqAs(d, bob.run_as(), {"jobs", "cat", "-u", alice.name()}).exit_code == 5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "install", "-u", alice.name(), "-"}, {}, good).exit_code ==
        5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "remove", "-u", alice.name()}).exit_code == 5);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "run", full}).exit_code == 4);
  CHECK(TqAs(d, bob.run_as(), {"jobs", "cat"}).exit_code == 4);  // bob has none
  CHECK(TqAs(d, mallory.run_as(), {"jobs", "install", "-"}, {}, good).exit_code == 5);

  // It survives a restart; root can read and remove it.
  d.Restart();
  CHECK(Tq(d, {"jobs", "cat", "-u", alice.name()}).out == good);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "remove"}).exit_code == 0);
  CHECK(Tq(d, {"jobs", "show", full}).exit_code == 4);
  CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).exit_code == 4);
}

TEST_CASE("tq jobs edit opens the editor again on an error, and keeps the last good file") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string work = d.dir() + "/alice";
  REQUIRE(mkdir(work.c_str(), 0700) == 0);
  REQUIRE(chown(work.c_str(), alice.uid(), alice.gid()) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  // The editor writes a broken file the first time, a good one the next.
  const std::string editor = work + "/editor";
  {
    std::ofstream script(editor);
    script << "#!/bin/sh\nn=$(cat " << work << "/count 2>/dev/null || echo 0)\n"
           << "echo $((n+1)) > " << work << "/count\n"
           << "if [ \"$n\" = 0 ]; then printf '[[job]]\\nname = \"x\"\\n' > \"$1\"; "
           << "else printf '" << OneJob("nightly", "true") << "' > \"$1\"; fi\n";
  }
  REQUIRE(chown(editor.c_str(), alice.uid(), alice.gid()) == 0);
  REQUIRE(chmod(editor.c_str(), 0755) == 0);
  const std::vector<std::string> env = {"EDITOR=" + editor, "VISUAL=", "TMPDIR=" + work};

  SUBCASE("edit again: the second, good file is installed") {
    const RunResult r = TqAs(d, alice.run_as(), {"jobs", "edit"}, env, "y\n");
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.find("Edit again?") != std::string::npos);
    CHECK(r.out == "installed 1 job(s)\n");
    CHECK(Tq(d, {"jobs", "show", alice.name() + "/nightly"}).exit_code == 0);
  }
  SUBCASE("no: nothing is installed, the file in force stays") {
    REQUIRE(
        TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {}, OneJob("old", "true")).exit_code ==
        0);
    const RunResult r = TqAs(d, alice.run_as(), {"jobs", "edit"}, env, "n\n");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("the last good job file stays in force") != std::string::npos);
    CHECK(TqAs(d, alice.run_as(), {"jobs", "cat"}).out == OneJob("old", "true"));
    CHECK(Tq(d, {"jobs", "show", alice.name() + "/old"}).exit_code == 0);
  }
  // The temporary copies are gone.
  for (const auto& e : std::filesystem::directory_iterator(work))
    CHECK(e.path().filename().string().rfind("tq-jobs-", 0) != 0);
}
