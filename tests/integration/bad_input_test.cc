// Bad input (issue 2, SPEC 10): usage errors exit 2 naming the value and what is allowed, unknown
// ids exit 4, no daemon exits 6 naming the socket, a second tqd names the holder.
#include <unistd.h>

#include <cstdlib>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("usage errors exit 2 with a message naming the value") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  SUBCASE("unknown flag") {
    const RunResult r = Tq(d, {"submit", "--frobnicate", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "--frobnicate"));
  }
  SUBCASE("unknown subcommand") {
    const RunResult r = Tq(d, {"frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "frobnicate"));
  }
  SUBCASE("priority out of range") {
    const RunResult r = Tq(d, {"submit", "--priority", "9", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "9"));
    CHECK(Contains(r.err, "1"));
    CHECK(Contains(r.err, "5"));
  }
  SUBCASE("bad duration") {
    const RunResult r = Tq(d, {"submit", "--delay", "5x", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "5x"));
  }
  SUBCASE("--at in the past") {
    const RunResult r = Tq(d, {"submit", "--at", "2001-09-09T01:46:40Z", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "2001-09-09T01:46:40Z"));
  }
  SUBCASE("--at that is not a time") {
    const RunResult r = Tq(d, {"submit", "--at", "tomorrowish", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "tomorrowish"));
  }
  SUBCASE("--at and --delay together") {
    const RunResult r = Tq(d, {"submit", "--at", "@4102444800", "--delay", "1h", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "--delay"));
  }
  SUBCASE("no command") {
    const RunResult r = Tq(d, {"submit"});
    CHECK(r.exit_code == 2);
  }
  SUBCASE("a bad --after id") {
    const RunResult r = Tq(d, {"submit", "--after", "12,x", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "x"));
  }
  SUBCASE("a bad --state filter") {
    const RunResult r = Tq(d, {"list", "--state", "sleeping"});
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, "sleeping"));
  }
  // None of these created a task.
  CHECK(Tq(d, {"list", "--json"}).out == "");
}

TEST_CASE("ids that do not exist exit 4") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RunResult r = Tq(d, {"status", "999999"});
  CHECK(r.exit_code == 4);
  CHECK(Contains(r.err, "999999"));
  CHECK(Tq(d, {"logs", "999999"}).exit_code == 4);
  CHECK(Tq(d, {"cancel", "999999"}).exit_code == 4);
  r = Tq(d, {"submit", "--after", "999999", "--", "true"});
  CHECK(r.exit_code == 4);
  CHECK(Contains(r.err, "999999"));
}

TEST_CASE("no daemon: exit 6 and the message names the socket path") {
  char tmpl[] = "/tmp/tq-it-nosock-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string socket = std::string(tmpl) + "/nothing-here.sock";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"ping"},
                                               {"status", "1"},
                                               {"submit", "--", "true"},
                                               {"wait", "1"}}) {
    CAPTURE(args[0]);
    const RunResult r = RunTq(socket, args, {});
    CHECK(r.exit_code == 6);
    CHECK(Contains(r.err, socket));
  }
  rmdir(tmpl);
}

TEST_CASE(
    "a second tqd on the same state directory exits naming the holder and the first serves on") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  Process second({BinPath("tqd"), "--socket", d.dir() + "/second.sock", "--state", d.state_dir()},
                 {d.MarkEnv()});
  const RunResult r = second.Finish();
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);  // it exited by itself
  CHECK(Contains(r.err, std::to_string(d.pid())));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  const std::string id = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
}

TEST_CASE("a second tqd on the same socket refuses to take it over") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  Process second({BinPath("tqd"), "--socket", d.socket(), "--state", d.dir() + "/other-state"},
                 {d.MarkEnv()});
  const RunResult r = second.Finish();
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != -1);
  CHECK(Contains(r.err, d.socket()));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}

TEST_CASE(
    "job: labels are the scheduler's: a submit, a batch or an update that gives one is "
    "refused and stores nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult submit = Tq(d, {"submit", "--label", "job:backup", "--", "false"});
  CHECK(submit.exit_code == 2);
  CHECK(Contains(submit.err, "label: \"job:backup\""));
  CHECK(Contains(submit.err, "the scheduler's"));
  const RunResult batch = Tq(d, {"submit", "--batch", "--json-lines"},
                             "{\"argv\": [\"true\"], \"labels\": [\"ok\", \"job:x\"]}\n");
  CHECK(batch.exit_code == 2);
  CHECK(Contains(batch.err, "job:x"));
  CHECK(ListTasks(d, {}).empty());
  const std::string id = Submit(d, {"--delay", "1h", "--label", "jobx", "--", "true"});
  const RunResult update = Tq(d, {"update", id, "-l", "job:backup"});
  CHECK(update.exit_code == 2);
  CHECK(Contains(update.err, "the scheduler's"));
  CHECK(TaskJson(d, id)["labels"] == nlohmann::json{"jobx"});
}

TEST_CASE("tq submit from a directory that was removed is refused, not run in /") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gone = d.dir() + "/gone";
  const RunResult r = Process({"/bin/sh", "-c",
                               "mkdir " + Quoted(gone) + " && cd " + Quoted(gone) + " && rmdir " +
                                   Quoted(gone) + " && exec " + Quoted(BinPath("tq")) +
                                   " --socket " + Quoted(d.socket()) + " submit -- true"},
                              {d.MarkEnv()})
                          .Finish();
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.starts_with("tq: cwd: the current directory cannot be named (No such file "
                                  "or directory)"),
                r.err);
  CHECK(ListTasks(d).empty());
}
