// Quoting values inside error messages, so a refusal shows exactly what was given.
#pragma once

#include <string>
#include <string_view>

namespace tq {

/// `s` in double quotes, with quotes, backslashes, control bytes and bytes that are not UTF-8
/// escaped (\xNN), so the result is always valid UTF-8 text.
std::string Quote(std::string_view s);

}  // namespace tq
