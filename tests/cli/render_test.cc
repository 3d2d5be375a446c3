#include "cli/render.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

using nlohmann::json;

json Ended(const char* state, const char* reason, json exit_code, json signal) {
  return json{{"state", state}, {"reason", reason}, {"exit_code", exit_code}, {"signal", signal}};
}

TEST_CASE("tq wait's exit code for each way a task ends (SPEC 10)") {
  struct Case {
    json task;
    int want;
  };
  const Case cases[] = {
      {Ended("succeeded", "exit", 0, nullptr), 0},
      {Ended("expired", "exit", 0, nullptr), 0},
      {Ended("failed", "exit", 7, nullptr), 7},
      {Ended("failed", "signal", nullptr, 9), 137},
      {Ended("failed", "timeout", nullptr, 15), 124},
      {Ended("failed", "spawn-failed", 127, nullptr), 127},
      {Ended("failed", "spawn-failed", 126, nullptr), 126},
      {Ended("cancelled", "cancelled", nullptr, 15), 143},
      {Ended("cancelled", "cancelled", nullptr, nullptr), 125},
      {Ended("failed", "dependency-failed", nullptr, nullptr), 125},
      {Ended("failed", "expired-pending", nullptr, nullptr), 125},
      {Ended("failed", "lost", nullptr, nullptr), 125},
  };
  for (const Case& c : cases) {
    CAPTURE(c.task.dump());
    CHECK(WaitExitCode(c.task) == c.want);
  }
}

TEST_CASE("ShellQuote keeps plain words and quotes everything else readably") {
  struct Case {
    std::string arg, want;
  };
  const Case cases[] = {
      {"plain", "plain"},
      {"/usr/bin/x-y_z.1", "/usr/bin/x-y_z.1"},
      {"", "''"},
      {"a b", "'a b'"},
      {"it's", "'it'\\''s'"},
      {"new\nline", "$'new\\nline'"},
      {"\xff", "$'\\xff'"},
      {"caf\xc3\xa9", "'caf\xc3\xa9'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.arg);
    CHECK(ShellQuote(c.arg) == c.want);
  }
}

TEST_CASE("CommandLine shows argv quoted, or the shell string") {
  CHECK(CommandLine(json{{"argv", {"echo", "a b", ""}}, {"shell", nullptr}}) == "echo 'a b' ''");
  CHECK(CommandLine(json{{"argv", json::array()}, {"shell", "ls | wc"}}) == "ls | wc");
}

}  // namespace
}  // namespace tq
