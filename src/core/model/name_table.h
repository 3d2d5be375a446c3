// Enums spelled by a table of (value, name) pairs: one table gives both directions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace tq {

/// The name `value` has in `table`, or "?" when it has none.
template <typename E, size_t N>
const char* NameOf(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

/// The value named `name` in `table`, or nullopt.
template <typename E, size_t N>
std::optional<E> ValueOf(const std::pair<E, const char*> (&table)[N], const std::string& name) {
  for (const auto& [e, n] : table)
    if (name == n) return e;
  return std::nullopt;
}

}  // namespace tq
