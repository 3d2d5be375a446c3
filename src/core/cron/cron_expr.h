// Cron schedules as data (SPEC 7 "Schedules"): the parser for 5- and 6-field expressions, the
// @macros, @every and the Quartz day extensions. Matching a calendar day lives here too; finding
// the next firing in a time zone is core/cron_next.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// What a schedule is: calendar fields, a fixed interval, or "once when tqd starts".
enum class CronKind {
  kFields,  ///< 5 or 6 fields, or a macro that stands for them (@daily)
  kEvery,   ///< @every DURATION: the previous firing plus `every_ms`
  kReboot,  ///< @reboot: no time-based firing; the scheduler runs it once at start
};

/// A parsed schedule. Each field is a bit set of the values it allows; the day fields also carry
/// the Quartz extensions. Plain data: copy it, compare it, keep it next to the job.
struct CronExpr {
  CronKind kind = CronKind::kFields;
  std::string text;  ///< the expression as written (trimmed)

  uint64_t seconds = 1;          ///< bit s for second s (0..59); 5-field expressions allow only 0
  uint64_t minutes = 0;          ///< bit m for minute m (0..59)
  uint32_t hours = 0;            ///< bit h for hour h (0..23)
  uint32_t days = 0;             ///< bit d for day-of-month d (1..31), plain numbers only
  uint32_t nearest_weekday = 0;  ///< bit n for `nW`: the weekday nearest day n (Quartz)
  bool last_day = false;         ///< `L` in day-of-month: the month's last day
  bool last_weekday = false;     ///< `LW`: the month's last Monday..Friday
  uint16_t months = 0;           ///< bit m for month m (1..12)
  uint8_t weekdays = 0;          ///< bit w for weekday w (0 Sunday .. 6 Saturday)
  uint8_t nth_weekday[7] = {};   ///< per weekday, bit n-1 for `DOW#n` (n 1..5)
  uint8_t last_of_weekday = 0;   ///< bit w for `DOWL`: the last such weekday of the month

  /// Vixie cron's rule: a day field whose text starts with `*` (or is `?`) is "unrestricted".
  /// When either day field is unrestricted a day must match both; otherwise either is enough.
  bool dom_star = true;
  bool dow_star = true;
  /// The hour field starts with `*` or holds a step (and @hourly): the schedule follows real
  /// elapsed time across DST changes instead of the dst policy (see core/cron_next.h).
  bool hour_elapsed = false;

  int64_t every_ms = 0;  ///< kEvery: the interval in milliseconds (at least 1 s)

  /// True when the calendar day (year, month 1..12, day 1..31) is a firing day: month, and
  /// day-of-month / day-of-week combined by the Vixie rule above. Day must exist in the month.
  bool DayMatches(int64_t year, int month, int day) const;
  /// The day part of DayMatches (the month is not checked) for a month of `days_in_month` days
  /// whose first day is weekday `first_weekday` (0 Sunday .. 6 Saturday); for tight loops.
  bool DayOfMonthMatches(int days_in_month, int first_weekday, int day) const;
};

/// Parses a schedule: `[SECOND] MINUTE HOUR DAY-OF-MONTH MONTH DAY-OF-WEEK`, `@yearly`,
/// `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`, `@reboot` or
/// `@every DURATION` (core/duration.h; at least 1 s). Names (JAN, mon) and macros in any case.
/// Refuses with kInvalid whose field is the cron field at fault ("minute", "hour",
/// "day-of-month", "month", "day-of-week", "second") or "schedule", and whose message quotes the
/// text and says why: `minute "60": 60 is out of range 0..59`. Also refuses a day-of-month that no
/// allowed month has (`30 2`) when the day-of-week cannot rescue it.
Result<CronExpr> ParseCron(std::string_view text);

}  // namespace tq
