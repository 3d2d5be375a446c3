// The earliest start `tq submit` and `tq update` take: --delay D from now, or --at T.
#pragma once

#include <optional>
#include <string>

#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// The wall time `--delay delay` (from `now`) or `--at at` names; nullopt when both are empty.
/// Both given, or a value that does not parse, is refused naming the flag.
Result<std::optional<WallMs>> StartTimeFlags(const std::string& delay, const std::string& at,
                                             WallMs now);

}  // namespace tq
