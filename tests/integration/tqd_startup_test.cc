// What tqd says and refuses at its start (tqd(8)): a second tqd on a socket one already serves
// leaves no trace, and the job count tells the job directory's files from the users' own.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("a second tqd on a served socket refuses, naming it, before making its state directory") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string state = d.dir() + "/second-state";
  Process second(
      {BinPath("tqd"), "--socket", d.socket(), "--state", state, "--config", d.dir() + "/tqd.toml"},
      {d.MarkEnv()});
  const RunResult r = second.Finish();
  INFO(r.err);
  CHECK(r.exit_code == 78);
  CHECK(r.err.find("socket: another tqd already serves " + d.socket()) != std::string::npos);
  struct stat st {};
  CHECK(stat(state.c_str(), &st) != 0);   // nothing made: no directory, no store
  CHECK(Tq(d, {"ping"}).exit_code == 0);  // the first one serves on
}

TEST_CASE("tqd's start counts the users' own job files apart from the job directory's") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("site.toml",
                 "[[job]]\nname = \"a\"\nschedule = \"@yearly\"\ncommand = \"true\"\n"
                 "[[job]]\nname = \"b\"\nschedule = \"@yearly\"\ncommand = \"true\"\n");
  const RunResult installed =
      TqAs(d, alice.run_as(), {"jobs", "install", "-"}, {},
           "[[job]]\nname = \"mine\"\nschedule = \"@yearly\"\ncwd = \"/\"\ncommand = \"true\"\n");
  REQUIRE_MESSAGE(installed.exit_code == 0, installed.err);
  d.Restart();
  const std::string log = d.Log();
  const std::string line = "jobs: 2 job(s) from 1 file(s) in " + d.jobs_dir() +
                           ", 0 file(s) with errors; 1 job(s) from 1 user file(s) in " +
                           d.state_dir() + "/crontabs, 0 with errors";
  CHECK(log.find(line) != std::string::npos);
}
