// When a schedule fires next (SPEC 7 "Time zones and DST"): a pure function of the expression,
// an instant, a zone from the system tz database and the job's dst policy.
#pragma once

#include <string>
#include <string_view>

#include "core/cron/cron_expr.h"
#include "core/cron/cron_zone.h"
#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// What a fixed-hour schedule does when its wall time is skipped (spring forward) or repeated
/// (fall back). Schedules that follow elapsed time (CronExpr::hour_elapsed) ignore it.
enum class DstPolicy {
  kCron,   ///< default: a skipped time fires at the end of the gap; a repeated one fires once
  kSkip,   ///< a skipped time does not fire that day; a repeated one fires once
  kFirst,  ///< as kCron today; says "first occurrence" explicitly
  kBoth,   ///< a skipped time fires at the end of the gap; a repeated one fires at both
};

/// Parses `cron`, `skip`, `first` or `both`; anything else is kInvalid naming `field`.
Result<DstPolicy> ParseDstPolicy(std::string_view text, const std::string& field = "dst");
/// The spelling ParseDstPolicy accepts.
const char* DstPolicyName(DstPolicy policy);

/// How far NextFire looks before it calls a schedule dead. The rarest day cron can name, a
/// 29 February on a given weekday, recurs at most 40 years apart (across 2100).
constexpr int kCronHorizonYears = 50;

/// The first firing of `expr` strictly after `after`, in whole seconds, as an instant.
///
/// Wall times are matched in `zone`. A fixed-hour schedule applies `dst`: a time inside a skipped
/// stretch fires at the instant the gap ends (kCron, kFirst, kBoth) or not at all (kSkip); a time
/// inside a repeated stretch fires at its first occurrence, and with kBoth at the second too. A
/// schedule with `*` or a step in its hour field follows elapsed time instead: every instant
/// whose wall time (with the offset in force then) matches fires, so an hourly job fires twice in
/// a repeated hour and not at all in a skipped one. `@every D` returns `after` + D.
///
/// Refuses with kInvalid: @reboot (no time-based firing), `after` outside the years 0001..9999,
/// and a schedule with no firing within kCronHorizonYears (or before the year 10000).
Result<WallMs> NextFire(const CronExpr& expr, WallMs after, const TimeZone& zone, DstPolicy dst);

}  // namespace tq
