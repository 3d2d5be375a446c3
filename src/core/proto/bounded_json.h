// Parsing untrusted JSON within bounds: nesting and value count are limited while parsing, so an
// oversized document is never built, copied or destroyed.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Parses `text` refusing nesting deeper than kMaxJsonDepth or more than kMaxJsonValues values
/// (kLimit, field "frame", naming the limit) as soon as the first one too many is read; text
/// that is not JSON is kInvalid, field "frame".
Result<nlohmann::json> ParseBoundedJson(std::string_view text);

}  // namespace tq
