#include "core/store/sql/stored_bytes.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>

namespace tq::sql {

std::string EncodeList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += item;
    out.push_back('\0');
  }
  return out;
}

bool DecodeList(std::string_view blob, std::vector<std::string>* out) {
  out->clear();
  while (!blob.empty()) {
    size_t nul = blob.find('\0');
    if (nul == std::string_view::npos) return false;
    out->emplace_back(blob.substr(0, nul));
    blob.remove_prefix(nul + 1);
  }
  return true;
}

std::optional<size_t> FirstWithNul(const std::vector<std::string>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].find('\0') != std::string::npos) return i;
  }
  return std::nullopt;
}

std::string EncodeInts(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += std::to_string(values[i]);
  }
  return out;
}

bool DecodeInts(std::string_view text, std::vector<int>* out) {
  out->clear();
  if (text.empty()) return true;
  for (;;) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    int value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) return false;
    out->push_back(value);
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

uint64_t Fnv1a64(std::string_view data, uint64_t salt) {
  uint64_t h = 14695981039346656037ull;  // offset basis
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;  // FNV prime
  };
  if (salt != 0) {
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(salt >> (8 * i)));
  }
  for (char c : data) mix(static_cast<unsigned char>(c));
  return h;
}

std::string EnvKey(std::string_view data, uint64_t salt) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, Fnv1a64(data, salt));
  return buf;
}

}  // namespace tq::sql
