// A task that could not start says why (SPEC 6): `tq status` names the step, what it acted on
// and the error; `tq wait` and `tq status` agree on the exit code.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("a missing program is named in tq status and its --json") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "/nonexistent/tq-prog", "arg"});
  CHECK(Tq(d, {"wait", id}).exit_code == 127);
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["detail"] == "exec /nonexistent/tq-prog: No such file or directory");
  const RunResult status = Tq(d, {"status", id});
  CHECK(status.out.find("spawn-failed: exec /nonexistent/tq-prog: No such file or directory") !=
        std::string::npos);
}

TEST_CASE("a working directory deleted before the task starts is named") {
  TestDaemon d("[queues.held]\n");  // a queue exists once tqd.toml names it
  TQ_LOG_ON_FAILURE(d);
  const std::string gone = d.dir() + "/gone";
  REQUIRE(mkdir(gone.c_str(), 0700) == 0);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  // tq submits its own working directory: run it from the one about to go.
  Process submit({"/bin/sh", "-c",
                  "cd " + Quoted(gone) + " && exec " + Quoted(BinPath("tq")) + " --socket " +
                      Quoted(d.socket()) + " submit --queue held -- true"},
                 {d.MarkEnv()});
  const RunResult submitted = submit.Finish();
  REQUIRE_MESSAGE(submitted.exit_code == 0, submitted.err);
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  REQUIRE(rmdir(gone.c_str()) == 0);
  REQUIRE(Tq(d, {"queue", "resume", "held"}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 127);
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["detail"] == "cwd " + gone + ": No such file or directory");
}

TEST_CASE("a task tqd itself could not start: tq wait and tq status agree") {
  TestDaemon d("[queues.held]\n");  // a queue exists once tqd.toml names it
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "held"}).exit_code == 0);
  const std::string id = Submit(d, {"--queue", "held", "--", "true"});
  // A file where the task's files' directory goes: its status record cannot be created.
  WriteFile(TaskFilesDir(d, id), "");
  REQUIRE(Tq(d, {"queue", "resume", "held"}).exit_code == 0);
  const int waited = Tq(d, {"wait", id}).exit_code;
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["reason"] == "spawn-failed");
  REQUIRE(t["exit_code"].is_number());
  CHECK(t["exit_code"] == waited);
  REQUIRE(t["attempt_log"].size() == 1);
  REQUIRE(t["attempt_log"][0]["detail"].is_string());
  CHECK(t["attempt_log"][0]["detail"].get<std::string>().find("Not a directory") !=
        std::string::npos);
}
