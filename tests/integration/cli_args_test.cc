// The command line as scripts meet it (issue 9): each option takes one value, the command starts
// at the first argument that is not an option (or after --), and every refusal exits 2 with
// "tq:" naming the field, before anything is submitted.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// The task's argv from `tq status --json`, as strings (the tests use UTF-8 arguments).
std::vector<std::string> Argv(const TestDaemon& d, const std::string& id) {
  const nlohmann::json task = TaskJson(d, id);
  std::vector<std::string> out;
  for (const auto& a : task["argv"]) out.push_back(a.get<std::string>());
  return out;
}

// Runs tq, expects a usage refusal (exit 2, "tq: ..." naming `field`) and no output.
void CheckRefused(const TestDaemon& d, const std::vector<std::string>& args,
                  const std::string& field, const std::string& stdin_data = "") {
  const RunResult r = Tq(d, args, stdin_data);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out == "");
  CHECK(r.err.rfind("tq: ", 0) == 0);
  CHECK(Contains(r.err, field));
}
}  // namespace

TEST_CASE("an option takes one value and the command starts at the first non-option") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string dep = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", dep}).exit_code == 0);

  const std::string labelled = Submit(d, {"-l", "x", "echo", "hi"});
  CHECK(Argv(d, labelled) == std::vector<std::string>{"echo", "hi"});
  CHECK(TaskJson(d, labelled)["labels"] == nlohmann::json::array({"x"}));

  const std::string repeated = Submit(d, {"-l", "x", "--label", "y", "--after", dep, "echo"});
  CHECK(TaskJson(d, repeated)["labels"] == nlohmann::json::array({"x", "y"}));
  CHECK(TaskJson(d, repeated)["after"] == nlohmann::json::array({std::stoll(dep)}));

  // "--after A B -- cmd": B is the command, not a second dependency; the -- is its argument.
  const std::string second = Submit(d, {"--after", dep, "printf", "--", "x"});
  CHECK(TaskJson(d, second)["after"] == nlohmann::json::array({std::stoll(dep)}));
  CHECK(Argv(d, second) == std::vector<std::string>{"printf", "--", "x"});

  // Options after the command belong to it, and the parser changes none of its bytes.
  const std::string own = Submit(d, {"echo", "--json", "-q", "[a,b]", "--"});
  CHECK(Argv(d, own) == std::vector<std::string>{"echo", "--json", "-q", "[a,b]", "--"});
  CHECK(TaskJson(d, own)["queue"] == "default");
  const std::string dashed = Submit(d, {"-q", "other", "--", "--json", "x"});
  CHECK(Argv(d, dashed) == std::vector<std::string>{"--json", "x"});
  CHECK(TaskJson(d, dashed)["queue"] == "other");
  // A command word that is also a tq command is just a program name.
  CHECK(Argv(d, Submit(d, {"list", "status"})) == std::vector<std::string>{"list", "status"});
}

TEST_CASE("usage refusals exit 2 with tq: and the field, and submit nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  SUBCASE("an unknown option before the command") {
    CheckRefused(d, {"submit", "-l", "x", "--frob", "echo"}, "--frob");
  }
  SUBCASE("empty values") {
    CheckRefused(d, {"submit", "--delay", "", "--", "true"}, "--delay");
    CheckRefused(d, {"submit", "--after", "", "--", "true"}, "--after");
    CheckRefused(d, {"submit", "--key", "", "--", "true"}, "--key");
    CheckRefused(d, {"submit", "--shell", ""}, "--shell");
    CheckRefused(d, {"submit", "--", ""}, "program name");
    CheckRefused(d, {"submit", ""}, "program name");
  }
  SUBCASE("text that is not UTF-8") {
    CheckRefused(d, {"submit", "--label", "a\xff", "--", "true"}, "--label");
    CheckRefused(d, {"submit", "--key", "\xc3", "--", "true"}, "--key");
    CheckRefused(d, {"submit", "--queue", "q\xfe", "--", "true"}, "--queue");
    CheckRefused(d, {"list", "--label", "\xff"}, "--label");
    CheckRefused(d, {"list", "--queue", "\xff"}, "--queue");
    CheckRefused(d, {"retry", "--failed", "--queue", "\xff"}, "--queue");
    CheckRefused(d, {"queue", "pause", "\xff"}, "name");
  }
  SUBCASE("ranges name their real bounds") {
    const RunResult r = Tq(d, {"submit", "--priority", "0", "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(Contains(r.err,
                           "tq: --priority: \"0\" is not a priority: a priority is a "
                           "decimal number from 1 to 5 without leading zeros"),
                  r.err);
    const RunResult c = Tq(d, {"queue", "set", "q", "--concurrency", "-1"});
    CHECK(c.exit_code == 2);
    CHECK_MESSAGE(Contains(c.err, "--concurrency"), c.err);
    CHECK_MESSAGE(!Contains(c.err, "e+308"), c.err);
    CHECK_MESSAGE(!Contains(c.err, "e308"), c.err);
    const RunResult l = Tq(d, {"list", "--limit", "-1"});
    CHECK(l.exit_code == 2);
    CHECK_MESSAGE(Contains(l.err,
                           "tq: --limit: \"-1\" is not a limit: a limit is a decimal number "
                           "from 0 to 2147483647"),
                  l.err);
    CheckRefused(d, {"submit", "--retries", "many", "--", "true"}, "--retries");
  }
  SUBCASE("an option without its value") {
    CheckRefused(d, {"submit", "--queue"}, "--queue");
  }
  SUBCASE("a duration split in two would run its unit: refused with the spelling") {
    for (const auto& [flag, value, unit, spelling] :
         {std::tuple{"--timeout", "10", "minutes", "10m"}, std::tuple{"--delay", "3", "h", "3h"},
          std::tuple{"--pending-ttl", "2", "days", "2d"}}) {
      CAPTURE(flag);
      CheckRefused(d, {"submit", flag, value, unit, "--", "true"}, flag);
      const RunResult r = Tq(d, {"submit", flag, value, unit, "--", "true"});
      CHECK_MESSAGE(Contains(r.err, std::string("write the duration as one word: ") + spelling),
                    r.err);
    }
    // An earlier option's value that is the same word does not hide where the command starts.
    CheckRefused(d, {"submit", "--label", "minutes", "--timeout", "10", "minutes", "--", "true"},
                 "--timeout");
  }
  SUBCASE("arguments a command does not take") {
    CheckRefused(d, {"ping", "extra"}, "extra");
    CheckRefused(d, {"status", "1", "--frob"}, "--frob");
    CheckRefused(d, {"list", "--", "x"}, "--");
  }
  // None of these created a task.
  CHECK(ListTasks(d).empty());
}

TEST_CASE("payloads over a limit are refused before anything is sent") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  SUBCASE("stdin over 8 MiB") {
    const RunResult r = Tq(d, {"submit", "--stdin", "--", "cat"}, std::string((8u << 20) + 1, 'x'));
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(Contains(r.err, "tq: --stdin"), r.err);
    CHECK_MESSAGE(Contains(r.err, "8388608"), r.err);
  }
  // tq's own argv cannot carry such a string (its exec would fail), standard input can.
  SUBCASE("an argument over the kernel's MAX_ARG_STRLEN") {
    const std::string big(131072, 'a');  // with its NUL: one byte over
    CheckRefused(d, {"submit", "--batch", "-0"}, "MAX_ARG_STRLEN",
                 std::string("true\0\0echo\0", 11) + big + std::string("\0\0", 2));
    CheckRefused(d, {"submit", "--batch"}, "MAX_ARG_STRLEN", "true\n#" + big + "\n");
    CheckRefused(d, {"submit", "--batch", "--json-lines"}, "line 2",
                 "{\"argv\": [\"true\"]}\n{\"argv\": [\"echo\", \"" + big + "\"]}\n");
  }
  CHECK(ListTasks(d).empty());
}

TEST_CASE("an argument just inside MAX_ARG_STRLEN runs") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string arg(131071, 'a');  // with its NUL: exactly the kernel's limit
  const std::string id = Submit(d, {"--", "/bin/sh", "-c", "printf %s \"$0\" | wc -c", arg});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "131071\n");
}

TEST_CASE("tq retry exits 1 for a task it cannot re-queue and says what it needs") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", ok}).exit_code == 0);
  const RunResult r = Tq(d, {"retry", ok});
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(Contains(r.err, "task " + ok + " was not re-queued: its state is succeeded"),
                r.err);
  CHECK(TaskState(d, ok) == "succeeded");

  const RunResult none = Tq(d, {"retry"});
  CHECK(none.exit_code == 2);
  CHECK_MESSAGE(Contains(none.err, "--failed"), none.err);
  CHECK_MESSAGE(!Contains(none.err, "not both"), none.err);
  CheckRefused(d, {"retry", ok, "--failed"}, "not both");
}

TEST_CASE("bare tq prints its usage and exits 2, and wait --help gives the exit statuses") {
  TestDaemon d;
  const RunResult bare = Tq(d, {});
  CHECK(bare.exit_code == 2);
  CHECK(bare.out == "");
  CHECK_MESSAGE(Contains(bare.err, "submit"), bare.err);
  CHECK_MESSAGE(Contains(bare.err, "Subcommands:"), bare.err);
  const RunResult help = Tq(d, {"wait", "--help"});
  CHECK(help.exit_code == 0);
  CHECK_MESSAGE(Contains(help.out, "124 when it timed out"), help.out);
  CHECK_MESSAGE(Contains(help.out, "6 when the daemon cannot be reached"), help.out);
}

TEST_CASE("tq list -q is --queue, as in tq submit") {
  TestDaemon d;
  const std::string in_q = Submit(d, {"-q", "q1", "--delay", "1h", "--", "true"});
  Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult r = Tq(d, {"list", "-q", "q1", "--json"});
  REQUIRE(r.exit_code == 0);
  const std::vector<nlohmann::json> tasks = JsonLines(r.out);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0]["id"].dump() == in_q);
}

TEST_CASE("an option that keeps one value refuses a second, quoting both, in every command") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const struct {
    std::vector<std::string> args;
    std::string err;
  } kCases[] = {
      {{"list", "-q", "a", "-q", "b"},
       "tq: --queue: given twice (\"a\" and \"b\"); give it once\n"},
      {{"list", "--queue", "a", "--queue=b"},
       "tq: --queue: given twice (\"a\" and \"b\"); give it once\n"},
      {{"list", "--limit", "1", "--limit", "2", "--limit", "3"},
       "tq: --limit: given 3 times (\"1\", \"2\" and \"3\"); give it once\n"},
      {{"submit", "-p", "1", "--priority", "2", "--", "true"},
       "tq: --priority: given twice (\"1\" and \"2\"); give it once\n"},
      {{"cancel", "--state", "pending", "-q", "a", "-q", "b"},
       "tq: --queue: given twice (\"a\" and \"b\"); give it once\n"},
      {{"cron", "next", "@daily", "--tz", "UTC", "--tz", "UTC"},
       "tq: --tz: given twice (\"UTC\" and \"UTC\"); give it once\n"},
      {{"--socket", d.socket(), "ping"},
       "tq: --socket: given twice (\"" + d.socket() + "\" and \"" + d.socket() +
           "\"); give it once\n"},
  };
  for (const auto& c : kCases) {
    const RunResult r = Tq(d, c.args);
    CAPTURE(c.args.front());
    CHECK(r.exit_code == 2);
    CHECK(r.out == "");
    CHECK(r.err == c.err);
  }
  // A value left out is still said so, and options that keep several still take them.
  CHECK(Tq(d, {"list", "--queue"}).err == "tq: --queue: a value is required\n");
  const std::string id = Submit(d, {"-l", "x", "-l", "y", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"list", "--label", "x"}).exit_code == 0);
  CHECK(Tq(d, {"cancel", "--state", "pending", "--state", "running", "-q", "default"}).exit_code ==
        0);
  CHECK(TaskState(d, id) == "cancelled");
}

TEST_CASE("tq --version and tq -V print what tq version prints") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult version = Tq(d, {"version"});
  REQUIRE(version.exit_code == 0);
  CHECK(Contains(version.out, "tqd "));
  for (const char* flag : {"--version", "-V"}) {
    CAPTURE(flag);
    const RunResult r = Tq(d, {flag});
    CHECK(r.exit_code == 0);
    CHECK(r.err == "");
    CHECK(r.out == version.out);
  }
  const RunResult json = Tq(d, {"--json", "--version"});
  CHECK(json.exit_code == 0);
  CHECK(json.out == Tq(d, {"--json", "version"}).out);
  // After a command it is no flag of that command's (submit has a --version of its own).
  const RunResult after = Tq(d, {"list", "--version"});
  CHECK(after.exit_code == 2);
  CHECK(after.out == "");
  CHECK(after.err == "tq: list: -V/--version goes alone: tq --version (or tq version)\n");
  const RunResult extra = Tq(d, {"--version", "frob"});
  CHECK(extra.exit_code == 2);
  CHECK(Contains(extra.err, "\"frob\" is not a command"));
  const std::string keyed = Submit(d, {"--key", "k", "--version", "2", "--", "true"});
  CHECK(TaskJson(d, keyed)["version"] == 2);
}
