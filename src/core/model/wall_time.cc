#include "core/model/wall_time.h"

#include <time.h>

#include <cstdio>
#include <limits>
#include <optional>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/text_cursor.h"

namespace tq {

namespace {
constexpr const char* kAtGrammar = "use YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], HH:MM[:SS] or @EPOCH";
constexpr const char* kRfcGrammar = "use YYYY-MM-DDTHH:MM:SS[.fraction] then Z or ±HH:MM";
constexpr WallMs kPastSlackMs = 60 * 1000;  // SPEC 10: up to 60 s in the past is still "now"

std::string Two(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

// A calendar date and clock time as written, with an optional UTC offset.
struct Civil {
  int year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, milli = 0;
  bool has_offset = false;
  int offset_minutes = 0;  // east of UTC
};

bool IsLeap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// "" when the fields name a real date and time, else why not.
std::string CheckCivil(const Civil& c) {
  if (c.month < 1 || c.month > 12) return "month " + Two(c.month) + " is out of range 01..12";
  int dim = DaysInMonth(c.year, c.month);
  if (c.day < 1 || c.day > dim) {
    return "day " + Two(c.day) + " does not exist in " + std::to_string(c.year) + "-" +
           Two(c.month) + " (it has " + std::to_string(dim) + " days)";
  }
  if (c.hour > 23) return "hour " + Two(c.hour) + " is out of range 00..23";
  if (c.minute > 59) return "minute " + Two(c.minute) + " is out of range 00..59";
  if (c.second > 59) return "second " + Two(c.second) + " is out of range 00..59";
  return "";
}

// Reads `Z` or `±HH:MM` when present; false on a malformed or out-of-range offset.
bool ParseOffset(TextCursor& cur, Civil* c, bool lower_z_ok, std::string* why) {
  if (cur.Eat('Z') || (lower_z_ok && cur.Eat('z'))) {
    c->has_offset = true;
    return true;
  }
  int sign = cur.Eat('+') ? 1 : cur.Eat('-') ? -1 : 0;
  if (sign == 0) return true;
  int h, m;
  if (!cur.Digits(2, &h) || !cur.Eat(':') || !cur.Digits(2, &m)) {
    *why = "the offset must be ±HH:MM";
    return false;
  }
  if (h > 23 || m > 59) {
    *why = "offset " + std::string(sign > 0 ? "+" : "-") + Two(h) + ":" + Two(m) +
           " is out of range (hours 00..23, minutes 00..59)";
    return false;
  }
  c->has_offset = true;
  c->offset_minutes = sign * (h * 60 + m);
  return true;
}

// The instant of a date and time given with an offset (or in UTC).
WallMs UtcMs(const Civil& c) {
  tm t{};
  t.tm_year = c.year - 1900;
  t.tm_mon = c.month - 1;
  t.tm_mday = c.day;
  t.tm_hour = c.hour;
  t.tm_min = c.minute;
  t.tm_sec = c.second;
  int64_t secs = static_cast<int64_t>(timegm(&t));
  return secs * 1000 + c.milli - static_cast<int64_t>(c.offset_minutes) * 60 * 1000;
}

// The epoch seconds of a local wall time, or nullopt when the zone has no such time (a DST gap):
// mktime normalises a skipped time to a neighbour, so a round trip that changes a field reveals it.
std::optional<int64_t> LocalToEpoch(int year, int month, int day, int hour, int minute,
                                    int second) {
  tm want{};
  want.tm_year = year - 1900;
  want.tm_mon = month - 1;
  want.tm_mday = day;
  want.tm_hour = hour;
  want.tm_min = minute;
  want.tm_sec = second;
  want.tm_isdst = -1;  // let the zone decide; an ambiguous time takes whichever mktime picks
  tm in = want;
  time_t t = mktime(&in);
  tm back{};
  if (localtime_r(&t, &back) == nullptr) return std::nullopt;
  if (back.tm_year != want.tm_year || back.tm_mon != want.tm_mon || back.tm_mday != want.tm_mday ||
      back.tm_hour != want.tm_hour || back.tm_min != want.tm_min || back.tm_sec != want.tm_sec) {
    return std::nullopt;
  }
  return static_cast<int64_t>(t);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

tm LocalTm(WallMs t) {
  time_t secs = static_cast<time_t>(FloorDiv(t, 1000));
  tm out{};
  localtime_r(&secs, &out);
  return out;
}
}  // namespace

Result<WallMs> ParseAt(std::string_view text, WallMs now, const std::string& field) {
  auto refuse = [&](const std::string& reason) {
    std::string msg = field + ": " + Quote(text) + " is not a valid time";
    if (!reason.empty()) msg += ": " + reason;
    return Status::Invalid(field, msg + " (" + kAtGrammar + ")");
  };
  auto trailing = [&](const TextCursor& cur) { return refuse("unexpected " + Quote(cur.Rest())); };
  auto gap = [&](const std::string& when) {
    return Status::Invalid(field, field + ": " + Quote(text) + " does not exist" + when +
                                      " in the local time zone (a daylight-saving change " +
                                      "skips it; give another time or an explicit offset)");
  };
  auto out_of_range = [&] {
    return Status::Invalid(field, field + ": " + Quote(text) + " is out of range (" +
                                      FormatRfc3339Utc(0) + " to " + FormatRfc3339Utc(kMaxWallMs) +
                                      ")");
  };
  if (text.empty()) return refuse("it is empty");

  WallMs result;
  if (text[0] == '@') {
    // @EPOCH: whole seconds since 1970-01-01T00:00:00Z.
    if (text.size() == 1) return refuse("no seconds after @");
    int64_t secs = 0;
    for (char c : text.substr(1)) {
      if (c < '0' || c > '9') return refuse("@ must be followed by whole seconds");
      if (secs > (std::numeric_limits<int64_t>::max() / 1000 - (c - '0')) / 10) {
        return out_of_range();
      }
      secs = secs * 10 + (c - '0');
    }
    result = secs * 1000;
  } else if (text.size() >= 3 && text[2] == ':') {
    // HH:MM[:SS]: today if it is still ahead, else tomorrow.
    TextCursor cur(text);
    Civil c;
    if (!cur.Digits(2, &c.hour) || !cur.Eat(':') || !cur.Digits(2, &c.minute)) {
      return refuse("");
    }
    if (cur.Eat(':') && !cur.Digits(2, &c.second)) return refuse("expected HH:MM:SS");
    if (!cur.AtEnd()) return trailing(cur);
    if (c.hour > 23) return refuse("hour " + Two(c.hour) + " is out of range 00..23");
    if (c.minute > 59) return refuse("minute " + Two(c.minute) + " is out of range 00..59");
    if (c.second > 59) return refuse("second " + Two(c.second) + " is out of range 00..59");
    tm n = LocalTm(now);
    std::optional<int64_t> today =
        LocalToEpoch(n.tm_year + 1900, n.tm_mon + 1, n.tm_mday, c.hour, c.minute, c.second);
    if (today && *today * 1000 >= now) {
      result = *today * 1000;
    } else {
      if (!today && (c.hour > n.tm_hour || (c.hour == n.tm_hour && c.minute > n.tm_min))) {
        return gap(" today");
      }
      // Tomorrow's date, computed on a noon in UTC so no zone rule can disturb it.
      tm d{};
      d.tm_year = n.tm_year;
      d.tm_mon = n.tm_mon;
      d.tm_mday = n.tm_mday + 1;
      d.tm_hour = 12;
      time_t noon = timegm(&d);
      gmtime_r(&noon, &d);
      std::optional<int64_t> tomorrow =
          LocalToEpoch(d.tm_year + 1900, d.tm_mon + 1, d.tm_mday, c.hour, c.minute, c.second);
      if (!tomorrow) return gap(" tomorrow");
      result = *tomorrow * 1000;
    }
  } else {
    // YYYY-MM-DD[(T| )HH:MM[:SS]][Z|±HH:MM]
    TextCursor cur(text);
    Civil c;
    if (!cur.Digits(4, &c.year) || !cur.Eat('-') || !cur.Digits(2, &c.month) || !cur.Eat('-') ||
        !cur.Digits(2, &c.day)) {
      return refuse("");
    }
    if (cur.Eat('T') || cur.Eat(' ')) {
      if (!cur.Digits(2, &c.hour) || !cur.Eat(':') || !cur.Digits(2, &c.minute)) {
        return refuse("expected HH:MM after the date");
      }
      if (cur.Eat(':') && !cur.Digits(2, &c.second)) return refuse("expected seconds as SS");
    }
    std::string why;
    if (!ParseOffset(cur, &c, false, &why)) return refuse(why);
    if (!cur.AtEnd()) return trailing(cur);
    std::string bad = CheckCivil(c);
    if (!bad.empty()) return refuse(bad);
    if (c.has_offset) {
      result = UtcMs(c);
    } else {
      std::optional<int64_t> local =
          LocalToEpoch(c.year, c.month, c.day, c.hour, c.minute, c.second);
      if (!local) return gap("");
      result = *local * 1000;
    }
  }

  if (result < 0 || result > kMaxWallMs) return out_of_range();
  if (result < now - kPastSlackMs) {
    return Status::Invalid(
        field, field + ": " + Quote(text) + " is more than 60 s in the past (that is " +
                   FormatRfc3339Utc(result) + "; now is " + FormatRfc3339Utc(now) + ")");
  }
  return result;
}

std::string FormatRfc3339Utc(WallMs t) {
  int64_t secs = FloorDiv(t, 1000);
  int milli = static_cast<int>(t - secs * 1000);
  time_t s = static_cast<time_t>(secs);
  tm u{};
  gmtime_r(&s, &u);
  char buf[96];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", u.tm_year + 1900,
                        u.tm_mon + 1, u.tm_mday, u.tm_hour, u.tm_min, u.tm_sec);
  std::string out(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (milli != 0) {
    std::snprintf(buf, sizeof buf, ".%03d", milli);
    out += buf;
  }
  return out + "Z";
}

Result<WallMs> ParseRfc3339(std::string_view text, const std::string& field) {
  auto refuse = [&](const std::string& reason) {
    return Status::Invalid(field, field + ": " + Quote(text) + " is not an RFC 3339 time: " +
                                      reason + " (" + kRfcGrammar + ")");
  };
  TextCursor cur(text);
  Civil c;
  if (!cur.Digits(4, &c.year) || !cur.Eat('-') || !cur.Digits(2, &c.month) || !cur.Eat('-') ||
      !cur.Digits(2, &c.day)) {
    return refuse("expected the date as YYYY-MM-DD");
  }
  if (!cur.Eat('T') && !cur.Eat('t')) return refuse("expected T between date and time");
  if (!cur.Digits(2, &c.hour) || !cur.Eat(':') || !cur.Digits(2, &c.minute) || !cur.Eat(':') ||
      !cur.Digits(2, &c.second)) {
    return refuse("expected the time as HH:MM:SS");
  }
  if (cur.Eat('.')) {
    int digits = 0;
    for (int d; cur.Digits(1, &d); ++digits) {
      if (digits < 3) c.milli = c.milli * 10 + d;
    }
    if (digits == 0) return refuse("expected digits after the decimal point");
    for (int i = digits; i < 3; ++i) c.milli *= 10;
  }
  std::string why;
  if (!ParseOffset(cur, &c, true, &why)) return refuse(why);
  if (!c.has_offset) return refuse("expected Z or an offset ±HH:MM after the time");
  if (!cur.AtEnd()) return refuse("unexpected " + Quote(cur.Rest()));
  std::string bad = CheckCivil(c);
  if (!bad.empty()) return refuse(bad);
  return UtcMs(c);
}

std::string FormatLocal(WallMs t, WallMs now) {
  tm lt = LocalTm(t);
  tm ln = LocalTm(now);
  char buf[96];
  if (lt.tm_year == ln.tm_year && lt.tm_mon == ln.tm_mon && lt.tm_mday == ln.tm_mday) {
    std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", lt.tm_hour, lt.tm_min, lt.tm_sec);
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d", lt.tm_year + 1900, lt.tm_mon + 1,
                  lt.tm_mday, lt.tm_hour, lt.tm_min);
  }
  return buf;
}

}  // namespace tq
