// Wall-clock times as people type them (SPEC 10 `--at`) and as the protocol prints them
// (RFC 3339 UTC). Local times use the process's zone (TZ), via localtime_r/mktime.
#pragma once

#include <string>
#include <string_view>

#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// Parses an `--at` time: `YYYY-MM-DD` (local midnight), `YYYY-MM-DD[T| ]HH:MM[:SS]`, each
/// optionally followed by `Z` or `±HH:MM` (then the zone is that offset, not local); `HH:MM`
/// (today local, or tomorrow if that time has passed by `now`); `@EPOCH` (seconds). Refuses with
/// kInvalid naming `field` and the text: bad syntax or trailing text, impossible dates and times,
/// local times skipped by a DST change, times outside 1970-01-01T00:00:00Z..kMaxWallMs (year
/// 9999) and times more than 60 s before `now`.
Result<WallMs> ParseAt(std::string_view text, WallMs now, const std::string& field);

/// `2026-11-22T07:10:43Z`, with `.123` milliseconds only when they are non-zero.
std::string FormatRfc3339Utc(WallMs t);

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`: what FormatRfc3339Utc produces plus any
/// offset and fractional seconds (digits past milliseconds are dropped). `t`/`z` may be lower
/// case. Refuses anything else with kInvalid naming `field`.
Result<WallMs> ParseRfc3339(std::string_view text, const std::string& field = "time");

/// For human tables, in the local zone: `HH:MM:SS` when `t` falls on the same local day as
/// `now`, otherwise `YYYY-MM-DD HH:MM`.
std::string FormatLocal(WallMs t, WallMs now);

}  // namespace tq
