#include "core/cron/cron_zone.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "core/model/wall_time.h"

namespace tq {
namespace {

// Sets TZ for one test and restores the previous value afterwards.
class TzEnv {
 public:
  explicit TzEnv(const char* zone) {
    const char* old = std::getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", zone, 1);
  }
  ~TzEnv() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

TimeZone ZoneNamed(const char* name) {
  Result<TimeZone> z = LoadTimeZone(name);
  REQUIRE_MESSAGE(z.ok(), z.status().message());
  return *z;
}

WallMs ZoneAt(const char* rfc3339) {
  Result<WallMs> r = ParseRfc3339(rfc3339);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  return *r;
}

TEST_CASE("LoadTimeZone loads IANA zones and refuses others, naming them") {
  CHECK(ZoneNamed("Europe/Berlin").name() == "Europe/Berlin");
  CHECK(ZoneNamed("UTC").name() == "UTC");
  CHECK(ZoneNamed("America/Argentina/Buenos_Aires").name() == "America/Argentina/Buenos_Aires");
  CHECK(ZoneNamed("Etc/GMT+5").name() == "Etc/GMT+5");

  struct Case {
    const char* name;
    const char* message;
  };
  const Case cases[] = {
      {"Mars/Olympus_Mons",
       "timezone: \"Mars/Olympus_Mons\" is not a known time zone (not in the system tz database)"},
      {"europe/berlin",
       "timezone: \"europe/berlin\" is not a known time zone (not in the system tz database)"},
      {"", "timezone: \"\" is empty (use an IANA zone such as Europe/Berlin or UTC)"},
      {"/etc/passwd",
       "timezone: \"/etc/passwd\" is not a time zone name (use an IANA zone such as "
       "Europe/Berlin)"},
      {"../../etc/passwd",
       "timezone: \"../../etc/passwd\" is not a time zone name (use an IANA zone such as "
       "Europe/Berlin)"},
      {"CET-1CEST,M3.5.0,M10.5.0/3",
       "timezone: \"CET-1CEST,M3.5.0,M10.5.0/3\" is not a time zone name (use an IANA zone such "
       "as Europe/Berlin)"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    Result<TimeZone> z = LoadTimeZone(c.name);
    REQUIRE_FALSE(z.ok());
    CHECK(z.status().code() == ErrorCode::kInvalid);
    CHECK(z.status().field() == "timezone");
    CHECK(z.status().message() == c.message);
  }
  CHECK(LoadTimeZone("Nowhere/Land", "--tz").status().message().rfind("--tz: ", 0) == 0);
}

TEST_CASE("LocalTimeZone follows TZ, and names an unknown one") {
  {
    TzEnv tz("America/New_York");
    Result<TimeZone> z = LocalTimeZone();
    REQUIRE(z.ok());
    CHECK(z->name() == "America/New_York");
    CHECK(FormatRfc3339InZone(ZoneAt("2026-07-01T12:00:00Z"), *z) == "2026-07-01T08:00:00-04:00");
  }
  {
    TzEnv tz(":Europe/Berlin");
    Result<TimeZone> z = LocalTimeZone();
    REQUIRE(z.ok());
    CHECK(z->name() == "Europe/Berlin");
  }
  {
    TzEnv tz("/usr/share/zoneinfo/Asia/Tokyo");
    Result<TimeZone> z = LocalTimeZone();
    REQUIRE(z.ok());
    CHECK(z->name() == "Asia/Tokyo");
    CHECK(FormatRfc3339InZone(ZoneAt("2026-07-01T12:00:00Z"), *z) == "2026-07-01T21:00:00+09:00");
  }
  {
    TzEnv tz("");
    Result<TimeZone> z = LocalTimeZone();
    REQUIRE(z.ok());
    CHECK(z->name() == "UTC");
  }
  {
    TzEnv tz("Atlantis/Capital");
    Result<TimeZone> z = LocalTimeZone();
    REQUIRE_FALSE(z.ok());
    CHECK(z.status().field() == "TZ");
    CHECK(z.status().message() ==
          "TZ: \"Atlantis/Capital\" is not a known time zone (not in the system tz database)");
  }
}

TEST_CASE("FormatRfc3339InZone writes the wall time with the offset in force") {
  struct Case {
    const char* utc;
    const char* zone;
    const char* want;
  };
  const Case cases[] = {
      {"2026-03-29T01:00:00Z", "Europe/Berlin", "2026-03-29T03:00:00+02:00"},
      {"2026-03-29T00:59:59Z", "Europe/Berlin", "2026-03-29T01:59:59+01:00"},
      {"2026-01-01T00:00:00Z", "UTC", "2026-01-01T00:00:00+00:00"},
      {"2026-01-01T00:00:00Z", "America/St_Johns", "2025-12-31T20:30:00-03:30"},
      {"2026-01-01T00:00:00Z", "Asia/Kathmandu", "2026-01-01T05:45:00+05:45"},
      {"2026-01-01T00:00:00.999Z", "Asia/Kolkata", "2026-01-01T05:30:00+05:30"},
      {"1969-12-31T23:59:59.500Z", "UTC", "1969-12-31T23:59:59+00:00"},
      // Berlin kept local mean time (+00:53:28) until 1893: not writable as ±HH:MM, so UTC.
      {"1890-06-01T12:00:00Z", "Europe/Berlin", "1890-06-01T12:00:00Z"},
  };
  for (const Case& c : cases) {
    const std::string utc = c.utc, zone = c.zone;
    CAPTURE(utc);
    CAPTURE(zone);
    CHECK(FormatRfc3339InZone(ZoneAt(c.utc), ZoneNamed(c.zone)) == c.want);
  }
}

TEST_CASE("ParseTimeInZone reads --from times in the zone, past ones too") {
  const TimeZone berlin = ZoneNamed("Europe/Berlin");
  const WallMs now = ZoneAt("2026-07-15T10:00:00Z");
  struct Case {
    const char* text;
    const char* want;  // RFC 3339 UTC
  };
  const Case cases[] = {
      {"2026-03-28 12:00", "2026-03-28T11:00:00Z"},
      {"2026-03-28T12:00:30", "2026-03-28T11:00:30Z"},
      {"2026-07-01", "2026-06-30T22:00:00Z"},        // local midnight
      {"2026-10-25T02:30", "2026-10-25T00:30:00Z"},  // repeated: the first occurrence
      {"2026-10-25T02:30:00+01:00", "2026-10-25T01:30:00Z"},
      {"2026-01-01T00:00:00.250Z", "2026-01-01T00:00:00.250Z"},
      {"2026-01-01Z", "2026-01-01T00:00:00Z"},
      {"2001-09-09T01:46:40Z", "2001-09-09T01:46:40Z"},  // the past is fine here
      {"@1000000000", "2001-09-09T01:46:40Z"},
      {"08:15", "2026-07-15T06:15:00Z"},  // today in the zone, even when it has passed
      {"23:59:59", "2026-07-15T21:59:59Z"},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    Result<WallMs> r = ParseTimeInZone(c.text, berlin, now, "--from");
    REQUIRE_MESSAGE(r.ok(), r.status().message());
    CHECK(FormatRfc3339Utc(*r) == c.want);
  }

  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"2026-03-29 02:30",
       "--from: \"2026-03-29 02:30\" does not exist in Europe/Berlin (a daylight-saving change "
       "skips it; give another time or an explicit offset)"},
      {"2026-02-30",
       "--from: \"2026-02-30\" is not a valid time: no such date (use "
       "YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], HH:MM[:SS], @EPOCH or an RFC 3339 time)"},
      {"tomorrowish",
       "--from: \"tomorrowish\" is not a valid time (use YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], "
       "HH:MM[:SS], @EPOCH or an RFC 3339 time)"},
      {"2026-01-01T25:00",
       "--from: \"2026-01-01T25:00\" is not a valid time: no such time of day (use "
       "YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], HH:MM[:SS], @EPOCH or an RFC 3339 time)"},
      {"2026-01-01T10:00 tomorrow",
       "--from: \"2026-01-01T10:00 tomorrow\" is not a valid time: unexpected \" tomorrow\" (use "
       "YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], HH:MM[:SS], @EPOCH or an RFC 3339 time)"},
      {"",
       "--from: \"\" is not a valid time: it is empty (use YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], "
       "HH:MM[:SS], @EPOCH or an RFC 3339 time)"},
  };
  for (const Bad& b : bad) {
    const std::string text = b.text;
    CAPTURE(text);
    Result<WallMs> r = ParseTimeInZone(b.text, berlin, now, "--from");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "--from");
    CHECK(r.status().message() == b.message);
  }
}

}  // namespace
}  // namespace tq
