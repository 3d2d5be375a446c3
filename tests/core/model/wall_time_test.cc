#include "core/model/wall_time.h"

#include <doctest/doctest.h>
#include <time.h>

#include <cstdlib>
#include <string>

namespace tq {
namespace {

// Sets TZ for one test and restores the previous value afterwards.
class ZoneGuard {
 public:
  explicit ZoneGuard(const char* zone) {
    const char* old = std::getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ZoneGuard() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  bool had_ = false;
  std::string old_;
};

// An instant written in RFC 3339 (checked against raw epoch values in its own test).
WallMs WallAt(const char* rfc3339) {
  Result<WallMs> r = ParseRfc3339(rfc3339);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("RFC 3339: format") {
  CHECK(FormatRfc3339Utc(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatRfc3339Utc(1795331443000) == "2026-11-22T07:10:43Z");
  CHECK(FormatRfc3339Utc(1795331443123) == "2026-11-22T07:10:43.123Z");
  CHECK(FormatRfc3339Utc(1795331443007) == "2026-11-22T07:10:43.007Z");
  CHECK(FormatRfc3339Utc(-1) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("RFC 3339: parse") {
  struct Case {
    const char* text;
    WallMs ms;
  };
  const Case cases[] = {
      {"1970-01-01T00:00:00Z", 0},
      {"2026-11-22T07:10:43Z", 1795331443000},
      {"2026-11-22T07:10:43.123Z", 1795331443123},
      {"2026-11-22T07:10:43.5Z", 1795331443500},
      {"2026-11-22T07:10:43.123999Z", 1795331443123},
      {"2026-11-22t07:10:43z", 1795331443000},
      {"2026-11-22T08:10:43+01:00", 1795331443000},
      {"2026-11-22T02:40:43-04:30", 1795331443000},
      {"2026-11-22T07:10:43+00:00", 1795331443000},
      {"2028-02-29T00:00:00Z", 1835395200000},
      {"1969-12-31T23:59:59.999Z", -1},
  };
  for (const Case& c : cases) {
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<WallMs> r = ParseRfc3339(c.text);
    REQUIRE(r.ok());
    CHECK(*r == c.ms);
  }
}

TEST_CASE("RFC 3339: round trips") {
  for (WallMs t : {WallMs{0}, WallMs{1795331443000}, WallMs{1795331443123}, WallMs{-1},
                   WallMs{253402300799999}}) {
    CAPTURE(t);
    Result<WallMs> back = ParseRfc3339(FormatRfc3339Utc(t));
    REQUIRE(back.ok());
    CHECK(*back == t);
  }
}

TEST_CASE("RFC 3339: refusals name the field and the value") {
  const char* bad[] = {
      "",
      "2026-11-22T07:10:43",        // no offset
      "2026-11-22 07:10:43Z",       // space
      "2026-11-22T07:10Z",          // no seconds
      "2026-11-22T07:10:43.Z",      // empty fraction
      "2026-11-22T07:10:43Zjunk",   // trailing
      "2026-11-22T07:10:43+0100",   // offset without colon
      "2026-11-22T07:10:43+24:00",  // offset out of range
      "2026-02-29T00:00:00Z",       // not a leap year
      "2026-11-22T24:00:00Z",
      "2026-11-22T07:10:60Z",
      "1795331443",
  };
  for (const char* text : bad) {
    const std::string text_s = text;
    CAPTURE(text_s);
    Result<WallMs> r = ParseRfc3339(text, "created");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == "created");
    CHECK(r.status().message().rfind("created: \"" + std::string(text) + "\"", 0) == 0);
  }
}

TEST_CASE("ParseAt: dates and times in Europe/Berlin") {
  ZoneGuard zone("Europe/Berlin");
  const WallMs now = WallAt("2026-03-01T00:00:00Z");
  struct Case {
    const char* text;
    const char* want;  // RFC 3339
  };
  const Case cases[] = {
      {"2026-07-01", "2026-06-30T22:00:00Z"},  // local midnight, summer time
      {"2026-12-01", "2026-11-30T23:00:00Z"},  // local midnight, winter time
      {"2026-07-01T10:00", "2026-07-01T08:00:00Z"},
      {"2026-07-01 10:00", "2026-07-01T08:00:00Z"},
      {"2026-07-01T10:00:30", "2026-07-01T08:00:30Z"},
      {"2026-07-01T10:00Z", "2026-07-01T10:00:00Z"},
      {"2026-07-01T10:00+02:00", "2026-07-01T08:00:00Z"},
      {"2026-07-01 10:00:30-05:30", "2026-07-01T15:30:30Z"},
      {"2026-07-01Z", "2026-07-01T00:00:00Z"},
      {"2026-03-29T01:59:59", "2026-03-29T00:59:59Z"},  // just before the gap
      {"2026-03-29T03:00", "2026-03-29T01:00:00Z"},     // just after it
      {"2026-03-29T02:30Z", "2026-03-29T02:30:00Z"},    // an offset is not local: no gap
      {"2028-02-29", "2028-02-28T23:00:00Z"},           // leap day
      {"@1782892800", "2026-07-01T08:00:00Z"},
  };
  for (const Case& c : cases) {
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<WallMs> r = ParseAt(c.text, now, "--at");
    REQUIRE(r.ok());
    CHECK(FormatRfc3339Utc(*r) == c.want);
  }
}

TEST_CASE("ParseAt: an ambiguous fall-back time is accepted as one of its two instants") {
  ZoneGuard zone("Europe/Berlin");
  Result<WallMs> r = ParseAt("2026-10-25T02:30", WallAt("2026-03-01T00:00:00Z"), "--at");
  REQUIRE(r.ok());
  const std::string utc = FormatRfc3339Utc(*r);
  CHECK((utc == "2026-10-25T00:30:00Z" || utc == "2026-10-25T01:30:00Z"));
}

TEST_CASE("ParseAt: refusals name the field, the value and the reason") {
  ZoneGuard zone("Europe/Berlin");
  const WallMs now = WallAt("2026-03-01T00:00:00Z");
  struct Case {
    const char* text;
    const char* reason;
  };
  const Case cases[] = {
      {"2026-03-29T02:30", "does not exist in the local time zone"},  // DST gap
      {"2026-03-29T02:00:00", "does not exist"},
      {"2027-02-29", "day 29 does not exist in 2027-02"},
      {"2026-02-30", "day 30 does not exist in 2026-02 (it has 28 days)"},
      {"2026-04-31", "day 31 does not exist"},
      {"2026-13-01", "month 13 is out of range"},
      {"2026-00-10", "month 00 is out of range"},
      {"2026-07-01T24:00", "hour 24 is out of range"},
      {"2026-07-01T10:60", "minute 60 is out of range"},
      {"2026-07-01T10:00:60", "second 60 is out of range"},
      {"2026-07-01T10:00junk", "unexpected \"junk\""},
      {"2026-07-01T10:00:00.5", "unexpected \".5\""},
      {"2026-07-01 ", "expected HH:MM"},
      {"2026-07-01T10", "expected HH:MM"},
      {"2026-07-01T10:00+2", "the offset must be"},
      {"2026-07-01T10:00+24:00", "offset +24:00 is out of range"},
      {"2026-7-1", "is not a valid time"},
      {"26-07-01", "is not a valid time"},
      {"tomorrow", "is not a valid time"},
      {"", "it is empty"},
      {"@", "no seconds"},
      {"@12a", "whole seconds"},
      {"@-5", "whole seconds"},
      {"@99999999999999999999",
       "is out of range (1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)"},
      {"@99999999999999", "is out of range (1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)"},
      {"@253402300800", "is out of range"},
      {"25:00", "hour 25 is out of range"},
      {"10:61", "minute 61 is out of range"},
      {"10:00:60", "second 60 is out of range"},
      {"10:00:0", "expected HH:MM:SS"},
      {"10:00:00:00", "unexpected \":00\""},
      {"9:30", "is not a valid time"},
      {"2020-01-01", "more than 60 s in the past"},
      {"@1000", "more than 60 s in the past"},
  };
  for (const Case& c : cases) {
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<WallMs> r = ParseAt(c.text, now, "--at");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == "--at");
    const std::string& msg = r.status().message();
    CAPTURE(msg);
    CHECK(msg.rfind("--at: \"" + std::string(c.text) + "\"", 0) == 0);
    CHECK(msg.find(c.reason) != std::string::npos);
  }
}

TEST_CASE("ParseAt: the range is 1970 to the end of 9999, so every time is RFC 3339") {
  const WallMs now = WallAt("2026-06-15T10:00:00Z");
  Result<WallMs> last = ParseAt("@253402300799", now, "--at");
  REQUIRE(last.ok());
  CHECK(FormatRfc3339Utc(*last) == "9999-12-31T23:59:59Z");
  CHECK(ParseAt("9999-12-31T23:59:59Z", now, "--at").ok());
  CHECK_FALSE(ParseAt("9999-12-31T23:59:59-01:00", now, "--at").ok());
  // Before 1970 is out of range even where the past is allowed (`tq cron next --from`).
  Result<WallMs> early = ParseAt("1969-12-31T23:59:59Z", -100'000'000'000'000, "--from");
  REQUIRE_FALSE(early.ok());
  CHECK(early.status().message().find("is out of range") != std::string::npos);
}

TEST_CASE("ParseAt: up to 60 s in the past is still accepted") {
  const WallMs now = WallAt("2026-06-15T10:00:00Z");
  const int64_t now_s = now / 1000;
  CHECK(ParseAt("@" + std::to_string(now_s - 60), now, "--at").ok());
  CHECK_FALSE(ParseAt("@" + std::to_string(now_s - 61), now, "--at").ok());
  CHECK(ParseAt("2026-06-15T09:59:30Z", now, "--at").ok());
  CHECK_FALSE(ParseAt("2026-06-15T09:58:59Z", now, "--at").ok());
}

TEST_CASE("ParseAt: HH:MM is today while ahead, else tomorrow") {
  ZoneGuard zone("Europe/Berlin");
  struct Case {
    const char* now;  // RFC 3339
    const char* text;
    const char* want;  // RFC 3339, or "" for a refusal
  };
  const Case cases[] = {
      // 12:00 local (CEST) on 2026-06-15
      {"2026-06-15T10:00:00Z", "13:00", "2026-06-15T11:00:00Z"},
      {"2026-06-15T10:00:00Z", "12:00", "2026-06-15T10:00:00Z"},  // exactly now: today
      {"2026-06-15T10:00:30Z", "12:00", "2026-06-16T10:00:00Z"},  // passed: tomorrow
      {"2026-06-15T10:00:00Z", "11:00", "2026-06-16T09:00:00Z"},
      {"2026-06-15T10:00:00Z", "00:00", "2026-06-15T22:00:00Z"},
      {"2026-06-15T10:00:00Z", "23:59", "2026-06-15T21:59:00Z"},
      // HH:MM:SS, as at(1) and pueue take it
      {"2026-06-15T10:00:00Z", "12:00:45", "2026-06-15T10:00:45Z"},
      {"2026-06-15T10:00:50Z", "12:00:45", "2026-06-16T10:00:45Z"},
      {"2026-06-15T10:00:00Z", "23:59:59", "2026-06-15T21:59:59Z"},
      // month end: tomorrow is the first of the next month
      {"2026-06-30T20:00:00Z", "08:00", "2026-07-01T06:00:00Z"},
      // 01:30 CET on the day clocks go forward: 02:30 does not exist today
      {"2026-03-29T00:30:00Z", "02:30", ""},
      {"2026-03-29T00:30:00Z", "03:30", "2026-03-29T01:30:00Z"},
      {"2026-03-29T00:30:00Z", "01:00", "2026-03-29T23:00:00Z"},  // tomorrow, in summer time
      // 13:00 CET the day before: 02:30 tomorrow does not exist
      {"2026-03-28T12:00:00Z", "02:30", ""},
      // 10:00 CEST on the day of the change: 02:30 has passed, tomorrow's exists
      {"2026-03-29T08:00:00Z", "02:30", "2026-03-30T00:30:00Z"},
  };
  for (const Case& c : cases) {
    const std::string now_s = c.now;
    CAPTURE(now_s);
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<WallMs> r = ParseAt(c.text, WallAt(c.now), "--at");
    if (c.want[0] == '\0') {
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().message().find("does not exist") != std::string::npos);
    } else {
      REQUIRE(r.ok());
      CHECK(FormatRfc3339Utc(*r) == c.want);
    }
  }
}

TEST_CASE("ParseAt: other zones") {
  {
    ZoneGuard zone("UTC");
    Result<WallMs> r = ParseAt("2026-07-01T10:00", WallAt("2026-03-01T00:00:00Z"), "--at");
    REQUIRE(r.ok());
    CHECK(FormatRfc3339Utc(*r) == "2026-07-01T10:00:00Z");
  }
  {
    ZoneGuard zone("America/New_York");
    Result<WallMs> r = ParseAt("2026-07-01T10:00", WallAt("2026-03-01T00:00:00Z"), "--at");
    REQUIRE(r.ok());
    CHECK(FormatRfc3339Utc(*r) == "2026-07-01T14:00:00Z");
    // the US gap: 2026-03-08 02:00-03:00
    CHECK_FALSE(ParseAt("2026-03-08T02:15", WallAt("2026-03-01T00:00:00Z"), "--at").ok());
  }
}

TEST_CASE("FormatLocal: time of day today, date and minute otherwise") {
  ZoneGuard zone("Europe/Berlin");
  const WallMs now = WallAt("2026-06-15T10:00:00Z");  // 12:00 local
  CHECK(FormatLocal(WallAt("2026-06-15T20:00:05Z"), now) == "22:00:05");
  CHECK(FormatLocal(WallAt("2026-06-14T22:00:00Z"), now) == "00:00:00");  // local midnight today
  CHECK(FormatLocal(WallAt("2026-06-14T21:59:00Z"), now) == "2026-06-14 23:59");
  CHECK(FormatLocal(WallAt("2026-06-15T22:30:00Z"), now) == "2026-06-16 00:30");
  CHECK(FormatLocal(WallAt("2027-01-02T03:04:05Z"), now) == "2027-01-02 04:04");
}

}  // namespace
}  // namespace tq
