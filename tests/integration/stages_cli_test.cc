// tq submit's stage flags through the real binaries (SPEC 13): each mistake in --stage words or a
// --stages file exits 2 with one message naming the flag (and the file's line), and submits
// nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Runs `tq submit ARGS...` and checks that it was refused with exit 2 and exactly `message` (one
// line each) on standard error, before anything was sent.
void CheckStagesRefused(const TestDaemon& d, const std::vector<std::string>& args,
                        const std::string& message) {
  std::vector<std::string> full = {"submit"};
  full.insert(full.end(), args.begin(), args.end());
  const RunResult r = Tq(d, full);
  CHECK(r.exit_code == 2);
  CHECK(r.out == "");
  CHECK(r.err == message);
}

}  // namespace

TEST_CASE("stage flags: mistakes exit 2 naming the flag, and submit nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  SUBCASE("a bad stage name") {
    CheckStagesRefused(d, {"--stage", "a/b", "--", "true"},
                       "tq: --stage: \"a/b\" is not a stage name (1 to 64 of A-Z a-z 0-9 _ . -)\n");
  }
  SUBCASE("a name given twice") {
    CheckStagesRefused(d, {"--stage", "dump", "--", "true", "--stage", "dump", "--", "true"},
                       "tq: --stage: \"dump\" names two stages (names are unique in a task)\n");
  }
  SUBCASE("a --stage without -- before its command") {
    CheckStagesRefused(
        d, {"--stage", "dump", "--", "true", "--stage", "gz", "gzip", "db.sql"},
        "tq: --stage gz: its command goes after \"--\" (--stage gz -- COMMAND [ARG...], "
        "or --stage gz --shell STRING), not before \"gzip\"\n");
  }
  SUBCASE("a stage without a command") {
    CheckStagesRefused(
        d, {"--stage", "dump"},
        "tq: --stage dump: a command is required (--stage dump -- COMMAND [ARG...], or "
        "--stage dump --shell STRING)\n");
  }
  SUBCASE("the task's --shell with stages") {
    CheckStagesRefused(
        d, {"--shell", "true", "--stage", "a", "--", "true"},
        "tq: --shell: given before the first --stage, it would be the task's own "
        "command, but a task with stages runs only its stages' commands (give --shell "
        "after the --stage NAME it belongs to)\n");
  }
  SUBCASE("--stages and a command") {
    const std::string file = d.dir() + "/good.toml";
    WriteFile(file, "[[stages]]\nname = \"a\"\ncommand = \"true\"\n");
    CheckStagesRefused(
        d, {"--stages", file, "--", "true"},
        "tq: --stages: a task with stages runs only its stages' commands; give either "
        "--stages FILE or a command (after -- or --shell), not both\n");
    CheckStagesRefused(d, {"--stages", file, "--stage", "b", "--", "true"},
                       "tq: --stages: give the stages either in FILE or with --stage, not both\n");
  }
  SUBCASE("a bad --stages file, with its lines") {
    const std::string file = d.dir() + "/bad.toml";
    WriteFile(file,
              "[[stages]]\nname = \"dump\"\ncomand = \"pg_dump db\"\n\n"
              "[[stages]]\nname = \"g z\"\nargv = [\"gzip\"]\n");
    CheckStagesRefused(
        d, {"--stages", file},
        "tq: " + file +
            ":3: stages[0].comand: unknown key (allowed in a stage: name, command, argv, "
            "timeout, retries, backoff, retry_on_exit, no_retry_on_exit)\n"
            "tq: " +
            file +
            ":6: stages[1].name: \"g z\" is not a stage name (use 1 to 64 of A-Z a-z "
            "0-9 _ . -)\n");
  }
  SUBCASE("a --stages file that is not there") {
    CheckStagesRefused(d, {"--stages", d.dir() + "/absent.toml"},
                       "tq: --stages: " + d.dir() +
                           "/absent.toml: cannot open: No such file or "
                           "directory\n");
  }
  SUBCASE("a stage refused by the request's checks") {
    CheckStagesRefused(d, {"--stage", "a", "--", ""},
                       "tq: stages[0] (a): argv: the program name (the first argument) is empty\n");
  }
  SUBCASE("stages with --batch") {
    CheckStagesRefused(d, {"--batch", "--stage", "a", "--", "true"},
                       "tq: --batch: the tasks come from standard input; give no --stage and no "
                       "--stages (a --json-lines line may carry \"stages\")\n");
  }
  CHECK(Tq(d, {"list", "--json"}).out == "");
}

TEST_CASE("stage flags: a --stage after the task's command started is one of its arguments") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"echo", "--stage", "x", "--", "y"});
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["argv"] == nlohmann::json{"echo", "--stage", "x", "--", "y"});
  CHECK((!t.contains("stages") || t["stages"].empty() || t["stages"].is_null()));
}

TEST_CASE(
    "tq status of a task running its second stage names no exit code of its own, and "
    "shows labels as words") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--label", "nightly", "--label", "db", "--stage", "dump", "--",
                                    "true", "--stage", "wait", "--", "sleep", "600"});
  REQUIRE(WaitFor([&] {
    const nlohmann::json t = TaskJson(d, id);
    return t["state"] == "running" && t["stage"].is_object() && t["stage"]["index"] == 1;
  }));
  const RunResult status = Tq(d, {"status", id});
  REQUIRE(status.exit_code == 0);
  CHECK_MESSAGE(status.out.find("exit code") == std::string::npos, status.out);
  CHECK_MESSAGE(status.out.find("nightly, db") != std::string::npos, status.out);
  CHECK(status.out.find("[\"nightly\"") == std::string::npos);
  Tq(d, {"cancel", id});
}
