// Reading a request's members from JSON strictly: each value must have the JSON type its field
// takes, and every refusal names the field and what it takes.
#pragma once

#include <concepts>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The members of a request, or of one batch element laid over the batch's common part: a key
/// `top` has (even as null) hides the same key of `base`. Nothing is copied.
class Fields {
 public:
  Fields(const nlohmann::json& j) : top_(j) {}  // implicit: a request object is its own fields
  Fields(const nlohmann::json& top, const nlohmann::json& base) : top_(top), base_(&base) {}
  /// The member `key`, or nullptr.
  const nlohmann::json* Find(const char* key) const {
    if (auto it = top_.find(key); it != top_.end()) return &*it;
    if (base_ == nullptr) return nullptr;
    auto it = base_->find(key);
    return it == base_->end() ? nullptr : &*it;
  }

 private:
  const nlohmann::json& top_;
  const nlohmann::json* base_ = nullptr;
};

// Strict conversions from a JSON value: the JSON type must match, and an integer must be a JSON
// integer (not 3.7, not 1e300) that fits the C++ type.

/// A JSON boolean into `out`; false (and `out` untouched) for anything else.
bool Convert(const nlohmann::json& v, bool& out);
/// A JSON string into `out`; false (and `out` untouched) for anything else.
bool Convert(const nlohmann::json& v, std::string& out);
/// A JSON integer that fits T into `out`; false (and `out` untouched) for anything else.
template <std::integral T>
requires(!std::same_as<T, bool>) bool Convert(const nlohmann::json& v, T& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (!std::in_range<T>(u)) return false;
    out = static_cast<T>(u);
    return true;
  }
  if (!v.is_number_integer()) return false;
  const auto i = v.get<int64_t>();
  if (!std::in_range<T>(i)) return false;
  out = static_cast<T>(i);
  return true;
}
/// A JSON array whose every element converts into `out`; false (and `out` untouched) else.
template <typename T>
bool Convert(const nlohmann::json& v, std::vector<T>& out) {
  if (!v.is_array()) return false;
  std::vector<T> items(v.size());
  for (size_t i = 0; i < items.size(); ++i)
    if (!Convert(v[i], items[i])) return false;
  out = std::move(items);
  return true;
}

/// What a refused value was, short: a number or a boolean as written, else its JSON type.
std::string Shown(const nlohmann::json& v);

/// Reads optional member `key` into `out` when present and of the JSON type `T` maps to; a
/// refusal says the field takes `what`.
template <typename T>
Status Read(const Fields& f, const char* key, T& out, const char* what) {
  const nlohmann::json* v = f.Find(key);
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!Convert(*v, out))
    return Status::Invalid(key, std::string(key) + ": expected " + what + ", got " + Shown(*v));
  return Status::Ok();
}

/// Reads optional member `key` into `out` (left unset when absent).
template <typename T>
Status ReadOptional(const Fields& f, const char* key, std::optional<T>& out, const char* what) {
  const nlohmann::json* v = f.Find(key);
  if (v == nullptr || v->is_null()) return Status::Ok();
  T value{};
  Status st = Read(f, key, value, what);
  if (st.ok()) out = std::move(value);
  return st;
}

/// Member `key` as a list of wire byte strings (empty when absent); none may hold a NUL byte.
Result<std::vector<std::string>> ReadBytesList(const Fields& j, const char* key);
/// Optional member `key` as a wire byte string into `out` (left unset when absent).
Status ReadOptionalBytes(const Fields& j, const char* key, std::optional<std::string>& out);

}  // namespace tq
