#include "core/cron/cron_next.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/model/wall_time.h"

namespace tq {
namespace {

TimeZone Zone(const std::string& name) {
  Result<TimeZone> z = LoadTimeZone(name);
  REQUIRE_MESSAGE(z.ok(), z.status().message());
  return *z;
}

// The next `n` firings after `from` (RFC 3339), each in the zone's RFC 3339 with offset.
std::vector<std::string> Firings(const std::string& expr, const std::string& zone,
                                 const std::string& from, DstPolicy dst, size_t n) {
  Result<CronExpr> e = ParseCron(expr);
  REQUIRE_MESSAGE(e.ok(), e.status().message());
  Result<WallMs> after = ParseRfc3339(from);
  REQUIRE_MESSAGE(after.ok(), after.status().message());
  const TimeZone z = Zone(zone);
  std::vector<std::string> out;
  WallMs t = *after;
  while (out.size() < n) {
    Result<WallMs> next = NextFire(*e, t, z, dst);
    REQUIRE_MESSAGE(next.ok(), next.status().message());
    REQUIRE(*next > t);
    out.push_back(FormatRfc3339InZone(*next, z));
    t = *next;
  }
  return out;
}

struct Case {
  const char* expr;
  const char* zone;
  DstPolicy dst;
  const char* from;
  std::vector<std::string> want;
};

void Check(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    const std::string expr = c.expr, zone = c.zone, from = c.from;
    const std::string dst = DstPolicyName(c.dst);
    CAPTURE(expr);
    CAPTURE(zone);
    CAPTURE(dst);
    CAPTURE(from);
    CHECK(Firings(c.expr, c.zone, c.from, c.dst, c.want.size()) == c.want);
  }
}

constexpr DstPolicy kCron = DstPolicy::kCron;
constexpr DstPolicy kSkip = DstPolicy::kSkip;
constexpr DstPolicy kFirst = DstPolicy::kFirst;
constexpr DstPolicy kBoth = DstPolicy::kBoth;
constexpr DstPolicy kAll[] = {kCron, kSkip, kFirst, kBoth};

TEST_CASE("NextFire: Europe/Berlin spring forward (02:00 CET -> 03:00 CEST, 2026-03-29)") {
  const char* from = "2026-03-28T12:00:00+01:00";
  Check({
      // A fixed time in the gap fires at the end of the gap, except with dst = skip.
      {"30 2 * * *",
       "Europe/Berlin",
       kCron,
       from,
       {"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kFirst,
       from,
       {"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kBoth,
       from,
       {"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kSkip,
       from,
       {"2026-03-30T02:30:00+02:00", "2026-03-31T02:30:00+02:00"}},
      {"0 2 * * *", "Europe/Berlin", kCron, from, {"2026-03-29T03:00:00+02:00"}},
      // Several times in the gap, and one right after it, fire once at 03:00.
      {"*/20 2,3 * * *",
       "Europe/Berlin",
       kCron,
       from,
       {"2026-03-29T03:00:00+02:00", "2026-03-29T03:20:00+02:00", "2026-03-29T03:40:00+02:00",
        "2026-03-30T02:00:00+02:00"}},
      {"*/20 2,3 * * *",
       "Europe/Berlin",
       kSkip,
       from,
       {"2026-03-29T03:00:00+02:00", "2026-03-29T03:20:00+02:00", "2026-03-29T03:40:00+02:00",
        "2026-03-30T02:00:00+02:00"}},
      // Times outside the gap are not moved.
      {"30 1 * * *",
       "Europe/Berlin",
       kCron,
       from,
       {"2026-03-29T01:30:00+01:00", "2026-03-30T01:30:00+02:00"}},
      {"30 3 * * *", "Europe/Berlin", kSkip, from, {"2026-03-29T03:30:00+02:00"}},
  });
  for (DstPolicy dst : kAll) {
    // Elapsed-time schedules: the skipped hour simply does not happen.
    Check({
        {"0 * * * *",
         "Europe/Berlin",
         dst,
         "2026-03-29T00:30:00+01:00",
         {"2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"}},
        {"*/15 * * * *",
         "Europe/Berlin",
         dst,
         "2026-03-29T01:40:00+01:00",
         {"2026-03-29T01:45:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T03:15:00+02:00"}},
        {"30 * * * *",
         "Europe/Berlin",
         dst,
         "2026-03-29T01:00:00+01:00",
         {"2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00"}},
        {"0 */2 * * *",
         "Europe/Berlin",
         dst,
         "2026-03-28T23:30:00+01:00",
         {"2026-03-29T00:00:00+01:00", "2026-03-29T04:00:00+02:00"}},
        {"@hourly",
         "Europe/Berlin",
         dst,
         "2026-03-29T01:00:00+01:00",
         {"2026-03-29T03:00:00+02:00"}},
    });
  }
}

TEST_CASE("NextFire: Europe/Berlin fall back (03:00 CEST -> 02:00 CET, 2026-10-25)") {
  const char* from = "2026-10-24T12:00:00+02:00";
  Check({
      // A fixed time in the repeated hour fires at the first occurrence; with both, twice.
      {"30 2 * * *",
       "Europe/Berlin",
       kCron,
       from,
       {"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kSkip,
       from,
       {"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kFirst,
       from,
       {"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kBoth,
       from,
       {"2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00", "2026-10-26T02:30:00+01:00"}},
      // A search that starts inside the second pass does not fire the time again...
      {"30 2 * * *",
       "Europe/Berlin",
       kCron,
       "2026-10-25T02:15:00+01:00",
       {"2026-10-26T02:30:00+01:00"}},
      // ...nor does one that starts in the first pass after the firing.
      {"30 2 * * *",
       "Europe/Berlin",
       kCron,
       "2026-10-25T02:45:00+02:00",
       {"2026-10-26T02:30:00+01:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kSkip,
       "2026-10-25T02:45:00+02:00",
       {"2026-10-26T02:30:00+01:00"}},
      // With both, the second occurrence is still ahead from either place.
      {"30 2 * * *",
       "Europe/Berlin",
       kBoth,
       "2026-10-25T02:15:00+01:00",
       {"2026-10-25T02:30:00+01:00"}},
      {"30 2 * * *",
       "Europe/Berlin",
       kBoth,
       "2026-10-25T02:45:00+02:00",
       {"2026-10-25T02:30:00+01:00", "2026-10-26T02:30:00+01:00"}},
      // Every 30 minutes during hour 2 is still a fixed hour.
      {"*/30 2 * * *",
       "Europe/Berlin",
       kCron,
       from,
       {"2026-10-25T02:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-26T02:00:00+01:00"}},
      {"*/30 2 * * *",
       "Europe/Berlin",
       kBoth,
       from,
       {"2026-10-25T02:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-25T02:00:00+01:00",
        "2026-10-25T02:30:00+01:00", "2026-10-26T02:00:00+01:00"}},
      // A range of hours is a list of fixed hours: hour 2 fires once.
      {"0 0-23 * * *",
       "Europe/Berlin",
       kCron,
       "2026-10-25T01:30:00+02:00",
       {"2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00"}},
  });
  for (DstPolicy dst : kAll) {
    // Elapsed-time schedules run as the hours really pass: twice in the repeated hour.
    Check({
        {"0 * * * *",
         "Europe/Berlin",
         dst,
         "2026-10-25T00:30:00+02:00",
         {"2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00",
          "2026-10-25T03:00:00+01:00"}},
        {"*/20 * * * *",
         "Europe/Berlin",
         dst,
         "2026-10-25T02:30:00+02:00",
         {"2026-10-25T02:40:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T02:20:00+01:00",
          "2026-10-25T02:40:00+01:00", "2026-10-25T03:00:00+01:00"}},
        {"0 */2 * * *",
         "Europe/Berlin",
         dst,
         "2026-10-25T01:00:00+02:00",
         {"2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T04:00:00+01:00"}},
        {"@every 30m",
         "Europe/Berlin",
         dst,
         "2026-10-25T02:45:00+02:00",
         {"2026-10-25T02:15:00+01:00", "2026-10-25T02:45:00+01:00"}},
    });
  }
}

TEST_CASE("NextFire: America/New_York spring forward and fall back") {
  // 2026-03-08: 02:00 EST -> 03:00 EDT. 2026-11-01: 02:00 EDT -> 01:00 EST.
  Check({
      {"30 2 * * *",
       "America/New_York",
       kCron,
       "2026-03-07T12:00:00-05:00",
       {"2026-03-08T03:00:00-04:00", "2026-03-09T02:30:00-04:00"}},
      {"30 2 * * *",
       "America/New_York",
       kSkip,
       "2026-03-07T12:00:00-05:00",
       {"2026-03-09T02:30:00-04:00"}},
      {"30 2 * * *",
       "America/New_York",
       kBoth,
       "2026-03-07T12:00:00-05:00",
       {"2026-03-08T03:00:00-04:00"}},
      {"0 * * * *",
       "America/New_York",
       kCron,
       "2026-03-08T00:30:00-05:00",
       {"2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00"}},
      {"30 1 * * *",
       "America/New_York",
       kCron,
       "2026-10-31T12:00:00-04:00",
       {"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
      {"30 1 * * *",
       "America/New_York",
       kFirst,
       "2026-10-31T12:00:00-04:00",
       {"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
      {"30 1 * * *",
       "America/New_York",
       kSkip,
       "2026-10-31T12:00:00-04:00",
       {"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
      {"30 1 * * *",
       "America/New_York",
       kBoth,
       "2026-10-31T12:00:00-04:00",
       {"2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-02T01:30:00-05:00"}},
      {"30 2 * * *",
       "America/New_York",
       kBoth,
       "2026-10-31T12:00:00-04:00",
       {"2026-11-01T02:30:00-05:00"}},
      {"0 * * * *",
       "America/New_York",
       kCron,
       "2026-11-01T00:30:00-04:00",
       {"2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00"}},
  });
}

TEST_CASE("NextFire: Australia/Lord_Howe moves its clocks by 30 minutes") {
  // 2026-04-05: 02:00 +11 -> 01:30 +10:30. 2026-10-04: 02:00 +10:30 -> 02:30 +11.
  Check({
      {"15 2 * * *",
       "Australia/Lord_Howe",
       kCron,
       "2026-10-03T12:00:00+10:30",
       {"2026-10-04T02:30:00+11:00", "2026-10-05T02:15:00+11:00"}},
      {"15 2 * * *",
       "Australia/Lord_Howe",
       kSkip,
       "2026-10-03T12:00:00+10:30",
       {"2026-10-05T02:15:00+11:00"}},
      {"45 2 * * *",
       "Australia/Lord_Howe",
       kSkip,
       "2026-10-03T12:00:00+10:30",
       {"2026-10-04T02:45:00+11:00"}},
      {"0,30 * * * *",
       "Australia/Lord_Howe",
       kCron,
       "2026-10-04T01:15:00+10:30",
       {"2026-10-04T01:30:00+10:30", "2026-10-04T02:30:00+11:00", "2026-10-04T03:00:00+11:00"}},
      {"45 1 * * *",
       "Australia/Lord_Howe",
       kCron,
       "2026-04-04T12:00:00+11:00",
       {"2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"}},
      {"45 1 * * *",
       "Australia/Lord_Howe",
       kBoth,
       "2026-04-04T12:00:00+11:00",
       {"2026-04-05T01:45:00+11:00", "2026-04-05T01:45:00+10:30", "2026-04-06T01:45:00+10:30"}},
      {"15 1 * * *",
       "Australia/Lord_Howe",
       kBoth,
       "2026-04-04T12:00:00+11:00",
       {"2026-04-05T01:15:00+11:00", "2026-04-06T01:15:00+10:30"}},
      {"*/30 * * * *",
       "Australia/Lord_Howe",
       kCron,
       "2026-04-05T01:15:00+11:00",
       {"2026-04-05T01:30:00+11:00", "2026-04-05T01:30:00+10:30", "2026-04-05T02:00:00+10:30"}},
  });
}

TEST_CASE("NextFire: zones whose rules changed use the rules of the date") {
  Check({
      // Moscow had summer time until 2011 (03:00 MSD on 2010-03-28), then none.
      {"30 2 * * *",
       "Europe/Moscow",
       kCron,
       "2010-03-27T12:00:00+03:00",
       {"2010-03-28T03:00:00+04:00", "2010-03-29T02:30:00+04:00"}},
      {"30 2 * * *",
       "Europe/Moscow",
       kCron,
       "2012-03-24T12:00:00+04:00",
       {"2012-03-25T02:30:00+04:00", "2012-03-26T02:30:00+04:00"}},
      // 2014-10-26: back from +04 to +03 for good, repeating 01:00-02:00.
      {"30 1 * * *",
       "Europe/Moscow",
       kBoth,
       "2014-10-25T12:00:00+04:00",
       {"2014-10-26T01:30:00+04:00", "2014-10-26T01:30:00+03:00", "2014-10-27T01:30:00+03:00"}},
      {"30 1 * * *",
       "Europe/Moscow",
       kCron,
       "2015-10-24T12:00:00+03:00",
       {"2015-10-25T01:30:00+03:00"}},
      // Sao Paulo's summer time began at midnight until 2018 and was abolished in 2019.
      {"@daily",
       "America/Sao_Paulo",
       kCron,
       "2018-11-03T12:00:00-03:00",
       {"2018-11-04T01:00:00-02:00", "2018-11-05T00:00:00-02:00"}},
      {"@daily",
       "America/Sao_Paulo",
       kSkip,
       "2018-11-03T12:00:00-03:00",
       {"2018-11-05T00:00:00-02:00"}},
      {"@daily",
       "America/Sao_Paulo",
       kCron,
       "2019-11-02T12:00:00-03:00",
       {"2019-11-03T00:00:00-03:00"}},
      {"30 23 * * *",
       "America/Sao_Paulo",
       kBoth,
       "2018-02-17T12:00:00-02:00",
       {"2018-02-17T23:30:00-02:00", "2018-02-17T23:30:00-03:00", "2018-02-18T23:30:00-03:00"}},
      // Tokyo has kept +09:00 since 1951.
      {"30 2 * * *",
       "Asia/Tokyo",
       kCron,
       "2026-03-28T12:00:00+09:00",
       {"2026-03-29T02:30:00+09:00"}},
  });
}

TEST_CASE("NextFire: calendar corners") {
  Check({
      // Leap days.
      {"0 0 29 2 *",
       "UTC",
       kCron,
       "2025-01-01T00:00:00Z",
       {"2028-02-29T00:00:00+00:00", "2032-02-29T00:00:00+00:00"}},
      {"0 0 29 2 *", "UTC", kCron, "2096-03-01T00:00:00Z", {"2104-02-29T00:00:00+00:00"}},
      {"0 0 L 2 *",
       "UTC",
       kCron,
       "2027-01-01T00:00:00Z",
       {"2027-02-28T00:00:00+00:00", "2028-02-29T00:00:00+00:00"}},
      {"0 0 L * *",
       "UTC",
       kCron,
       "2028-01-15T00:00:00Z",
       {"2028-01-31T00:00:00+00:00", "2028-02-29T00:00:00+00:00", "2028-03-31T00:00:00+00:00",
        "2028-04-30T00:00:00+00:00"}},
      // The fifth Monday exists only in some months.
      {"0 0 * * MON#5",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-03-30T00:00:00+00:00", "2026-06-29T00:00:00+00:00"}},
      // ... and a fifth Monday of February only on a leap day that is a Monday.
      {"0 0 * 2 MON#5",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2044-02-29T00:00:00+00:00", "2072-02-29T00:00:00+00:00", "2112-02-29T00:00:00+00:00"}},
      {"0 0 * * 5L",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-30T00:00:00+00:00", "2026-02-27T00:00:00+00:00"}},
      {"0 9 * * 2#1",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-06T09:00:00+00:00", "2026-02-03T09:00:00+00:00"}},
      // Year ends.
      {"* * * * *", "UTC", kCron, "2026-12-31T23:59:00Z", {"2027-01-01T00:00:00+00:00"}},
      {"59 23 31 12 *", "UTC", kCron, "2026-12-31T23:59:00Z", {"2027-12-31T23:59:00+00:00"}},
      {"@yearly", "UTC", kCron, "2026-12-31T23:59:59Z", {"2027-01-01T00:00:00+00:00"}},
      {"59 59 23 31 12 *",
       "UTC",
       kCron,
       "2026-12-31T23:59:58Z",
       {"2026-12-31T23:59:59+00:00", "2027-12-31T23:59:59+00:00"}},
      {"0 0 1 1 *",
       "Pacific/Auckland",
       kCron,
       "2026-12-31T10:59:59Z",
       {"2027-01-01T00:00:00+13:00"}},
      // LW and nW.
      {"0 0 LW * *",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-30T00:00:00+00:00", "2026-02-27T00:00:00+00:00", "2026-03-31T00:00:00+00:00"}},
      {"0 0 1W * *", "UTC", kCron, "2026-07-15T00:00:00Z", {"2026-08-03T00:00:00+00:00"}},
      {"0 0 1W * *", "UTC", kCron, "2026-01-15T00:00:00Z", {"2026-02-02T00:00:00+00:00"}},
      {"0 0 31W * *",
       "UTC",
       kCron,
       "2026-05-01T00:00:00Z",
       {"2026-05-29T00:00:00+00:00", "2026-07-31T00:00:00+00:00"}},
      {"0 0 15W * *", "UTC", kCron, "2026-08-01T00:00:00Z", {"2026-08-14T00:00:00+00:00"}},
      // Vixie: both day fields restricted, either matches.
      {"0 0 13 * FRI",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-02T00:00:00+00:00", "2026-01-09T00:00:00+00:00", "2026-01-13T00:00:00+00:00",
        "2026-01-16T00:00:00+00:00"}},
      // Vixie: a day-of-month that starts with * makes both fields required.
      {"0 0 */2 * MON",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-05T00:00:00+00:00", "2026-01-19T00:00:00+00:00", "2026-02-09T00:00:00+00:00"}},
      {"0 0 1,15 * ?",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-15T00:00:00+00:00", "2026-02-01T00:00:00+00:00"}},
      // Seconds.
      {"*/20 * * * * *",
       "UTC",
       kCron,
       "2026-01-01T00:00:00Z",
       {"2026-01-01T00:00:20+00:00", "2026-01-01T00:00:40+00:00", "2026-01-01T00:01:00+00:00"}},
      {"30 0 12 * * *", "UTC", kCron, "2026-01-01T12:00:30Z", {"2026-01-02T12:00:30+00:00"}},
      // Macros.
      {"@weekly", "UTC", kCron, "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00+00:00"}},
      {"@monthly", "UTC", kCron, "2026-01-01T00:00:00Z", {"2026-02-01T00:00:00+00:00"}},
      {"@hourly", "UTC", kCron, "2026-01-01T00:59:59Z", {"2026-01-01T01:00:00+00:00"}},
      // Weekdays by name, in a zone ahead of UTC.
      {"0 9 * * mon-fri",
       "Asia/Tokyo",
       kCron,
       "2026-01-02T10:00:00+09:00",
       {"2026-01-05T09:00:00+09:00", "2026-01-06T09:00:00+09:00"}},
  });
}

TEST_CASE("NextFire is strictly after, to the millisecond") {
  const CronExpr every_second = *ParseCron("* * * * * *");
  const CronExpr daily = *ParseCron("0 0 * * *");
  const TimeZone utc = Zone("UTC");
  const WallMs midnight = *ParseRfc3339("2026-01-01T00:00:00Z");
  CHECK(*NextFire(every_second, midnight, utc, kCron) == midnight + 1000);
  CHECK(*NextFire(every_second, midnight + 1, utc, kCron) == midnight + 1000);
  CHECK(*NextFire(every_second, midnight - 1, utc, kCron) == midnight);
  CHECK(*NextFire(daily, midnight, utc, kCron) == midnight + 86400 * 1000);
  CHECK(*NextFire(daily, midnight - 1, utc, kCron) == midnight);
}

TEST_CASE("NextFire: @every is the previous firing plus the interval, whatever the zone") {
  const CronExpr every = *ParseCron("@every 90s");
  const WallMs t = *ParseRfc3339("2026-03-29T00:59:30.500Z");  // Berlin's gap begins at 01:00Z
  CHECK(*NextFire(every, t, Zone("Europe/Berlin"), kSkip) == t + 90 * 1000);
  CHECK(*NextFire(every, t, Zone("UTC"), kCron) == t + 90 * 1000);
}

TEST_CASE("NextFire refuses @reboot, times out of range and schedules that never fire") {
  const TimeZone utc = Zone("UTC");
  const WallMs now = *ParseRfc3339("2026-01-01T00:00:00Z");

  Result<WallMs> reboot = NextFire(*ParseCron("@reboot"), now, utc, kCron);
  REQUIRE_FALSE(reboot.ok());
  CHECK(reboot.status().message() ==
        "schedule \"@reboot\" has no time-based firing: it runs once when tqd starts");

  // Day 1, 6, ..., 31 of February that is also its fifth Monday: never.
  Result<WallMs> never = NextFire(*ParseCron("0 0 */5 2 1#5"), now, Zone("Europe/Berlin"), kCron);
  REQUIRE_FALSE(never.ok());
  CHECK(never.status().code() == ErrorCode::kInvalid);
  CHECK(never.status().field() == "schedule");
  CHECK(never.status().message() ==
        "schedule \"0 0 */5 2 1#5\" never fires within 50 years after "
        "2026-01-01T01:00:00+01:00 in Europe/Berlin");

  // A schedule whose only firings lie past the year 9999.
  Result<WallMs> late =
      NextFire(*ParseCron("0 0 1 1 *"), *ParseRfc3339("9999-06-01T00:00:00Z"), utc, kCron);
  REQUIRE_FALSE(late.ok());
  CHECK(late.status().message() ==
        "schedule \"0 0 1 1 *\" does not fire before the year 10000 in UTC");
  Result<WallMs> late_every =
      NextFire(*ParseCron("@every 1w"), *ParseRfc3339("9999-12-30T00:00:00Z"), utc, kCron);
  REQUIRE_FALSE(late_every.ok());

  // 0001-01-02T00:00:00Z is the earliest start: no zone's wall time is then in the year 0.
  Result<WallMs> out_of_range = NextFire(*ParseCron("* * * * *"), -62135510400001, utc, kCron);
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.status().field() == "time");
  CHECK(out_of_range.status().message() ==
        "time -62135510400001 ms is outside the years 0001..9999 (UTC)");
  CHECK(NextFire(*ParseCron("* * * * *"), -62135510400000, utc, kCron).ok());
  CHECK_FALSE(NextFire(*ParseCron("* * * * *"), *ParseRfc3339("9999-12-31T23:30:00Z"),
                       Zone("Asia/Tokyo"), kCron)
                  .ok());  // already the year 10000 in Tokyo
}

TEST_CASE("NextFire: elapsed-time schedules agree with a minute-by-minute walk of instants") {
  // Around each zone's transitions, every instant whose wall time (with its offset) matches must
  // be a firing, and nothing else.
  struct Window {
    const char* zone;
    const char* from;
  };
  const Window windows[] = {
      {"Europe/Berlin", "2026-03-28T22:00:00Z"},
      {"Europe/Berlin", "2026-10-24T22:00:00Z"},
      {"America/New_York", "2026-03-08T04:00:00Z"},
      {"America/New_York", "2026-11-01T03:00:00Z"},
      {"Australia/Lord_Howe", "2026-04-04T12:00:00Z"},
      {"Australia/Lord_Howe", "2026-10-03T12:00:00Z"},
      {"America/Sao_Paulo", "2018-11-03T22:00:00Z"},
      {"Europe/Moscow", "2014-10-25T20:00:00Z"},
  };
  const char* exprs[] = {"0 * * * *", "*/15 * * * *", "30 */2 * * *", "45 * * * *",
                         "*/7 1-23/3 * * *"};
  for (const Window& w : windows) {
    const TimeZone zone = Zone(w.zone);
    for (const char* text : exprs) {
      const CronExpr e = *ParseCron(text);
      const std::string zone_name = w.zone, expr = text;
      CAPTURE(zone_name);
      CAPTURE(expr);
      const WallMs start = *ParseRfc3339(w.from);
      std::vector<WallMs> walked;
      for (WallMs t = start + 60000; t <= start + 8 * 3600 * 1000; t += 60000) {
        const auto al =
            zone.zone().lookup(cctz::time_point<cctz::seconds>(cctz::seconds(t / 1000)));
        if ((e.minutes >> al.cs.minute() & 1) && (e.hours >> al.cs.hour() & 1)) {
          walked.push_back(t);
        }
      }
      std::vector<WallMs> fired;
      for (WallMs t = start;;) {
        Result<WallMs> next = NextFire(e, t, zone, kCron);
        REQUIRE(next.ok());
        if (*next > start + 8 * 3600 * 1000) break;
        fired.push_back(*next);
        t = *next;
      }
      CHECK(fired == walked);
    }
  }
}

TEST_CASE("NextFire: far-future years repeat the 400-year cycle of calendar and zone rules") {
  // cctz lists transitions only ~400 years past a zone's last rule change; beyond that NextFire
  // must still see every DST change, exactly 400 (or 800, ...) years after the same one.
  constexpr int64_t k400YearsMs = 146097LL * 86400 * 1000;
  const char* zones[] = {"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC",
                         "Europe/Moscow"};
  const char* exprs[] = {"30 2 * * *", "0 * * * *", "45 1 * * 0", "0 0 L * *"};
  for (const char* zone_name : zones) {
    const TimeZone zone = Zone(zone_name);
    for (const char* text : exprs) {
      const CronExpr e = *ParseCron(text);
      for (DstPolicy dst : {kCron, kSkip, kBoth}) {
        for (int cycles : {1, 2, 19}) {
          const std::string expr = text, zn = zone_name;
          CAPTURE(zn);
          CAPTURE(expr);
          CAPTURE(cycles);
          WallMs base = *ParseRfc3339("2100-03-01T00:00:00Z");
          WallMs far = base + cycles * k400YearsMs;
          for (int i = 0; i < 40; ++i) {
            Result<WallMs> a = NextFire(e, base, zone, dst);
            Result<WallMs> b = NextFire(e, far, zone, dst);
            REQUIRE(a.ok());
            REQUIRE(b.ok());
            CHECK(*b - *a == cycles * k400YearsMs);
            base = *a;
            far = *b;
          }
        }
      }
    }
  }
  // Spring forward in the year 9990 (last Sunday of March), from a search far past the table.
  Check({{"30 2 * * *",
          "Europe/Berlin",
          kCron,
          "9990-03-20T00:00:00Z",
          {"9990-03-20T02:30:00+01:00"}}});
}

TEST_CASE("ParseDstPolicy") {
  CHECK(*ParseDstPolicy("cron") == kCron);
  CHECK(*ParseDstPolicy("skip") == kSkip);
  CHECK(*ParseDstPolicy("first") == kFirst);
  CHECK(*ParseDstPolicy("both") == kBoth);
  Result<DstPolicy> bad = ParseDstPolicy("later", "--dst");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().field() == "--dst");
  CHECK(bad.status().message() ==
        "--dst: \"later\" is not a DST policy (use cron, skip, first or both)");
}

}  // namespace
}  // namespace tq
