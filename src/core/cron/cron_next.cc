#include "core/cron/cron_next.h"

#include <algorithm>
#include <optional>

#include "core/model/quote.h"
#include "core/model/wall_time.h"

namespace tq {

namespace {

using Instant = cctz::time_point<cctz::seconds>;
using Transition = cctz::time_zone::civil_transition;

const cctz::civil_second kEpoch(1970, 1, 1, 0, 0, 0);
// The instants NextFire works within, in seconds: 0001-01-02T00:00:00Z (so that no zone's wall
// time is in the year 0) and 10000-01-01T00:00:00Z; firings must also have a 4-digit local year.
const int64_t kFirstSecond = cctz::civil_second(1, 1, 2, 0, 0, 0) - kEpoch;
const int64_t kEndSecond = cctz::civil_second(10000, 1, 1, 0, 0, 0) - kEpoch;
// A safety net: no zone has this many offset changes in kCronHorizonYears.
constexpr int kMaxSegments = 100000;
// The Gregorian calendar repeats every 400 years (146097 days), and so do a zone's yearly rules.
constexpr int64_t k400Years = 146097LL * 86400;
constexpr int64_t kMonthish = 2629746;         // an average Gregorian month in seconds
constexpr int64_t kMaxShift = 25 * k400Years;  // from the year 9999 back past 1970

Instant At(int64_t s) {
  return Instant(cctz::seconds(s));
}
int64_t ToUnix(const cctz::civil_second& cs, int offset) {
  return (cs - kEpoch) - offset;
}
cctz::civil_second ToCivil(int64_t s, int offset) {
  return kEpoch + (s + offset);
}
int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The lowest set bit at or above `from`, or -1.
int NextBit(uint64_t mask, int from) {
  if (from >= 64) return -1;
  const uint64_t m = mask & (~uint64_t{0} << from);
  return m == 0 ? -1 : __builtin_ctzll(m);
}

// The first time of day at or after *h:*m:*s the fields allow; false when none is left that day.
bool TimeOfDay(const CronExpr& e, int* h, int* m, int* s) {
  for (int hh = NextBit(e.hours, *h); hh >= 0; hh = NextBit(e.hours, hh + 1)) {
    for (int mm = NextBit(e.minutes, hh == *h ? *m : 0); mm >= 0; mm = NextBit(e.minutes, mm + 1)) {
      const int ss = NextBit(e.seconds, hh == *h && mm == *m ? *s : 0);
      if (ss >= 0) {
        *h = hh;
        *m = mm;
        *s = ss;
        return true;
      }
    }
  }
  return false;
}

// The first wall time in [lo, hi) the expression matches, skipping whole months and days that
// cannot match.
std::optional<cctz::civil_second> NextCivil(const CronExpr& e, const cctz::civil_second& lo,
                                            const cctz::civil_second& hi) {
  if (lo >= hi) return std::nullopt;
  const cctz::civil_day last_day(hi);
  cctz::civil_month month(lo);
  int day = lo.day(), h = lo.hour(), m = lo.minute(), s = lo.second();
  for (; cctz::civil_day(month) <= last_day; ++month, day = 1, h = m = s = 0) {
    if (!(e.months >> month.month() & 1)) continue;
    const cctz::civil_day first(month);
    const int dim = static_cast<int>(cctz::civil_day(month + 1) - first);
    const int first_weekday = (static_cast<int>(cctz::get_weekday(first)) + 1) % 7;
    for (; day <= dim; ++day, h = m = s = 0) {
      if (first + (day - 1) > last_day) return std::nullopt;
      if (!e.DayOfMonthMatches(dim, first_weekday, day)) continue;
      int hh = h, mm = m, ss = s;
      if (!TimeOfDay(e, &hh, &mm, &ss)) continue;
      const cctz::civil_second c(month.year(), month.month(), day, hh, mm, ss);
      if (c >= hi) return std::nullopt;
      return c;
    }
  }
  return std::nullopt;
}

// cctz lists a zone's transitions only up to 400 years past its last rule change; later instants
// get the same offsets 400 years on (lookup() shifts them), but next_transition() finds nothing.
// True when `t` lies there in a zone that still changes its offset during the year.
bool PastTransitionTable(const cctz::time_zone& zone, int64_t t) {
  const int offset = zone.lookup(At(t)).offset;
  for (int i = 1; i <= 12; ++i)
    if (zone.lookup(At(t + i * kMonthish)).offset != offset) return true;
  return false;
}

Status NeverFires(const CronExpr& e, const TimeZone& zone, int64_t after_s, bool year_end) {
  std::string why = year_end ? "does not fire before the year 10000"
                             : "never fires within " + std::to_string(kCronHorizonYears) +
                                   " years after " + FormatRfc3339InZone(after_s * 1000, zone);
  return Status::Invalid("schedule",
                         "schedule " + Quote(e.text) + " " + why + " in " + zone.name());
}

}  // namespace

Result<DstPolicy> ParseDstPolicy(std::string_view text, const std::string& field) {
  for (DstPolicy p : {DstPolicy::kCron, DstPolicy::kSkip, DstPolicy::kFirst, DstPolicy::kBoth})
    if (text == DstPolicyName(p)) return p;
  return Status::Invalid(
      field, field + ": " + Quote(text) + " is not a DST policy (use cron, skip, first or both)");
}

const char* DstPolicyName(DstPolicy policy) {
  switch (policy) {
    case DstPolicy::kCron:
      return "cron";
    case DstPolicy::kSkip:
      return "skip";
    case DstPolicy::kFirst:
      return "first";
    case DstPolicy::kBoth:
      return "both";
  }
  return "cron";
}

Result<WallMs> NextFire(const CronExpr& e, WallMs after, const TimeZone& tz, DstPolicy dst) {
  if (e.kind == CronKind::kReboot) {
    return Status::Invalid("schedule", "schedule " + Quote(e.text) +
                                           " has no time-based firing: it runs once when tqd "
                                           "starts");
  }
  const int64_t after_s = FloorDiv(after, 1000);
  if (after_s < kFirstSecond || after_s >= kEndSecond) {
    return Status::Invalid(
        "time", "time " + std::to_string(after) + " ms is outside the years 0001..9999 (UTC)");
  }
  if (e.kind == CronKind::kEvery) {
    if (e.every_ms >= kEndSecond * 1000 - after - 86400 * 1000) {
      return NeverFires(e, tz, after_s, true);  // within a day of 10000: some zone is there
    }
    return after + e.every_ms;
  }

  const cctz::time_zone& zone = tz.zone();
  const bool fixed = !e.hour_elapsed;
  int64_t t = after_s + 1;  // the first candidate second
  const cctz::civil_second start = ToCivil(t, 0);
  const cctz::civil_second horizon(start.year() + kCronHorizonYears, start.month(), start.day(),
                                   start.hour(), start.minute(), start.second());
  const int64_t end_s = std::min(horizon - kEpoch, kEndSecond);

  // The offset is constant between transitions, so wall time and instants map one to one inside
  // each segment [t, next transition); `prev` is the transition that began the current segment.
  // Past cctz's transition table the search runs 400 years earlier: `shift` is what it moved.
  // Firings whose wall time is past the year 9999 are refused: RFC 3339 cannot print them.
  int64_t shift = 0;
  auto years_shifted = [&shift] { return shift / k400Years * 400; };
  Transition prev;
  bool has_prev = zone.prev_transition(At(t + 1), &prev);
  for (int segment = 0; t + shift < end_s && segment < kMaxSegments; ++segment) {
    Transition next;
    const bool has_next = zone.next_transition(At(t), &next);
    if (!has_next && PastTransitionTable(zone, t)) {
      int64_t back = k400Years;
      Transition probe;
      while (back <= kMaxShift && !zone.next_transition(At(t - back), &probe)) back += k400Years;
      if (back <= kMaxShift) {
        t -= back;
        shift += back;
        has_prev = zone.prev_transition(At(t + 1), &prev);
        continue;
      }
    }
    const int off = zone.lookup(At(t)).offset;
    if (has_prev && ToUnix(prev.to, off) == t) {
      // The segment begins with a gap: fixed-hour times inside it fire now, unless dst = skip.
      if (prev.to > prev.from && fixed && dst != DstPolicy::kSkip &&
          NextCivil(e, prev.from, prev.to)) {
        if (prev.to.year() + years_shifted() > 9999) return NeverFires(e, tz, after_s, true);
        return (t + shift) * 1000;
      }
    }
    cctz::civil_second lo = ToCivil(t, off);
    if (has_prev && prev.to < prev.from && fixed && dst != DstPolicy::kBoth && lo < prev.from) {
      lo = prev.from;  // the second pass through a repeated stretch: its times already fired
    }
    int64_t seg_end = end_s - shift;
    if (has_next) seg_end = std::min(seg_end, std::max(t + 1, ToUnix(next.from, off)));
    if (auto c = NextCivil(e, lo, ToCivil(seg_end, off))) {
      if (c->year() + years_shifted() > 9999) return NeverFires(e, tz, after_s, true);
      return (ToUnix(*c, off) + shift) * 1000;
    }
    if (!has_next || seg_end + shift >= end_s) break;
    t = seg_end;
    prev = next;
    has_prev = true;
  }
  return NeverFires(e, tz, after_s, end_s == kEndSecond);
}

}  // namespace tq
