// Byte strings on the wire: a JSON string when the bytes are valid UTF-8, else {"b64": "..."}.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace tq {

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool IsValidUtf8(std::string_view s);

/// Standard base64 with padding.
std::string Base64Encode(std::string_view bytes);
/// Decodes standard base64 with padding; nullopt on any invalid character or length.
std::optional<std::string> Base64Decode(std::string_view text);

/// The wire form of a byte string: itself when valid UTF-8, else {"b64": ...}.
nlohmann::json BytesToJson(std::string_view bytes);
/// The bytes a wire value stands for; an error naming `field` when it is neither form.
Result<std::string> BytesFromJson(const nlohmann::json& value, const std::string& field);

}  // namespace tq
