// tq cron next (issue 5): the next firings of a schedule, computed by the client alone — these
// tests point tq at a socket that does not exist.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/model/wall_time.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kNoNextSocket = "/nonexistent/tq-cron-next-test.sock";

RunResult CronNext(const std::vector<std::string>& args, const std::string& tz = "UTC") {
  std::vector<std::string> full = {"cron", "next"};
  full.insert(full.end(), args.begin(), args.end());
  return RunTq(kNoNextSocket, full, {"TZ=" + tz});
}

long long TimeMsOf(const std::string& rfc3339) {
  tq::Result<tq::WallMs> t = tq::ParseRfc3339(rfc3339);
  REQUIRE_MESSAGE(t.ok(), t.status().message());
  return *t;
}

}  // namespace

TEST_CASE("tq cron next prints RFC 3339 firings with offsets, across a DST change") {
  const RunResult r = CronNext(
      {"30 2 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-28T12:00", "--count", "3"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(Lines(r.out) == std::vector<std::string>{"2026-03-29T03:00:00+02:00",
                                                 "2026-03-30T02:30:00+02:00",
                                                 "2026-03-31T02:30:00+02:00"});
  CHECK(r.err.empty());

  const RunResult skip = CronNext({"30 2 * * *", "--tz", "Europe/Berlin", "--from",
                                   "2026-03-28T12:00", "--count", "1", "--dst", "skip"});
  CHECK(skip.exit_code == 0);
  CHECK(skip.out == "2026-03-30T02:30:00+02:00\n");

  const RunResult both = CronNext({"30 2 * * *", "--tz", "Europe/Berlin", "--from",
                                   "2026-10-24T12:00", "--count", "2", "--dst", "both"});
  CHECK(both.exit_code == 0);
  CHECK(both.out == "2026-10-25T02:30:00+02:00\n2026-10-25T02:30:00+01:00\n");
}

TEST_CASE("tq cron next uses $TZ without --tz, and prints 5 firings by default") {
  const RunResult r = CronNext({"0 * * * *", "--from", "2026-11-01T00:30"}, "America/New_York");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(Lines(r.out) ==
        std::vector<std::string>{"2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00",
                                 "2026-11-01T02:00:00-05:00", "2026-11-01T03:00:00-05:00",
                                 "2026-11-01T04:00:00-05:00"});

  // Without --from: five firings from now, in order.
  const RunResult now = CronNext({"*/10 * * * * *"});
  CHECK(now.exit_code == 0);
  const std::vector<std::string> lines = Lines(now.out);
  REQUIRE(lines.size() == 5);
  for (size_t i = 1; i < lines.size(); ++i) CHECK(TimeMsOf(lines[i - 1]) < TimeMsOf(lines[i]));
}

TEST_CASE("tq cron next --json") {
  for (const bool before : {false, true}) {
    std::vector<std::string> args = {"cron",    "next",
                                     "@every",  "90s",
                                     "--tz",    "Asia/Kolkata",
                                     "--from",  "2026-01-01T00:00:00Z",
                                     "--count", "2"};
    args.insert(before ? args.begin() : args.end(), "--json");
    const RunResult r = RunTq(kNoNextSocket, args, {"TZ=UTC"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["expression"] == "@every 90s");
    CHECK(j["zone"] == "Asia/Kolkata");
    CHECK(j["dst"] == "cron");
    CHECK(j["firings"] == nlohmann::json{"2026-01-01T05:31:30+05:30", "2026-01-01T05:33:00+05:30"});
    CHECK(j["firings_utc"] == nlohmann::json{"2026-01-01T00:01:30Z", "2026-01-01T00:03:00Z"});
  }
}

TEST_CASE("tq cron next refuses bad input with exit 2 and the reason") {
  struct Case {
    std::vector<std::string> args;
    const char* message;  // the whole of stderr
  };
  const Case cases[] = {
      {{"60 * * * *"}, "tq: minute \"60\": 60 is out of range 0..59\n"},
      {{"0 0 30 FEB *"},
       "tq: day-of-month \"30\" with month \"FEB\" can never fire: no allowed month has a day "
       "30\n"},
      {{"* * *"},
       "tq: schedule \"* * *\": expected 5 or 6 fields, got 3 ([SECOND] MINUTE HOUR "
       "DAY-OF-MONTH MONTH DAY-OF-WEEK)\n"},
      {{"@reboot"},
       "tq: schedule \"@reboot\" has no time-based firing: it runs once when tqd starts\n"},
      {{"0 0 * * *", "--tz", "Mars/Olympus_Mons"},
       "tq: --tz: \"Mars/Olympus_Mons\" is not a known time zone (not in the system tz "
       "database)\n"},
      {{"0 0 * * *", "--dst", "later"},
       "tq: --dst: \"later\" is not a DST policy (use cron, skip, first or both)\n"},
      {{"0 0 * * *", "--tz", "Europe/Berlin", "--from", "2026-03-29 02:30"},
       "tq: --from: \"2026-03-29 02:30\" does not exist in Europe/Berlin (a daylight-saving "
       "change skips it; give another time or an explicit offset)\n"},
      {{"0 0 */5 2 1#5", "--from", "2026-01-01T00:00:00Z"},
       "tq: schedule \"0 0 */5 2 1#5\" never fires within 50 years after "
       "2026-01-01T00:00:00+00:00 in UTC\n"},
  };
  for (const Case& c : cases) {
    const std::string first = c.args[0];
    CAPTURE(first);
    const RunResult r = CronNext(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == c.message);
  }
  const RunResult zero = CronNext({"0 0 * * *", "--count", "0"});
  CHECK(zero.exit_code == 2);
  CHECK(Contains(zero.err, "--count"));
  const RunResult none = CronNext({});
  CHECK(none.exit_code == 2);
  CHECK(Contains(none.err, "expression"));
}

TEST_CASE("tq cron next: the firings it found, then the reason it stopped") {
  const RunResult r = CronNext({"0 0 1 1 *", "--from", "9997-06-01T00:00:00Z", "--count", "5"});
  CHECK(r.exit_code == 2);
  CHECK(r.out == "9998-01-01T00:00:00+00:00\n9999-01-01T00:00:00+00:00\n");
  CHECK(r.err == "tq: schedule \"0 0 1 1 *\" does not fire before the year 10000 in UTC\n");
}
