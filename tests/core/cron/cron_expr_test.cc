#include "core/cron/cron_expr.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq {
namespace {

// The values a bit set allows, in order.
std::vector<int> Bits(uint64_t mask) {
  std::vector<int> out;
  for (int i = 0; i < 64; ++i)
    if (mask >> i & 1) out.push_back(i);
  return out;
}

CronExpr ParseExpr(const std::string& text) {
  CAPTURE(text);
  Result<CronExpr> r = ParseCron(text);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  return *r;
}

TEST_CASE("ParseCron reads 5 fields with seconds fixed at 0, and 6 with a leading second") {
  const CronExpr five = ParseExpr("1 2 3 4 5");
  CHECK(five.kind == CronKind::kFields);
  CHECK(Bits(five.seconds) == std::vector<int>{0});
  CHECK(Bits(five.minutes) == std::vector<int>{1});
  CHECK(Bits(five.hours) == std::vector<int>{2});
  CHECK(Bits(five.days) == std::vector<int>{3});
  CHECK(Bits(five.months) == std::vector<int>{4});
  CHECK(Bits(five.weekdays) == std::vector<int>{5});
  CHECK(five.text == "1 2 3 4 5");

  const CronExpr six = ParseExpr("  7 1 2 3 4 5\t");
  CHECK(Bits(six.seconds) == std::vector<int>{7});
  CHECK(Bits(six.minutes) == std::vector<int>{1});
  CHECK(Bits(six.weekdays) == std::vector<int>{5});
  CHECK(six.text == "7 1 2 3 4 5");
}

TEST_CASE("ParseCron: stars, lists, ranges and steps") {
  struct Case {
    const char* minute;
    std::vector<int> values;
  };
  const Case cases[] = {
      {"*/15", {0, 15, 30, 45}},
      {"10-50/20", {10, 30, 50}},
      {"5/15", {5, 20, 35, 50}},  // a start with a step runs to the end of the field
      {"1,2,5-7", {1, 2, 5, 6, 7}},
      {"59", {59}},
      {"0-3,2-4", {0, 1, 2, 3, 4}},
      {"*/59", {0, 59}},
      {"*/60", {0}},
  };
  for (const Case& c : cases) {
    const CronExpr e = ParseExpr(std::string(c.minute) + " * * * *");
    CHECK(Bits(e.minutes) == c.values);
  }
  CHECK(Bits(ParseExpr("0 * * * *").hours).size() == 24);
  CHECK(Bits(ParseExpr("0 0 * * *").days).size() == 31);
  CHECK(Bits(ParseExpr("0 0 * * *").months).size() == 12);
  CHECK(Bits(ParseExpr("0 0 * * *").weekdays).size() == 7);
  CHECK(Bits(ParseExpr("0 0 */10 * *").days) == std::vector<int>{1, 11, 21, 31});
  CHECK(Bits(ParseExpr("0 0 * */3 *").months) == std::vector<int>{1, 4, 7, 10});
}

TEST_CASE("ParseCron: month and weekday names in any case, 0 and 7 are both Sunday") {
  CHECK(Bits(ParseExpr("0 0 * JAN *").months) == std::vector<int>{1});
  CHECK(Bits(ParseExpr("0 0 * jan-Mar,dec *").months) == std::vector<int>{1, 2, 3, 12});
  CHECK(Bits(ParseExpr("0 0 * * mon-fri").weekdays) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(Bits(ParseExpr("0 0 * * SAT,sun").weekdays) == std::vector<int>{0, 6});
  CHECK(Bits(ParseExpr("0 0 * * 7").weekdays) == std::vector<int>{0});
  CHECK(Bits(ParseExpr("0 0 * * 0").weekdays) == std::vector<int>{0});
  CHECK(Bits(ParseExpr("0 0 * * 5-7").weekdays) == std::vector<int>{0, 5, 6});
  CHECK(Bits(ParseExpr("0 0 * * 1-7").weekdays).size() == 7);
  CHECK(Bits(ParseExpr("0 0 * * */2").weekdays) == std::vector<int>{0, 2, 4, 6});
}

TEST_CASE("ParseCron: the macros and what they stand for") {
  struct Case {
    const char* macro;
    const char* same_as;
  };
  const Case cases[] = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}, {"@DAILY", "0 0 * * *"},    {" @Hourly ", "0 * * * *"},
  };
  for (const Case& c : cases) {
    const CronExpr m = ParseExpr(c.macro);
    const CronExpr f = ParseExpr(c.same_as);
    CHECK(m.seconds == f.seconds);
    CHECK(m.minutes == f.minutes);
    CHECK(m.hours == f.hours);
    CHECK(m.days == f.days);
    CHECK(m.months == f.months);
    CHECK(m.weekdays == f.weekdays);
    CHECK(m.dom_star == f.dom_star);
    CHECK(m.dow_star == f.dow_star);
    CHECK(m.hour_elapsed == f.hour_elapsed);
  }
  CHECK(ParseExpr("@yearly").text == "@yearly");

  const CronExpr every = ParseExpr("@every 1h30m");
  CHECK(every.kind == CronKind::kEvery);
  CHECK(every.every_ms == 90 * 60 * 1000);
  CHECK(every.hour_elapsed);
  CHECK(ParseExpr("@EVERY 90").every_ms == 90 * 1000);  // a bare number is seconds

  CHECK(ParseExpr("@reboot").kind == CronKind::kReboot);
}

TEST_CASE("ParseCron: the Quartz day extensions") {
  CHECK(ParseExpr("0 0 L * *").last_day);
  CHECK(ParseExpr("0 0 l * *").last_day);
  CHECK(ParseExpr("0 0 LW * *").last_weekday);
  CHECK(Bits(ParseExpr("0 0 15W * *").nearest_weekday) == std::vector<int>{15});
  CHECK(Bits(ParseExpr("0 0 1w,31W * *").nearest_weekday) == std::vector<int>{1, 31});
  const CronExpr mixed = ParseExpr("0 0 1,15,L * *");
  CHECK(Bits(mixed.days) == std::vector<int>{1, 15});
  CHECK(mixed.last_day);

  const CronExpr nth = ParseExpr("0 0 * * 5#3,MON#1,7#5");
  CHECK(nth.weekdays == 0);
  CHECK(nth.nth_weekday[5] == 1 << 2);
  CHECK(nth.nth_weekday[1] == 1 << 0);
  CHECK(nth.nth_weekday[0] == 1 << 4);
  CHECK(ParseExpr("0 0 * * 5L").last_of_weekday == 1 << 5);
  CHECK(ParseExpr("0 0 * * fril,0L").last_of_weekday == ((1 << 5) | 1));
}

TEST_CASE("ParseCron: the Vixie rule's inputs and the elapsed-time hour") {
  CHECK(ParseExpr("0 0 * * *").dom_star);
  CHECK(ParseExpr("0 0 * * *").dow_star);
  CHECK(ParseExpr("0 0 */2 * 1").dom_star);  // Vixie: a field starting with * is unrestricted
  CHECK_FALSE(ParseExpr("0 0 1-31 * 1").dom_star);
  CHECK_FALSE(ParseExpr("0 0 L * 1").dom_star);
  CHECK(ParseExpr("0 0 ? * 1").dom_star);
  CHECK(ParseExpr("0 0 1 * ?").dow_star);
  CHECK_FALSE(ParseExpr("0 0 1 * MON#2").dow_star);

  CHECK(ParseExpr("0 * * * *").hour_elapsed);
  CHECK(ParseExpr("0 */2 * * *").hour_elapsed);
  CHECK(ParseExpr("0 1-23/2 * * *").hour_elapsed);
  CHECK(ParseExpr("0 3/6 * * *").hour_elapsed);
  CHECK_FALSE(ParseExpr("0 0-23 * * *").hour_elapsed);  // a range is a list of fixed hours
  CHECK_FALSE(ParseExpr("30 2 * * *").hour_elapsed);
  CHECK_FALSE(ParseExpr("*/5 2 * * *").hour_elapsed);
  CHECK_FALSE(ParseExpr("@daily").hour_elapsed);
}

TEST_CASE("CronExpr::DayMatches: Vixie OR, Vixie AND after a star, and the Quartz days") {
  // January 2026 starts on a Thursday; February 2026 on a Sunday.
  const CronExpr friday13 = ParseExpr("0 0 13 * FRI");  // both restricted: either matches
  CHECK(friday13.DayMatches(2026, 2, 13));              // a Friday and the 13th
  CHECK(friday13.DayMatches(2026, 1, 13));              // a Tuesday
  CHECK(friday13.DayMatches(2026, 2, 20));              // a Friday
  CHECK_FALSE(friday13.DayMatches(2026, 2, 14));

  const CronExpr odd_mondays = ParseExpr("0 0 */2 * MON");  // `*/2` counts as a star: both must
  CHECK(odd_mondays.DayMatches(2026, 1, 5));
  CHECK_FALSE(odd_mondays.DayMatches(2026, 1, 12));  // a Monday, but even
  CHECK_FALSE(odd_mondays.DayMatches(2026, 1, 7));   // odd, but a Wednesday

  const CronExpr in_march = ParseExpr("0 0 * 3 *");
  CHECK(in_march.DayMatches(2026, 3, 31));
  CHECK_FALSE(in_march.DayMatches(2026, 4, 1));

  const CronExpr last = ParseExpr("0 0 L * *");
  CHECK(last.DayMatches(2028, 2, 29));
  CHECK_FALSE(last.DayMatches(2028, 2, 28));
  CHECK(last.DayMatches(2027, 2, 28));

  const CronExpr lw = ParseExpr("0 0 LW * *");
  CHECK(lw.DayMatches(2026, 1, 30));  // the 31st is a Saturday
  CHECK(lw.DayMatches(2026, 5, 29));  // the 31st is a Sunday
  CHECK(lw.DayMatches(2026, 3, 31));  // a Tuesday
  CHECK_FALSE(lw.DayMatches(2026, 1, 31));

  CHECK(ParseExpr("0 0 1W * *").DayMatches(2026, 8, 3));    // the 1st is a Saturday: Monday the 3rd
  CHECK(ParseExpr("0 0 1W * *").DayMatches(2026, 2, 2));    // the 1st is a Sunday: Monday the 2nd
  CHECK(ParseExpr("0 0 31W * *").DayMatches(2026, 5, 29));  // the 31st is a Sunday: Friday the 29th
  CHECK(ParseExpr("0 0 15W * *").DayMatches(2026, 8, 14));  // the 15th is a Saturday: the 14th
  CHECK(ParseExpr("0 0 15W * *").DayMatches(2026, 1, 15));  // a Thursday: itself
  CHECK_FALSE(ParseExpr("0 0 31W * *").DayMatches(2026, 6, 30));  // June has no 31st

  const CronExpr third_friday = ParseExpr("0 0 * * FRI#3");
  CHECK(third_friday.DayMatches(2026, 1, 16));
  CHECK_FALSE(third_friday.DayMatches(2026, 1, 9));
  const CronExpr last_friday = ParseExpr("0 0 * * 5L");
  CHECK(last_friday.DayMatches(2026, 1, 30));
  CHECK_FALSE(last_friday.DayMatches(2026, 1, 23));
}

TEST_CASE("ParseCron refuses, naming the field, the text and the reason") {
  struct Case {
    const char* text;
    const char* field;
    const char* message;  // the whole message
  };
  const Case cases[] = {
      {"*/0 * * * *", "minute", "minute \"*/0\": the step 0 is out of range 1..60"},
      {"60 * * * *", "minute", "minute \"60\": 60 is out of range 0..59"},
      {"5,60 * * * *", "minute", "minute \"5,60\": 60 is out of range 0..59"},
      {"50-10 * * * *", "minute",
       "minute \"50-10\": the range 50-10 is backwards (ranges do not wrap; write it as two "
       "ranges)"},
      {"0 24 * * *", "hour", "hour \"24\": 24 is out of range 0..23"},
      {"0 22-2 * * *", "hour",
       "hour \"22-2\": the range 22-2 is backwards (ranges do not wrap; write it as two ranges)"},
      {"0 */25 * * *", "hour", "hour \"*/25\": the step 25 is out of range 1..24"},
      {"0 0 0 * *", "day-of-month", "day-of-month \"0\": 0 is out of range 1..31"},
      {"0 0 32 * *", "day-of-month", "day-of-month \"32\": 32 is out of range 1..31"},
      {"0 0 * 13 *", "month", "month \"13\": 13 is out of range 1..12"},
      {"0 0 * * 8", "day-of-week", "day-of-week \"8\": 8 is out of range 0..7"},
      {"60 * * * * *", "second", "second \"60\": 60 is out of range 0..59"},
      {"0 0 30 FEB *", "day-of-month",
       "day-of-month \"30\" with month \"FEB\" can never fire: no allowed month has a day 30"},
      {"0 0 31 apr,jun,sep,nov *", "day-of-month",
       "day-of-month \"31\" with month \"apr,jun,sep,nov\" can never fire: no allowed month has "
       "a day 31"},
      {"0 0 30,31 2 */2", "day-of-month",
       "day-of-month \"30,31\" with month \"2\" can never fire: no allowed month has a day 30"},
      {"0 0 31W 2 *", "day-of-month",
       "day-of-month \"31W\" with month \"2\" can never fire: no allowed month has a day 31"},
      {"* * *", "schedule",
       "schedule \"* * *\": expected 5 or 6 fields, got 3 ([SECOND] MINUTE HOUR DAY-OF-MONTH "
       "MONTH DAY-OF-WEEK)"},
      {"* * * * * * *", "schedule",
       "schedule \"* * * * * * *\": expected 5 or 6 fields, got 7 ([SECOND] MINUTE HOUR "
       "DAY-OF-MONTH MONTH DAY-OF-WEEK)"},
      {"0 0 * Foo *", "month", "month \"Foo\": unknown month name \"Foo\" (use 1..12 or JAN..DEC)"},
      {"0 0 * * mon-fry", "day-of-week",
       "day-of-week \"mon-fry\": unknown day-of-week name \"fry\" (use 0..7 or SUN..SAT, DOW#n "
       "or DOWL)"},
      {"0 0 * * MONDAY", "day-of-week",
       "day-of-week \"MONDAY\": unknown day-of-week name \"MONDAY\" (use 0..7 or SUN..SAT, DOW#n "
       "or DOWL)"},
      {"0 0 * * MON#6", "day-of-week",
       "day-of-week \"MON#6\": #6 is out of range #1..#5 (the nth weekday)"},
      {"0 0 * * 1#0", "day-of-week",
       "day-of-week \"1#0\": #0 is out of range #1..#5 (the nth weekday)"},
      {"0 0 * * L", "day-of-week",
       "day-of-week \"L\": \"L\" needs a weekday before it (5L or FRIL: last Friday)"},
      {"0 JAN * * *", "hour", "hour \"JAN\": \"JAN\" is not a number (use 0..23)"},
      {"a * * * *", "minute", "minute \"a\": \"a\" is not a number (use 0..59)"},
      {"1,,2 * * * *", "minute", "minute \"1,,2\": empty element in the list"},
      {"*/ * * * *", "minute", "minute \"*/\": expected a step after \"/\""},
      {"*/x * * * *", "minute", "minute \"*/x\": the step \"x\" is not a number"},
      {"0 0 0W * *", "day-of-month", "day-of-month \"0W\": 0 is out of range 1..31"},
      {"0 0 W * *", "day-of-month",
       "day-of-month \"W\": \"W\" is not a number (use 1..31, L, LW or nW)"},
      {"0 0 * ? *", "month", "month \"?\": unknown month name \"?\" (use 1..12 or JAN..DEC)"},
      {"", "schedule", "schedule \"\": it is empty"},
      {"@fortnightly", "schedule",
       "schedule \"@fortnightly\": unknown macro (use @yearly, @annually, @monthly, @weekly, "
       "@daily, @midnight, @hourly, @reboot or @every DURATION)"},
      {"@daily 5", "schedule", "schedule \"@daily 5\": @daily takes no argument"},
      {"@every", "schedule", "schedule \"@every\": @every takes one duration (e.g. @every 90s)"},
      {"@every 1m 2m", "schedule",
       "schedule \"@every 1m 2m\": @every takes one duration (e.g. @every 90s)"},
      {"@every 0s", "schedule", "schedule \"@every 0s\": the interval must be at least 1s"},
      {"@every 500ms", "schedule", "schedule \"@every 500ms\": the interval must be at least 1s"},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    Result<CronExpr> r = ParseCron(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == c.field);
    CHECK(r.status().message() == c.message);
  }
  Result<CronExpr> bad_every = ParseCron("@every 5x");
  REQUIRE_FALSE(bad_every.ok());
  CHECK(bad_every.status().message().find("schedule \"@every 5x\": @every: \"5x\" is not a "
                                          "duration") == 0);
}

TEST_CASE("ParseCron accepts day-of-month and month pairs that some year has") {
  ParseExpr("0 0 29 2 *");    // leap years
  ParseExpr("0 0 30 2 MON");  // the weekday may match instead (Vixie OR)
  ParseExpr("0 0 31 4,5 *");  // May has a 31st
  ParseExpr("0 0 L 2 *");     // every month has a last day
  ParseExpr("0 0 LW 2 *");
  ParseExpr("0 0 30W 1,2 *");
  ParseExpr("0 0 */30 2 *");   // days 1 and 31: February has the 1st
  ParseExpr("0 0 31 * *");     // some months
  ParseExpr("0 0 ? * MON#5");  // Quartz spelling of "any day-of-month"
}

}  // namespace
}  // namespace tq
