// Byte strings on the wire: a JSON string when the bytes are valid UTF-8, else {"b64": "..."}.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The wire form of a byte string: itself when valid UTF-8, else {"b64": ...}.
nlohmann::json BytesToJson(std::string_view bytes);
/// The bytes a wire value stands for; an error naming `field` when it is neither form.
Result<std::string> BytesFromJson(const nlohmann::json& value, const std::string& field);

}  // namespace tq
