// Durations as people type them (SPEC 10): "90s", "1h30m", a bare integer for seconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// Parses `<integer><unit>` repeated, units ms s m h d w from largest to smallest, each at most
/// once, no spaces ("90s", "1h30m"); a bare integer is seconds. Returns milliseconds. Refuses
/// empty or negative text, unknown units, a number without a unit after another part ("1h30")
/// and values past kMaxDurationMs (36500d, 100 years) with kInvalid naming `field` and the text.
Result<int64_t> ParseDuration(std::string_view text, const std::string& field);

/// Compact human text for a duration in milliseconds: "1h30m", "250ms", "0s", "2d3h", "1w";
/// negative values get a leading "-". ParseDuration(FormatDuration(ms)) == ms for ms >= 0.
std::string FormatDuration(int64_t ms);

}  // namespace tq
