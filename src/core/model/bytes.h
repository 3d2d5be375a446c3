// Byte strings that may not be text: the UTF-8 check and base64, for the wire and the terminal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tq {

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool IsValidUtf8(std::string_view s);

/// Standard base64 with padding.
std::string Base64Encode(std::string_view bytes);
/// Decodes standard base64 with padding; nullopt on any invalid character or length.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace tq
