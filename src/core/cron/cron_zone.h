// Named time zones from the system tz database (package tzdata) through cctz, and the two
// conversions cron needs at its edges: reading a wall time in a zone, printing an instant in it.
#pragma once

#include <cctz/time_zone.h>

#include <string>
#include <string_view>

#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// A loaded zone and the name it goes by. Cheap to copy; cctz keeps every loaded zone for the
/// life of the process, so a TimeZone never dangles.
class TimeZone {
 public:
  /// UTC.
  TimeZone() : name_("UTC"), zone_(cctz::utc_time_zone()) {}
  TimeZone(std::string name, cctz::time_zone zone) : name_(std::move(name)), zone_(zone) {}

  /// The IANA name ("Europe/Berlin"), or "localtime" when the system's name is unknown.
  const std::string& name() const { return name_; }
  const cctz::time_zone& zone() const { return zone_; }

 private:
  std::string name_;
  cctz::time_zone zone_;
};

/// Loads an IANA zone ("Europe/Berlin", "UTC") from the system tz database. Refuses names that
/// are not tz names (absolute paths, "..") and unknown zones with kInvalid naming `field` and the
/// zone.
Result<TimeZone> LoadTimeZone(std::string_view name, const std::string& field = "timezone");

/// The process's zone: $TZ when set (an unknown $TZ is an error naming it), else /etc/localtime
/// (named after its zoneinfo link when it is one).
Result<TimeZone> LocalTimeZone();

/// `2026-03-29T03:00:00+02:00`: the wall time in `zone` with its offset (whole seconds; any
/// milliseconds are dropped). An offset that is not whole minutes (local mean time before the
/// zone adopted standard time) cannot be written in RFC 3339, so then the time is given in UTC.
std::string FormatRfc3339InZone(WallMs t, const TimeZone& zone);

/// Parses a time for `tq cron next --from`: `@EPOCH`; `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]]`
/// followed by `Z` or `±HH:MM`, or without it read as a wall time in `zone`; `HH:MM[:SS]` (that
/// time today in `zone`, judged by `now`). Past times are fine. A wall time that `zone` skips
/// (DST gap) is refused; one it repeats means its first occurrence. kInvalid names `field`.
Result<WallMs> ParseTimeInZone(std::string_view text, const TimeZone& zone, WallMs now,
                               const std::string& field);

}  // namespace tq
