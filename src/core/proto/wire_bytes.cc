#include "core/proto/wire_bytes.h"

#include "core/model/bytes.h"

namespace tq {

nlohmann::json BytesToJson(std::string_view bytes) {
  if (IsValidUtf8(bytes)) return std::string(bytes);
  return nlohmann::json{{"b64", Base64Encode(bytes)}};
}

Result<std::string> BytesFromJson(const nlohmann::json& value, const std::string& field) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.size() == 1 && value.contains("b64") && value["b64"].is_string()) {
    auto decoded = Base64Decode(value["b64"].get<std::string>());
    if (decoded) return *decoded;
    return Status::Invalid(field, field + ": the b64 value is not valid base64");
  }
  return Status::Invalid(field, field + ": expected a string or {\"b64\": ...}");
}

nlohmann::json BytesListToJson(const std::vector<std::string>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : items) out.push_back(BytesToJson(s));
  return out;
}

}  // namespace tq
