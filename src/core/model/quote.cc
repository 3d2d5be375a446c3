#include "core/model/quote.h"

#include "core/model/bytes.h"

namespace tq {

namespace {

// The length of the UTF-8 sequence at the start of `s` when it is a valid one, else 0.
size_t ValidSequenceLength(std::string_view s) {
  const auto lead = static_cast<unsigned char>(s[0]);
  const size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return len <= s.size() && IsValidUtf8(s.substr(0, len)) ? len : 0;
}

}  // namespace

std::string Quote(std::string_view whole) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string_view s = whole;
  if (s.size() > kMaxQuotedBytes) {
    size_t cut = kMaxQuotedBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut);
  }
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      if (const size_t len = ValidSequenceLength(s.substr(i)); len > 0) {
        out.append(s.substr(i, len));
        i += len;
        continue;
      }
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
    ++i;
  }
  out += '"';
  if (s.size() < whole.size()) out += "... (" + std::to_string(whole.size()) + " bytes)";
  return out;
}

std::string QuoteEach(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + Quote(v);
  return out;
}

}  // namespace tq
