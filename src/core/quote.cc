#include "core/quote.h"

namespace tq {

std::string Quote(std::string_view whole) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string_view s = whole;
  if (s.size() > kMaxQuotedBytes) {
    size_t cut = kMaxQuotedBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut);
  }
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
  if (s.size() < whole.size()) out += "... (" + std::to_string(whole.size()) + " bytes)";
  return out;
}

}  // namespace tq
