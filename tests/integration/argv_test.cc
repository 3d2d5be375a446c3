// Arguments, shell strings and stdin payloads reach the task byte for byte (SPEC 2).
#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("argv with spaces quotes newlines empty and invalid UTF-8 args comes out byte for byte") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::vector<std::string> args = {
      "two words",   "it's",      "say \"hi\"", "line1\nline2", "",   "\xff",    "\xc3",
      "caf\xc3\xa9", "tab\there", "$HOME *",    "--",           "-n", "\\0 \\n", " "};
  // printf '%s\0' ARGS... prints every argument followed by a NUL byte.
  std::vector<std::string> submit = {"--", "/usr/bin/printf", "%s\\0"};
  submit.insert(submit.end(), args.begin(), args.end());
  const std::string id = Submit(d, submit);
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);

  std::string expected;
  for (const auto& a : args) expected += a + '\0';
  const RunResult logs = Tq(d, {"logs", id});
  CHECK(logs.exit_code == 0);
  CHECK(logs.out == expected);

  // The stored argv round-trips too (strings or {"b64"} per SPEC 9).
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["argv"].size() == args.size() + 2);
  CHECK(t["argv"][0] == "/usr/bin/printf");
  CHECK(t["argv"][2] == "two words");
  CHECK(t["argv"][6] == "");
}

TEST_CASE("--shell runs through /bin/sh -c") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--shell", "echo a | tr a b"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "b\n");
}

TEST_CASE("--stdin sends the payload to the task byte for byte") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string payload =
      std::string("first line\n\0 nul", 16) + "\xff\xfe raw \xc3 bytes\r\nno newline at the end";
  const RunResult submit = Tq(d, {"submit", "--stdin", "--", "cat"}, payload);
  REQUIRE(submit.exit_code == 0);
  const std::string id = submit.out.substr(0, submit.out.size() - 1);
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == payload);
}

TEST_CASE("without --stdin the task reads /dev/null") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "cat"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "");
}

TEST_CASE("--stderr shows the task's standard error") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sh", "-c", "echo out; echo err >&2"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id}).out == "out\n");
  CHECK(Tq(d, {"logs", id, "--stderr"}).out == "err\n");
}
