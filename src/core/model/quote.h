// Quoting values inside error messages, so a refusal shows exactly what was given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tq {

/// The most bytes of a value Quote shows; a longer one is cut there (messages stay small, and a
/// refusal never grows past the frame that carried the value).
constexpr size_t kMaxQuotedBytes = 256;

/// `s` in double quotes, with quotes, backslashes, control bytes and bytes that are not UTF-8
/// escaped (\xNN), so the result is always valid UTF-8 text; past kMaxQuotedBytes it is cut at a
/// character boundary and followed by `... (N bytes)`.
std::string Quote(std::string_view s);

/// Each of `values` quoted (Quote), joined by ", ": a list of names inside a message.
std::string QuoteEach(const std::vector<std::string>& values);

}  // namespace tq
