// Task ids and integer options are decimal (issue 48): `tq cancel 017` cancelled task 15 (octal),
// `tq status 0x10` showed task 16 and 20 digits became 9223372036854775807. Each such value is
// refused with exit 2, naming the text typed and what is allowed, and nothing changes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kTaskIdRule =
    "a task id is a decimal number from 1 to 9223372036854775807 without leading zeros\n";

// Runs tq and expects a usage refusal (exit 2, nothing on stdout) whose one line is `message`.
void CheckRefusal(const TestDaemon& d, const std::vector<std::string>& args,
                  const std::string& message) {
  const RunResult r = Tq(d, args);
  CHECK(r.exit_code == 2);
  CHECK(r.out == "");
  CHECK(r.err == message);
}

}  // namespace

TEST_CASE("task ids and integer options are decimal: anything else is refused, nothing changes") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // Tasks 1..16: 15 runs, 16 waits, the others succeed.
  for (int n = 1; n <= 16; ++n) {
    const std::vector<std::string> args =
        n == 15   ? std::vector<std::string>{"--", "sleep", "600"}
        : n == 16 ? std::vector<std::string>{"--delay", "1h", "--", "true"}
                  : std::vector<std::string>{"--", "true"};
    REQUIRE(Submit(d, args) == std::to_string(n));
  }
  REQUIRE(WaitState(d, "15", "running"));
  REQUIRE(WaitState(d, "8", "succeeded"));

  // Octal, hexadecimal and past the largest id: the exact refusal, naming the text typed.
  CheckRefusal(d, {"cancel", "017"},
               std::string("tq: ids: \"017\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"clean", "010"},
               std::string("tq: ids: \"010\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"status", "0x10"},
               std::string("tq: id: \"0x10\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"status", "99999999999999999999"},
               std::string("tq: id: \"99999999999999999999\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"cancel", "9223372036854775808"},
               std::string("tq: ids: \"9223372036854775808\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"submit", "--after", "017", "--", "true"},
               std::string("tq: --after: \"017\" is not a task id: ") + kTaskIdRule);
  CheckRefusal(d, {"submit", "--key", "k", "--version", "99999999999999999999", "--", "true"},
               "tq: --version: \"99999999999999999999\" is not a version: a version is a decimal "
               "number from -9223372036854775808 to 9223372036854775807 without leading zeros\n");
  // The same style for the ranges that printed a 310-digit bound or CLI11's own words.
  CheckRefusal(d, {"logs", "15", "--attempt", "0"},
               "tq: --attempt: \"0\" is not an attempt number: an attempt number is a decimal "
               "number from 1 to 2147483647 without leading zeros\n");
  CheckRefusal(d, {"cron", "next", "0 0 * * *", "--count", "0"},
               "tq: --count: \"0\" is not a count: a count is a decimal number from 1 to 10000 "
               "without leading zeros\n");

  // Every verb that takes ids, and every integer option, reads them the same way.
  const struct {
    std::vector<std::string> args;
    std::string typed;  // the text the refusal quotes
  } refused[] = {
      {{"wait", "017"}, "017"},
      {{"logs", "017"}, "017"},
      {{"retry", "017"}, "017"},
      {{"hold", "016"}, "016"},
      {{"release", "016"}, "016"},
      {{"update", "016", "--priority", "1"}, "016"},
      {{"cancel", "15", "0x10"}, "0x10"},
      {{"status", "+15"}, "+15"},
      {{"status", " 15"}, " 15"},
      {{"status", "15 "}, "15 "},
      {{"status", "1e1"}, "1e1"},
      {{"status", "0"}, "0"},
      {{"status", ""}, ""},
      {{"status", "1\xff"}, "1\\xff"},
      {{"submit", "--after", "8,017", "--", "true"}, "017"},
      {{"submit", "--after", "0x8", "--", "true"}, "0x8"},
      {{"submit", "--priority", "03", "--", "true"}, "03"},
      {{"submit", "--retries", "010", "--", "true"}, "010"},
      {{"submit", "--retries", "-1", "--", "true"}, "-1"},
      {{"submit", "--shards", "010", "--", "true"}, "010"},
      {{"submit", "--key", "k", "--version", "07", "--", "true"}, "07"},
      {{"submit", "--retry-on-exit", "075", "--", "true"}, "075"},
      {{"update", "16", "--priority", "02"}, "02"},
      {{"update", "16", "--retries", "0x1"}, "0x1"},
      {{"list", "--limit", "0x10"}, "0x10"},
      {{"logs", "15", "--attempt", "01"}, "01"},
      {{"queue", "set", "default", "--concurrency", "010"}, "010"},
      {{"queue", "add", "q", "--concurrency", "0"}, "0"},
      {{"cron", "next", "0 0 * * *", "--count", "05"}, "05"},
  };
  for (const auto& c : refused) {
    CAPTURE(c.args);
    const RunResult r = Tq(d, c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out == "");
    CHECK_MESSAGE(Contains(r.err, "\"" + c.typed + "\" is not "), r.err);
    CHECK_MESSAGE(Contains(r.err, "is a decimal number from "), r.err);
    CHECK_MESSAGE(Contains(r.err, " without leading zeros\n"), r.err);
  }

  // Nothing changed: no task was made, 15 still runs, 8 is still there, 16 kept its priority.
  CHECK(ListTasks(d).size() == 16);
  CHECK(TaskState(d, "15") == "running");
  CHECK(TaskState(d, "8") == "succeeded");
  CHECK(TaskJson(d, "16")["priority"] == 3);
  CHECK(TaskJson(d, "16")["held"] == false);
  // Decimal ids still work.
  const RunResult cancel = Tq(d, {"cancel", "15"});
  CHECK(cancel.exit_code == 0);
  CHECK(TaskState(d, "15") == "cancelled");
}
