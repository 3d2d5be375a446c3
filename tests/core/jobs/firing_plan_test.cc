// PlanFirings against tables of (last firing, now) pairs, and a fake clock driving a job through
// downtimes, clock steps and DST days as the scheduler would.
#include "core/jobs/firing_plan.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/model/wall_time.h"
#include "support/fake_clock.h"

namespace tq {
namespace {

constexpr Misfire kMisfireSkip = Misfire::kSkip;
constexpr Misfire kMisfireOnce = Misfire::kRunOnce;
constexpr Misfire kMisfireAll = Misfire::kRunAll;

// For failure messages (job.cc's MisfireName is another part's).
const char* Name(Misfire m) {
  return m == kMisfireSkip ? "skip" : m == kMisfireOnce ? "run_once" : "run_all";
}

TimeZone PlanZone(const std::string& name) {
  Result<TimeZone> z = LoadTimeZone(name);
  REQUIRE_MESSAGE(z.ok(), z.status().message());
  return *z;
}

WallMs PlanAt(const std::string& rfc3339) {
  Result<WallMs> t = ParseRfc3339(rfc3339);
  REQUIRE_MESSAGE(t.ok(), t.status().message());
  return *t;
}

JobDef PlanJob(const std::string& schedule, Misfire misfire, int max_catch_up = 10,
               int64_t max_lateness_ms = 0, DstPolicy dst = DstPolicy::kCron) {
  Result<CronExpr> expr = ParseCron(schedule);
  REQUIRE_MESSAGE(expr.ok(), expr.status().message());
  JobDef job;
  job.name = "test";
  job.schedule = *expr;
  job.misfire = misfire;
  job.max_catch_up = max_catch_up;
  job.max_lateness_ms = max_lateness_ms;
  job.dst = dst;
  return job;
}

FiringPlan Plan(const JobDef& job, const TimeZone& zone, WallMs last, WallMs now) {
  Result<FiringPlan> plan = PlanFirings(job, zone, last, now);
  REQUIRE_MESSAGE(plan.ok(), plan.status().message());
  return *plan;
}

// The times in RFC 3339 in `zone`, space-separated (what doctest prints when a check fails).
std::string Times(const std::vector<WallMs>& times, const TimeZone& zone) {
  std::string out;
  for (WallMs t : times) out += (out.empty() ? "" : " ") + FormatRfc3339InZone(t, zone);
  return out;
}

std::string Join(const std::vector<std::string>& times) {
  std::string out;
  for (const std::string& t : times) out += (out.empty() ? "" : " ") + t;
  return out;
}

std::string Time(const std::optional<WallMs>& t, const TimeZone& zone) {
  return t ? FormatRfc3339InZone(*t, zone) : "none";
}

// One plan in UTC: the schedule and policy, `last` and `now`, and what it must say.
struct FiringCase {
  const char* what;
  const char* schedule;
  Misfire misfire;
  int max_catch_up;
  int64_t max_lateness_ms;
  const char* last;
  const char* now;
  std::vector<std::string> fire;
  int dropped;
  const char* plan_last;
  const char* next;
};

void CheckFirings(const std::vector<FiringCase>& cases) {
  const TimeZone utc;
  for (const FiringCase& c : cases) {
    const std::string what = c.what, schedule = c.schedule;
    CAPTURE(what);
    CAPTURE(schedule);
    const std::string misfire = Name(c.misfire);
    CAPTURE(misfire);
    const JobDef job = PlanJob(c.schedule, c.misfire, c.max_catch_up, c.max_lateness_ms);
    const FiringPlan plan = Plan(job, utc, PlanAt(c.last), PlanAt(c.now));
    CHECK(Times(plan.fire, utc) == Join(c.fire));
    CHECK(plan.dropped == c.dropped);
    CHECK(FormatRfc3339InZone(plan.last, utc) == std::string(c.plan_last));
    CHECK(Time(plan.next, utc) == std::string(c.next));
  }
}

constexpr int64_t kMinute = 60 * 1000;

TEST_CASE("PlanFirings: a firing on time fires whatever the misfire policy") {
  std::vector<FiringCase> cases;
  for (Misfire m : {kMisfireSkip, kMisfireOnce, kMisfireAll}) {
    cases.push_back({"on time",
                     "*/5 * * * *",
                     m,
                     10,
                     0,
                     "2026-01-01T10:00:00Z",
                     "2026-01-01T10:05:00.200Z",
                     {"2026-01-01T10:05:00+00:00"},
                     0,
                     "2026-01-01T10:05:00+00:00",
                     "2026-01-01T10:10:00+00:00"});
    cases.push_back({"not due yet",
                     "*/5 * * * *",
                     m,
                     10,
                     0,
                     "2026-01-01T10:00:00Z",
                     "2026-01-01T10:04:59.999Z",
                     {},
                     0,
                     "2026-01-01T10:00:00+00:00",
                     "2026-01-01T10:05:00+00:00"});
    cases.push_back({"now is the last firing",
                     "*/5 * * * *",
                     m,
                     10,
                     0,
                     "2026-01-01T10:05:00Z",
                     "2026-01-01T10:05:00Z",
                     {},
                     0,
                     "2026-01-01T10:05:00+00:00",
                     "2026-01-01T10:10:00+00:00"});
  }
  CheckFirings(cases);
}

TEST_CASE("PlanFirings: an hour down with the latest firing missed") {
  // Due: 10:05 .. 11:00 every 5 minutes (12 firings); now is 2.5 minutes after the latest.
  const char* last = "2026-01-01T10:00:00Z";
  const char* now = "2026-01-01T11:02:30Z";
  const char* latest = "2026-01-01T11:00:00+00:00";
  const char* next = "2026-01-01T11:05:00+00:00";
  CheckFirings({
      {"skip drops all", "*/5 * * * *", kMisfireSkip, 10, 0, last, now, {}, 12, latest, next},
      {"run_once runs the latest",
       "*/5 * * * *",
       kMisfireOnce,
       10,
       0,
       last,
       now,
       {latest},
       11,
       latest,
       next},
      {"run_all runs the latest max_catch_up",
       "*/5 * * * *",
       kMisfireAll,
       3,
       0,
       last,
       now,
       {"2026-01-01T10:50:00+00:00", "2026-01-01T10:55:00+00:00", latest},
       9,
       latest,
       next},
      {"run_all with max_catch_up above the due count runs them all",
       "*/5 * * * *",
       kMisfireAll,
       20,
       0,
       last,
       now,
       {"2026-01-01T10:05:00+00:00", "2026-01-01T10:10:00+00:00", "2026-01-01T10:15:00+00:00",
        "2026-01-01T10:20:00+00:00", "2026-01-01T10:25:00+00:00", "2026-01-01T10:30:00+00:00",
        "2026-01-01T10:35:00+00:00", "2026-01-01T10:40:00+00:00", "2026-01-01T10:45:00+00:00",
        "2026-01-01T10:50:00+00:00", "2026-01-01T10:55:00+00:00", latest},
       0,
       latest,
       next},
      {"max_lateness drops the older catch-ups",
       "*/5 * * * *",
       kMisfireAll,
       10,
       10 * kMinute,
       last,
       now,
       {"2026-01-01T10:55:00+00:00", latest},
       10,
       latest,
       next},
      {"max_lateness drops run_once's catch-up",
       "*/5 * * * *",
       kMisfireOnce,
       10,
       2 * kMinute,
       last,
       now,
       {},
       12,
       latest,
       next},
      {"max_lateness exactly the lateness keeps it",
       "*/5 * * * *",
       kMisfireOnce,
       10,
       2 * kMinute + 30 * 1000,
       last,
       now,
       {latest},
       11,
       latest,
       next},
  });
}

TEST_CASE("PlanFirings: an hour down with the latest firing on time") {
  const char* last = "2026-01-01T10:00:00Z";
  const char* now = "2026-01-01T11:00:30Z";
  const char* latest = "2026-01-01T11:00:00+00:00";
  const char* next = "2026-01-01T11:05:00+00:00";
  CheckFirings({
      {"skip runs the on-time one",
       "*/5 * * * *",
       kMisfireSkip,
       10,
       0,
       last,
       now,
       {latest},
       11,
       latest,
       next},
      {"run_once runs the on-time one only",
       "*/5 * * * *",
       kMisfireOnce,
       10,
       0,
       last,
       now,
       {latest},
       11,
       latest,
       next},
      {"run_all counts the on-time one in max_catch_up",
       "*/5 * * * *",
       kMisfireAll,
       3,
       0,
       last,
       now,
       {"2026-01-01T10:50:00+00:00", "2026-01-01T10:55:00+00:00", latest},
       9,
       latest,
       next},
      {"max_lateness never drops the on-time one",
       "*/5 * * * *",
       kMisfireAll,
       10,
       1000,
       last,
       now,
       {latest},
       11,
       latest,
       next},
  });
}

TEST_CASE("PlanFirings: a day down") {
  // An hourly job: 01:00 on 1 March .. 00:00 on 2 March is 24 firings, the latest 30 min late.
  const char* last = "2026-03-01T00:00:00Z";
  const char* now = "2026-03-02T00:30:00Z";
  const char* latest = "2026-03-02T00:00:00+00:00";
  const char* next = "2026-03-02T01:00:00+00:00";
  CheckFirings({
      {"skip", "0 * * * *", kMisfireSkip, 10, 0, last, now, {}, 24, latest, next},
      {"run_once", "0 * * * *", kMisfireOnce, 10, 0, last, now, {latest}, 23, latest, next},
      {"run_all",
       "0 * * * *",
       kMisfireAll,
       4,
       0,
       last,
       now,
       {"2026-03-01T21:00:00+00:00", "2026-03-01T22:00:00+00:00", "2026-03-01T23:00:00+00:00",
        latest},
       20,
       latest,
       next},
  });
}

TEST_CASE("PlanFirings: sparse schedules are searched across long downtimes") {
  CheckFirings({
      {"every minute of January, down a year and two months",
       "* * * 1 *",
       kMisfireAll,
       3,
       0,
       "2025-02-01T00:00:00Z",
       "2026-03-01T00:00:00Z",
       {"2026-01-31T23:57:00+00:00", "2026-01-31T23:58:00+00:00", "2026-01-31T23:59:00+00:00"},
       kMaxDroppedCount,
       "2026-01-31T23:59:00+00:00",
       "2027-01-01T00:00:00+00:00"},
      {"29 February only, down ten years",
       "0 12 29 2 *",
       kMisfireAll,
       10,
       0,
       "2016-03-01T00:00:00Z",
       "2026-01-01T00:00:00Z",
       {"2020-02-29T12:00:00+00:00", "2024-02-29T12:00:00+00:00"},
       0,
       "2024-02-29T12:00:00+00:00",
       "2028-02-29T12:00:00+00:00"},
      {"yearly, down 900 years",
       "@yearly",
       kMisfireOnce,
       10,
       0,
       "1126-06-01T00:00:00Z",
       "2026-06-01T00:00:00Z",
       {"2026-01-01T00:00:00+00:00"},
       kMaxDroppedCount,
       "2026-01-01T00:00:00+00:00",
       "2027-01-01T00:00:00+00:00"},
  });
}

TEST_CASE("PlanFirings: a per-second job down ten years plans at once") {
  const TimeZone utc;
  const WallMs last = PlanAt("2016-01-01T00:00:00Z");
  const WallMs now = PlanAt("2026-01-01T00:00:00.500Z");
  SUBCASE("run_once") {
    const FiringPlan plan = Plan(PlanJob("* * * * * *", kMisfireOnce), utc, last, now);
    CHECK(Times(plan.fire, utc) == Join({"2026-01-01T00:00:00+00:00"}));
    CHECK(plan.dropped == kMaxDroppedCount);
    CHECK(plan.last == PlanAt("2026-01-01T00:00:00Z"));
    CHECK(plan.next == PlanAt("2026-01-01T00:00:01Z"));
  }
  SUBCASE("run_all at the largest max_catch_up") {
    const FiringPlan plan = Plan(PlanJob("* * * * * *", kMisfireAll, kMaxCatchUp), utc, last, now);
    REQUIRE(plan.fire.size() == static_cast<size_t>(kMaxCatchUp));
    CHECK(plan.fire.front() == PlanAt("2025-12-31T23:43:21Z"));
    CHECK(plan.fire.back() == PlanAt("2026-01-01T00:00:00Z"));
    for (size_t i = 1; i < plan.fire.size(); ++i) CHECK(plan.fire[i] - plan.fire[i - 1] == 1000);
    CHECK(plan.dropped == kMaxDroppedCount);
  }
  SUBCASE("skip") {
    const FiringPlan plan = Plan(PlanJob("* * * * * *", kMisfireSkip), utc, last, now);
    CHECK(plan.fire.size() == 1);
    CHECK(plan.dropped == kMaxDroppedCount);
  }
  SUBCASE("@every 1s") {
    const FiringPlan plan = Plan(PlanJob("@every 1s", kMisfireAll, 2), utc, last, now);
    CHECK(Times(plan.fire, utc) ==
          Join({"2025-12-31T23:59:59+00:00", "2026-01-01T00:00:00+00:00"}));
    CHECK(plan.dropped == kMaxDroppedCount);
    CHECK(plan.next == PlanAt("2026-01-01T00:00:01Z"));
  }
}

TEST_CASE("PlanFirings: the grace boundary") {
  // An hourly job whose 10:00 firing is handled exactly kMisfireGraceMs late, or 1 ms more.
  const TimeZone utc;
  const WallMs last = PlanAt("2026-01-01T09:00:00Z");
  const WallMs due = PlanAt("2026-01-01T10:00:00Z");
  struct Row {
    Misfire misfire;
    int64_t late_ms;
    size_t fired;
    int dropped;
  };
  for (const Row& r : std::vector<Row>{{kMisfireSkip, kMisfireGraceMs, 1, 0},
                                       {kMisfireSkip, kMisfireGraceMs + 1, 0, 1},
                                       {kMisfireOnce, kMisfireGraceMs, 1, 0},
                                       {kMisfireOnce, kMisfireGraceMs + 1, 1, 0},
                                       {kMisfireAll, kMisfireGraceMs + 1, 1, 0}}) {
    const std::string misfire = Name(r.misfire);
    CAPTURE(misfire);
    CAPTURE(r.late_ms);
    const FiringPlan plan = Plan(PlanJob("0 * * * *", r.misfire), utc, last, due + r.late_ms);
    CHECK(plan.fire.size() == r.fired);
    if (r.fired == 1) CHECK(plan.fire[0] == due);
    CHECK(plan.dropped == r.dropped);
    CHECK(plan.last == due);
    CHECK(plan.next == PlanAt("2026-01-01T11:00:00Z"));
  }
  SUBCASE("max_lateness below the grace applies only to catch-ups") {
    const JobDef job = PlanJob("0 * * * *", kMisfireOnce, 10, 1000);
    CHECK(Plan(job, utc, last, due + kMisfireGraceMs).fire.size() == 1);
    CHECK(Plan(job, utc, last, due + kMisfireGraceMs + 1).fire.empty());
  }
}

// Drives a job as the scheduler does: plans at the clock's time and stores the plan's `last`.
struct Driver {
  JobDef job;
  TimeZone zone;
  WallMs last;
  FakeClock clock;
  std::vector<WallMs> fired;

  FiringPlan Tick() {
    const FiringPlan plan = Plan(job, zone, last, clock.WallNow());
    fired.insert(fired.end(), plan.fire.begin(), plan.fire.end());
    last = plan.last;
    return plan;
  }
};

TEST_CASE("PlanFirings: a clock stepping back fires nothing twice, then forward again") {
  const TimeZone utc;
  Driver d{PlanJob("* * * * *", kMisfireOnce),
           utc,
           PlanAt("2026-01-01T10:00:00Z"),
           FakeClock(PlanAt("2026-01-01T10:00:30Z")),
           {}};
  CHECK(d.Tick().fire.empty());
  d.clock.Advance(30 * 1000 + 100);
  CHECK(Times(d.Tick().fire, utc) == Join({"2026-01-01T10:01:00+00:00"}));

  d.clock.StepWall(-60 * kMinute);  // 09:01:00.100, before the last firing
  FiringPlan plan = d.Tick();
  CHECK(plan.fire.empty());
  CHECK(plan.last == PlanAt("2026-01-01T10:01:00Z"));
  CHECK(plan.next == PlanAt("2026-01-01T10:02:00Z"));
  for (int i = 0; i < 59; ++i) {  // 09:02 .. 10:00: at or before the last firing, nothing fires
    d.clock.Advance(kMinute);
    plan = d.Tick();
    CHECK(plan.fire.empty());
    CHECK(plan.next == PlanAt("2026-01-01T10:02:00Z"));
  }
  d.clock.Advance(kMinute);  // 10:01:00.100: still the last firing's minute
  CHECK(d.Tick().fire.empty());
  d.clock.Advance(kMinute);  // 10:02:00.100
  CHECK(Times(d.Tick().fire, utc) == Join({"2026-01-01T10:02:00+00:00"}));

  d.clock.StepWall(30 * kMinute);  // 10:32:00.100: 10:03 .. 10:31 missed, 10:32 on time
  plan = d.Tick();
  CHECK(Times(plan.fire, utc) == Join({"2026-01-01T10:32:00+00:00"}));
  CHECK(plan.dropped == 29);
  CHECK(Times(d.fired, utc) == Join({"2026-01-01T10:01:00+00:00", "2026-01-01T10:02:00+00:00",
                                     "2026-01-01T10:32:00+00:00"}));
}

TEST_CASE("PlanFirings: @every") {
  const TimeZone utc;
  const WallMs seen = PlanAt("2026-01-01T10:00:00.250Z");
  SUBCASE("the first firing is an interval after the job was first seen") {
    const JobDef job = PlanJob("@every 90s", kMisfireOnce);
    FiringPlan plan = Plan(job, utc, seen, seen + 90 * 1000 - 1);
    CHECK(plan.fire.empty());
    CHECK(plan.next == seen + 90 * 1000);
    plan = Plan(job, utc, seen, seen + 90 * 1000);
    CHECK(plan.fire == std::vector<WallMs>{seen + 90 * 1000});
    CHECK(plan.last == seen + 90 * 1000);
    CHECK(plan.next == seen + 180 * 1000);
  }
  SUBCASE("catch-up keeps the interval's grid") {
    // 31 minutes down: 20 firings due, the latest at 10:30:00.250, 60 s late (on time).
    const FiringPlan plan =
        Plan(PlanJob("@every 90s", kMisfireAll, 3), utc, seen, PlanAt("2026-01-01T10:31:00.250Z"));
    CHECK(plan.fire == std::vector<WallMs>{PlanAt("2026-01-01T10:27:00.250Z"),
                                           PlanAt("2026-01-01T10:28:30.250Z"),
                                           PlanAt("2026-01-01T10:30:00.250Z")});
    CHECK(plan.dropped == 17);
    CHECK(plan.next == PlanAt("2026-01-01T10:31:30.250Z"));
  }
  SUBCASE("skip past the grace runs nothing and keeps the grid") {
    const FiringPlan plan =
        Plan(PlanJob("@every 90s", kMisfireSkip), utc, seen, PlanAt("2026-01-01T10:31:01Z"));
    CHECK(plan.fire.empty());
    CHECK(plan.dropped == 20);
    CHECK(plan.last == PlanAt("2026-01-01T10:30:00.250Z"));
    CHECK(plan.next == PlanAt("2026-01-01T10:31:30.250Z"));
  }
  SUBCASE("a clock stepped back waits for the last firing plus the interval") {
    const FiringPlan plan =
        Plan(PlanJob("@every 90s", kMisfireOnce), utc, seen, seen - 3600 * 1000);
    CHECK(plan.fire.empty());
    CHECK(plan.last == seen);
    CHECK(plan.next == seen + 90 * 1000);
  }
}

TEST_CASE("PlanFirings: @reboot plans nothing") {
  const TimeZone utc;
  for (Misfire m : {kMisfireSkip, kMisfireOnce, kMisfireAll}) {
    const FiringPlan plan = Plan(PlanJob("@reboot", m), utc, PlanAt("2016-01-01T00:00:00Z"),
                                 PlanAt("2026-01-01T00:00:00Z"));
    CHECK(plan.fire.empty());
    CHECK(plan.dropped == 0);
    CHECK(plan.last == PlanAt("2016-01-01T00:00:00Z"));
    CHECK_FALSE(plan.next.has_value());
  }
}

TEST_CASE("PlanFirings: Europe/Berlin DST days with each dst policy") {
  const TimeZone berlin = PlanZone("Europe/Berlin");
  struct Row {
    const char* what;
    const char* schedule;
    DstPolicy dst;
    std::vector<const char*> ticks;  // the clock's times, in order; the last firing 20 s before
    std::vector<std::string> fired;
    const char* next;  // after the last tick
  };
  const std::vector<Row> rows = {
      {"spring forward: 02:30 fires at the end of the gap",
       "30 2 * * *",
       DstPolicy::kCron,
       {"2026-03-29T01:59:00+01:00", "2026-03-29T03:00:10+02:00", "2026-03-29T03:30:00+02:00"},
       {"2026-03-29T03:00:00+02:00"},
       "2026-03-30T02:30:00+02:00"},
      {"spring forward: dst first is cron's rule",
       "30 2 * * *",
       DstPolicy::kFirst,
       {"2026-03-29T03:00:10+02:00"},
       {"2026-03-29T03:00:00+02:00"},
       "2026-03-30T02:30:00+02:00"},
      {"spring forward: dst skip does not fire that day",
       "30 2 * * *",
       DstPolicy::kSkip,
       {"2026-03-29T01:59:00+01:00", "2026-03-29T03:00:10+02:00", "2026-03-29T23:00:00+02:00"},
       {},
       "2026-03-30T02:30:00+02:00"},
      {"spring forward: an hourly job skips the missing hour",
       "0 * * * *",
       DstPolicy::kCron,
       {"2026-03-29T01:00:10+01:00", "2026-03-29T03:00:10+02:00"},
       {"2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00"},
       "2026-03-29T04:00:00+02:00"},
      {"fall back: 02:30 fires once at the first occurrence",
       "30 2 * * *",
       DstPolicy::kCron,
       {"2026-10-25T02:30:10+02:00", "2026-10-25T02:30:10+01:00"},
       {"2026-10-25T02:30:00+02:00"},
       "2026-10-26T02:30:00+01:00"},
      {"fall back: dst both fires at both occurrences",
       "30 2 * * *",
       DstPolicy::kBoth,
       {"2026-10-25T02:30:10+02:00", "2026-10-25T02:30:10+01:00"},
       {"2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00"},
       "2026-10-26T02:30:00+01:00"},
      {"fall back: an hourly job fires twice in the repeated hour",
       "0 * * * *",
       DstPolicy::kCron,
       {"2026-10-25T02:00:10+02:00", "2026-10-25T02:00:10+01:00", "2026-10-25T03:00:10+01:00"},
       {"2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"},
       "2026-10-25T04:00:00+01:00"},
  };
  for (const Row& r : rows) {
    const std::string what = r.what;
    CAPTURE(what);
    Driver d{PlanJob(r.schedule, kMisfireOnce, 10, 0, r.dst),
             berlin,
             PlanAt(r.ticks.front()) - 20 * 1000,
             FakeClock(PlanAt(r.ticks.front())),
             {}};
    FiringPlan plan;
    for (const char* tick : r.ticks) {
      d.clock.Advance(PlanAt(tick) - d.clock.WallNow());
      plan = d.Tick();
    }
    CHECK(Times(d.fired, berlin) == Join(r.fired));
    CHECK(Time(plan.next, berlin) == std::string(r.next));
  }
  SUBCASE("a fall-back day down with run_all catches up both occurrences") {
    const FiringPlan plan =
        Plan(PlanJob("30 2 * * *", kMisfireAll, 10, 0, DstPolicy::kBoth), berlin,
             PlanAt("2026-10-24T12:00:00+02:00"), PlanAt("2026-10-25T12:00:00+01:00"));
    CHECK(Times(plan.fire, berlin) ==
          Join({"2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00"}));
  }
}

TEST_CASE("PlanFirings: absurd inputs") {
  const TimeZone utc;
  const WallMs now = PlanAt("2026-01-01T00:00:00.500Z");
  SUBCASE("max_catch_up beyond the limit is held to kMaxCatchUp") {
    const FiringPlan plan = Plan(PlanJob("* * * * * *", kMisfireAll, INT_MAX), utc,
                                 PlanAt("2016-01-01T00:00:00Z"), now);
    CHECK(plan.fire.size() == static_cast<size_t>(kMaxCatchUp));
  }
  SUBCASE("max_catch_up of 0 or less runs one") {
    for (int n : {0, -5, INT_MIN}) {
      CAPTURE(n);
      CHECK(Plan(PlanJob("* * * * * *", kMisfireAll, n), utc, PlanAt("2016-01-01T00:00:00Z"), now)
                .fire.size() == 1);
    }
  }
  SUBCASE("times outside the years 0001..9999 are refused") {
    constexpr WallMs kMin = std::numeric_limits<WallMs>::min();
    constexpr WallMs kMax = std::numeric_limits<WallMs>::max();
    for (const char* schedule : {"* * * * *", "@every 1h"}) {
      CAPTURE(schedule);
      for (auto [last, at] : std::vector<std::pair<WallMs, WallMs>>{
               {kMin, now}, {now, kMax}, {kMax, now}, {kMin, kMax}, {kMax, kMin}}) {
        CAPTURE(last);
        CAPTURE(at);
        Result<FiringPlan> plan = PlanFirings(PlanJob(schedule, kMisfireAll), utc, last, at);
        REQUIRE_FALSE(plan.ok());
        CHECK(plan.status().code() == ErrorCode::kInvalid);
      }
    }
  }
  SUBCASE("a clock stepped back to before the epoch still fires nothing") {
    const FiringPlan plan = Plan(PlanJob("* * * * *", kMisfireOnce), utc, now, -86400 * 1000);
    CHECK(plan.fire.empty());
    CHECK(plan.next == PlanAt("2026-01-01T00:01:00Z"));
  }
}

// The plan a walk through every firing from `last` gives: the reference for the search.
FiringPlan Reference(const JobDef& job, const TimeZone& zone, WallMs last, WallMs now) {
  std::vector<WallMs> due;
  for (WallMs t = last;;) {
    Result<WallMs> next = NextFire(job.schedule, t, zone, job.dst);
    if (!next.ok() || *next > now) break;
    due.push_back(t = *next);
  }
  FiringPlan plan;
  plan.last = due.empty() ? last : due.back();
  size_t keep = 0;
  if (!due.empty()) {
    const bool on_time = now - due.back() <= kMisfireGraceMs;
    for (size_t i = due.size(); i-- > 0;) {
      const bool missed = !(on_time && i == due.size() - 1);
      const size_t limit = job.misfire == kMisfireAll ? static_cast<size_t>(job.max_catch_up)
                                                      : (on_time || job.misfire == kMisfireOnce);
      if (keep == limit || (missed && job.misfire == kMisfireSkip)) break;
      if (missed && job.max_lateness_ms > 0 && now - due[i] > job.max_lateness_ms) break;
      ++keep;
    }
  }
  plan.fire.assign(due.end() - static_cast<ptrdiff_t>(keep), due.end());
  // Not run: missed when older than the grace, else late (both counts capped together).
  const size_t not_run = due.size() - keep;
  int missed = 0;
  for (size_t i = 0; i < not_run; ++i) missed += now - due[i] > kMisfireGraceMs;
  plan.dropped = std::min(kMaxDroppedCount, missed);
  plan.late = std::min(kMaxDroppedCount, static_cast<int>(not_run)) - plan.dropped;
  Result<WallMs> next = NextFire(
      job.schedule, job.schedule.kind == CronKind::kEvery ? plan.last : std::max(now, last), zone,
      job.dst);
  REQUIRE(next.ok());
  plan.next = *next;
  return plan;
}

TEST_CASE("PlanFirings: firings overtaken within the grace are late, not missed") {
  const TimeZone utc = PlanZone("UTC");
  const WallMs t = PlanAt("2026-05-01T10:00:00Z");
  // Every second, 5.5 s behind (a busy daemon): the latest runs, four were merely late.
  FiringPlan busy = Plan(PlanJob("* * * * * *", kMisfireSkip), utc, t, t + 5500);
  CHECK(busy.fire == std::vector<WallMs>{t + 5000});
  CHECK(busy.dropped == 0);
  CHECK(busy.late == 4);
  // Two minutes down: those older than the grace were missed, the rest of the last minute late.
  FiringPlan down = Plan(PlanJob("* * * * * *", kMisfireSkip), utc, t, t + 120000);
  CHECK(down.fire == std::vector<WallMs>{t + 120000});
  CHECK(down.dropped == 59);
  CHECK(down.late == 41);  // 100 counted at most: 59 missed, then 41 of the 60 late ones
}

TEST_CASE("PlanFirings: agrees with walking every firing") {
  const std::vector<std::string> zones = {"UTC", "Europe/Berlin", "America/New_York"};
  struct Schedule {
    std::string text;
    int64_t max_span_ms;  // how long a downtime to try: the reference walks every firing in it
  };
  const std::vector<Schedule> schedules = {
      {"* * * * * *", 7200000},         {"*/7 * * * * *", 7200000},
      {"@every 37s", 86400000},         {"0 * * * *", 20 * 86400000LL},
      {"*/13 * * * *", 86400000},       {"30 2 * * *", 20 * 86400000LL},
      {"0 */2 * * *", 20 * 86400000LL}, {"0 9 * * 1-5", 20 * 86400000LL},
      {"0 0 L * *", 400 * 86400000LL},  {"15 10 * * MON#2", 400 * 86400000LL},
  };
  std::mt19937_64 rng(11);
  auto pick = [&rng](const auto& values) { return values[rng() % values.size()]; };
  const WallMs base = PlanAt("2026-03-27T00:00:00Z");  // before Europe's spring forward
  for (const std::string& zone_name : zones) {
    const TimeZone zone = PlanZone(zone_name);
    for (const Schedule& schedule : schedules) {
      for (int i = 0; i < 40; ++i) {
        const int64_t span = std::min<int64_t>(
            schedule.max_span_ms, pick(std::vector<int64_t>{5000, 600000, 7200000, 86400000,
                                                            30 * 86400000LL, 400 * 86400000LL}));
        const WallMs last = base + static_cast<int64_t>(rng() % 345600000);
        const WallMs now = last + static_cast<int64_t>(rng() % static_cast<uint64_t>(span));
        const JobDef job = PlanJob(
            schedule.text, pick(std::vector<Misfire>{kMisfireSkip, kMisfireOnce, kMisfireAll}),
            1 + static_cast<int>(rng() % 5), pick(std::vector<int64_t>{0, 1000, 300000, 86400000}),
            pick(std::vector<DstPolicy>{DstPolicy::kCron, DstPolicy::kBoth, DstPolicy::kSkip}));
        CAPTURE(zone_name);
        CAPTURE(schedule.text);
        CAPTURE(last);
        CAPTURE(now);
        const FiringPlan got = Plan(job, zone, last, now);
        const FiringPlan want = Reference(job, zone, last, now);
        CHECK(got.fire == want.fire);
        CHECK(got.dropped == want.dropped);
        CHECK(got.late == want.late);
        CHECK(got.last == want.last);
        CHECK(got.next == want.next);
      }
    }
  }
}

TEST_CASE("ArrivalMark: @every keeps its grid, other schedules start from now") {
  struct FiringCase {
    const char* schedule;
    WallMs last, now, want;
  };
  const FiringCase cases[] = {
      // @every 10s from 1000: the latest grid time at or before now - 1
      {"@every 10s", 1000, 1001, 1000},    // the grid's first time is still to come
      {"@every 10s", 1000, 11000, 1000},   // now - 1 is just before 11000
      {"@every 10s", 1000, 11001, 11000},  // 11000 has come
      {"@every 10s", 1000, 25500, 21000},  // two intervals and a half
      {"@every 10s", 5000, 4000, 5000},    // the clock stepped back: last stays
      {"@every 1h", 0, 7'200'000, 3'600'000},
      // a calendar schedule: now - 1, whatever last was
      {"*/10 * * * * *", 1000, 25500, 25499},
      {"0 3 * * *", 1000, 25500, 25499},
      {"0 3 * * *", 30000, 25500, 30000},
  };
  for (const FiringCase& c : cases) {
    CAPTURE(c.schedule);
    CAPTURE(c.now);
    CHECK(ArrivalMark(PlanJob(c.schedule, kMisfireSkip), c.last, c.now) == c.want);
  }
  // Hosts loading the job at different times from the one anchor the store holds mark times
  // of one grid, and so plan the same firings.
  const JobDef every = PlanJob("@every 7s", kMisfireSkip);
  const TimeZone utc = PlanZone("UTC");
  for (WallMs loaded : {50'000, 50'003, 61'999, 93'100}) {
    const WallMs mark = ArrivalMark(every, 12'345, loaded);
    CHECK((mark - 12'345) % 7000 == 0);
    const FiringPlan plan = Plan(every, utc, mark, loaded);
    REQUIRE(plan.next.has_value());
    CHECK((*plan.next - 12'345) % 7000 == 0);
  }
}

}  // namespace
}  // namespace tq
