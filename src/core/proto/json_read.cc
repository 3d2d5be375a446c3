#include "core/proto/json_read.h"

#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

bool Convert(const json& v, bool& out) {
  if (!v.is_boolean()) return false;
  out = v.get<bool>();
  return true;
}
bool Convert(const json& v, std::string& out) {
  if (!v.is_string()) return false;
  out = v.get_ref<const std::string&>();
  return true;
}

std::string Shown(const json& v) {
  if (v.is_number() || v.is_boolean()) return v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "a string";
}

Result<std::vector<std::string>> ReadBytesList(const Fields& j, const char* key) {
  std::vector<std::string> out;
  const json* it = j.Find(key);
  if (it == nullptr || it->is_null()) return out;
  if (!it->is_array()) return Status::Invalid(key, std::string(key) + ": expected an array");
  for (const auto& item : *it) {
    auto bytes = BytesFromJson(item, key);
    if (!bytes.ok()) return bytes.status();
    if (bytes->find('\0') != std::string::npos)
      return Status::Invalid(key, std::string(key) + ": an element contains a NUL byte");
    out.push_back(std::move(*bytes));
  }
  return out;
}

Status ReadOptionalBytes(const Fields& j, const char* key, std::optional<std::string>& out) {
  const json* it = j.Find(key);
  if (it == nullptr || it->is_null()) return Status::Ok();
  auto bytes = BytesFromJson(*it, key);
  if (!bytes.ok()) return bytes.status();
  out = std::move(*bytes);
  return Status::Ok();
}

}  // namespace tq
