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

TEST_CASE("a table cuts its last column only when given a width") {
  const std::vector<std::vector<std::string>> rows = {{"command", std::string(100, 'x')}};
  const std::string cut = TablePrinter(40).Render(rows);
  CHECK(cut == "command  " + std::string(30, 'x') + "~\n");
  CHECK(TablePrinter(0).Render(rows) == "command  " + std::string(100, 'x') + "\n");
}

TEST_CASE("a table printed in pages keeps its columns aligned") {
  TablePrinter table(0);
  CHECK(table.Render({{"ID", "STATE"}, {"1", "pending"}}) == "ID  STATE\n1   pending\n");
  // A wider cell in a later page widens its column from then on, never narrows it.
  CHECK(table.Render({{"12345", "failed"}}) == "12345  failed\n");
  CHECK(table.Render({{"7", "ok"}}) == "7      ok\n");
}

TEST_CASE("a table pads coloured cells on their visible text") {
  const std::string red = "\033[31mfailed\033[0m";
  const std::string green = "\033[32msucceeded\033[0m";
  TablePrinter table(0);
  CHECK(table.Render({{"ID", "STATE", "CMD"}, {"1", red, "x"}, {"2", green, "y"}}) ==
        "ID  STATE      CMD\n"
        "1   " +
            red +
            "     x\n"
            "2   " +
            green + "  y\n");
  // The same table without colour lines up the same.
  CHECK(TablePrinter(0).Render(
            {{"ID", "STATE", "CMD"}, {"1", "failed", "x"}, {"2", "succeeded", "y"}}) ==
        "ID  STATE      CMD\n1   failed     x\n2   succeeded  y\n");
}

TEST_CASE("a table cuts its last column by what a terminal shows of the line") {
  const std::string red = "\033[31mfailed (exit 3)\033[0m";
  // Colour codes before it do not count: the last column has the room it would have without.
  CHECK(TablePrinter(20).Render({{"\033[2mstate\033[0m", "0123456789abc"}}) ==
        "\033[2mstate\033[0m  0123456789abc\n");
  // A coloured last cell that fits keeps its colour; one that is cut loses it.
  CHECK(TablePrinter(30).Render({{"state", red}}) == "state  " + red + "\n");
  CHECK(TablePrinter(16).Render({{"state", red}}) == "state  failed (~\n");
}

TEST_CASE("the WHEN column says what a pending task waits for") {
  const json none =
      json{{"state", "pending"},
           {"waiting", {{"until", nullptr}, {"after", json::array()}, {"queue_paused", false}}}};
  CHECK(WaitingNote(none) == "ready");
  const json all =
      json{{"state", "pending"},
           {"waiting",
            {{"until", "2030-01-02T03:04:05.000Z"}, {"after", {12, 13}}, {"queue_paused", true}}}};
  const std::string note = WaitingNote(all);
  CHECK(note.rfind("queue paused; after 12,13; at 2030-01-0", 0) == 0);
  CHECK(WaitingNote(json{{"state", "running"}}) == "-");
  CHECK(WaitingNote(json{{"state", "pending"}}) == "-");  // an older daemon says nothing
  // Placed on a host that is not live (a store several hosts share).
  const json away =
      json{{"state", "pending"},
           {"waiting", {{"host", {{"name", "web-2"}, {"state", "stopped"}}}, {"units", nullptr}}}};
  CHECK(WaitingNote(away) == "waiting for host web-2 (stopped)");
  // A start a full disk prevented comes first, with when it is tried again.
  const json not_started = json{{"state", "pending"},
                                {"waiting",
                                 {{"not_started", "the state directory's disk is full"},
                                  {"until", "2030-01-02T03:04:05.000Z"}}}};
  CHECK(WaitingNote(not_started)
            .rfind("not started: the state directory's disk is full; at 2030-", 0) == 0);
}

TEST_CASE("a running task's elapsed time comes from its current attempt") {
  const json running =
      json{{"state", "running"}, {"attempt_log", {{{"started", "2026-01-01T00:00:00.000Z"}}}}};
  const int64_t start = 1767225600000;  // 2026-01-01T00:00:00Z
  CHECK(RunningFor(running, start + 123000) == "2m03s");
  CHECK(RunningFor(json{{"state", "succeeded"}, {"attempt_log", json::array()}}, start) == "");
}

}  // namespace
}  // namespace tq
