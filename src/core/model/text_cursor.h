// A left-to-right reader of fixed-width fields, shared by the time parsers (core/wall_time.cc,
// core/cron_zone.cc).
#pragma once

#include <cstddef>
#include <string_view>

namespace tq {

/// Reads `text` left to right; each method consumes only what it accepts.
class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : s_(text) {}
  /// True when everything was read.
  bool AtEnd() const { return pos_ >= s_.size(); }
  /// The next character, or '\0' at the end.
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  /// Consumes `c` if it comes next.
  bool Eat(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  /// Consumes exactly `n` decimal digits into *out; false (having consumed some) otherwise.
  bool Digits(int n, int* out) {
    int v = 0;
    for (int i = 0; i < n; ++i) {
      const char c = Peek();
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
      ++pos_;
    }
    *out = v;
    return true;
  }
  /// What is left unread.
  std::string_view Rest() const { return AtEnd() ? std::string_view() : s_.substr(pos_); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace tq
