#include "core/cron/cron_zone.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/model/quote.h"
#include "core/model/text_cursor.h"
#include "core/model/wall_time.h"

namespace tq {

namespace {

constexpr const char* kFromGrammar =
    "use YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], HH:MM[:SS], @EPOCH or an RFC 3339 time";
constexpr size_t kMaxZoneName = 255;

// Characters of IANA zone names; anything else (a path, "..", a POSIX TZ rule) is refused before
// cctz would look for it as a file under the zoneinfo directory.
bool IsZoneChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '+' || c == '-' || c == '/';
}

std::string NameFromLocaltimeLink() {
  char buf[4096];
  const ssize_t n = readlink("/etc/localtime", buf, sizeof buf - 1);
  if (n <= 0) return "localtime";
  const std::string target(buf, static_cast<size_t>(n));
  const size_t at = target.find("zoneinfo/");
  return at == std::string::npos ? "localtime" : target.substr(at + 9);
}

cctz::civil_second Epoch() {
  return cctz::civil_second(1970, 1, 1, 0, 0, 0);
}

}  // namespace

Result<TimeZone> LoadTimeZone(std::string_view name, const std::string& field) {
  auto refuse = [&](const std::string& why) {
    return Status::Invalid(field, field + ": " + Quote(name) + " " + why);
  };
  if (name.empty()) return refuse("is empty (use an IANA zone such as Europe/Berlin or UTC)");
  bool ok = name.size() <= kMaxZoneName && name.front() != '/' && name.back() != '/' &&
            name.find("//") == std::string_view::npos;
  for (char c : name) ok = ok && IsZoneChar(c);
  if (!ok) return refuse("is not a time zone name (use an IANA zone such as Europe/Berlin)");
  cctz::time_zone zone;
  if (!cctz::load_time_zone(std::string(name), &zone)) {
    return refuse("is not a known time zone (not in the system tz database)");
  }
  return TimeZone(std::string(name), zone);
}

Result<TimeZone> LocalTimeZone() {
  const char* env = std::getenv("TZ");
  if (env == nullptr) return TimeZone(NameFromLocaltimeLink(), cctz::local_time_zone());
  std::string_view tz = env;
  if (!tz.empty() && tz.front() == ':') tz.remove_prefix(1);
  if (tz.empty()) return TimeZone();  // an empty TZ means UTC, as in libc
  if (tz.front() == '/') {
    // A zone file by path: the user's own environment, so any file they name is theirs to read.
    cctz::time_zone zone;
    if (!cctz::load_time_zone(std::string(tz), &zone)) {
      return Status::Invalid("TZ", "TZ: " + Quote(tz) + " is not a readable zone file");
    }
    const size_t at = tz.find("zoneinfo/");
    return TimeZone(std::string(at == std::string_view::npos ? tz : tz.substr(at + 9)), zone);
  }
  return LoadTimeZone(tz, "TZ");
}

std::string FormatRfc3339InZone(WallMs t, const TimeZone& zone) {
  const int64_t secs = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
  const cctz::time_point<cctz::seconds> tp{cctz::seconds(secs)};
  const cctz::time_zone::absolute_lookup al = zone.zone().lookup(tp);
  if (al.offset % 60 != 0) return FormatRfc3339Utc(secs * 1000);
  const int off = al.offset < 0 ? -al.offset : al.offset;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
                static_cast<long long>(al.cs.year()), al.cs.month(), al.cs.day(), al.cs.hour(),
                al.cs.minute(), al.cs.second(), al.offset < 0 ? '-' : '+', off / 3600,
                off / 60 % 60);
  return buf;
}

Result<WallMs> ParseTimeInZone(std::string_view text, const TimeZone& zone, WallMs now,
                               const std::string& field) {
  auto refuse = [&](const std::string& reason) {
    std::string msg = field + ": " + Quote(text) + " is not a valid time";
    if (!reason.empty()) msg += ": " + reason;
    return Status::Invalid(field, msg + " (" + kFromGrammar + ")");
  };
  if (text.empty()) return refuse("it is empty");
  if (text[0] == '@') {
    // ParseAt's @EPOCH, with a `now` so early that nothing counts as the past.
    return ParseAt(text, std::numeric_limits<WallMs>::min() / 2, field);
  }

  TextCursor cur(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, milli = 0;
  bool want_time = true;
  if (text.size() >= 3 && text[2] == ':') {
    const cctz::civil_second today =
        cctz::convert(cctz::time_point<cctz::seconds>{cctz::seconds(now / 1000)}, zone.zone());
    year = static_cast<int>(today.year());
    month = today.month();
    day = today.day();
  } else {
    if (!cur.Digits(4, &year) || !cur.Eat('-') || !cur.Digits(2, &month) || !cur.Eat('-') ||
        !cur.Digits(2, &day)) {
      return refuse("");
    }
    want_time = cur.Eat('T') || cur.Eat('t') || cur.Eat(' ');
  }
  if (want_time) {
    if (!cur.Digits(2, &hour) || !cur.Eat(':') || !cur.Digits(2, &minute)) {
      return refuse("expected the time as HH:MM[:SS]");
    }
    if (cur.Eat(':')) {
      if (!cur.Digits(2, &second)) return refuse("expected seconds as SS");
      if (cur.Eat('.')) {
        int digits = 0;
        for (int d; cur.Digits(1, &d); ++digits)
          if (digits < 3) milli = milli * 10 + d;
        if (digits == 0) return refuse("expected digits after the decimal point");
        for (int i = digits; i < 3; ++i) milli *= 10;
      }
    }
  }
  bool has_offset = false;
  int offset_s = 0;
  if (cur.Eat('Z') || cur.Eat('z')) {
    has_offset = true;
  } else if (int sign = cur.Eat('+') ? 1 : cur.Eat('-') ? -1 : 0; sign != 0) {
    int oh, om;
    if (!cur.Digits(2, &oh) || !cur.Eat(':') || !cur.Digits(2, &om) || oh > 23 || om > 59) {
      return refuse("the offset must be ±HH:MM");
    }
    has_offset = true;
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (!cur.AtEnd()) return refuse("unexpected " + Quote(cur.Rest()));
  if (year < 1 || month < 1 || month > 12) return refuse("no such date");
  const cctz::civil_day date(year, month, day);
  if (date.year() != year || date.month() != month || date.day() != day) {
    return refuse("no such date");
  }
  if (hour > 23 || minute > 59 || second > 59) return refuse("no such time of day");

  const cctz::civil_second cs(year, month, day, hour, minute, second);
  int64_t secs;
  if (has_offset) {
    secs = (cs - Epoch()) - offset_s;
  } else {
    const cctz::time_zone::civil_lookup cl = zone.zone().lookup(cs);
    if (cl.kind == cctz::time_zone::civil_lookup::SKIPPED) {
      return Status::Invalid(field, field + ": " + Quote(text) + " does not exist in " +
                                        zone.name() +
                                        " (a daylight-saving change skips it; give another time "
                                        "or an explicit offset)");
    }
    secs = cl.pre.time_since_epoch().count();
  }
  return secs * 1000 + milli;
}

}  // namespace tq
