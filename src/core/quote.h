// Quoting values inside error messages, so a refusal shows exactly what was given.
#pragma once

#include <string>
#include <string_view>

namespace tq {

/// `s` in double quotes, with quotes, backslashes and control bytes escaped.
std::string Quote(std::string_view s);

}  // namespace tq
