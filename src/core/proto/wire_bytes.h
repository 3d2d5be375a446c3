// Byte strings on the wire: a JSON string when the bytes are valid UTF-8, else {"b64": "..."}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The wire form of a byte string: itself when valid UTF-8, else {"b64": ...}.
nlohmann::json BytesToJson(std::string_view bytes);
/// The bytes a wire value stands for; an error naming `field` when it is neither form.
Result<std::string> BytesFromJson(const nlohmann::json& value, const std::string& field);
/// The wire form of a list of byte strings: an array of BytesToJson of each.
nlohmann::json BytesListToJson(const std::vector<std::string>& items);

}  // namespace tq
