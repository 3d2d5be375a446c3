#include "core/model/duration.h"

#include "core/model/limits.h"
#include "core/model/quote.h"

namespace tq {

namespace {
constexpr int64_t kMaxMs = kMaxDurationMs;

// Largest unit first: the order parts must appear in, and the order FormatDuration emits.
struct Unit {
  std::string_view name;
  int64_t ms;
};
constexpr Unit kUnits[] = {
    {"w", 7 * 24 * 3600 * 1000LL},
    {"d", 24 * 3600 * 1000LL},
    {"h", 3600 * 1000LL},
    {"m", 60 * 1000LL},
    {"s", 1000LL},
    {"ms", 1LL},
};
constexpr int kUnitCount = sizeof(kUnits) / sizeof(kUnits[0]);

constexpr const char* kGrammar = "use <integer><unit>..., units ms s m h d w, e.g. 90s or 1h30m";

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

Status Refuse(std::string_view text, const std::string& field, const std::string& reason) {
  std::string msg = field + ": " + Quote(text) + " is not a duration";
  if (!reason.empty()) msg += ": " + reason;
  msg += " (" + std::string(kGrammar) + ")";
  return Status::Invalid(field, msg);
}

int UnitIndex(std::string_view name) {
  for (int i = 0; i < kUnitCount; ++i)
    if (kUnits[i].name == name) return i;
  return -1;
}
}  // namespace

Result<int64_t> ParseDuration(std::string_view text, const std::string& field) {
  if (text.empty()) return Refuse(text, field, "it is empty");
  if (text[0] == '-') return Refuse(text, field, "negative durations are not allowed");

  const Status too_large =
      Status::Invalid(field, field + ": " + Quote(text) + " is too large: the range is 0s to " +
                                 std::to_string(kMaxMs / (24 * 3600 * 1000LL)) + "d (100 years)");
  int64_t total = 0;
  int last_unit = -1;  // index into kUnits of the previous part
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t') return Refuse(text, field, "spaces are not allowed");
    if (!IsDigit(text[i])) {
      return Refuse(text, field, "expected a number at " + Quote(text.substr(i)));
    }
    int64_t number = 0;
    bool overflow = false;
    while (i < text.size() && IsDigit(text[i])) {
      int digit = text[i] - '0';
      if (number > (kMaxMs - digit) / 10) overflow = true;
      if (!overflow) number = number * 10 + digit;
      ++i;
    }
    size_t unit_start = i;
    while (i < text.size() && IsAlpha(text[i])) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    int64_t unit_ms;
    if (unit.empty()) {
      if (i < text.size()) return Refuse(text, field, "unexpected " + Quote(text.substr(i)));
      if (last_unit >= 0) {
        return Refuse(text, field, "the number at the end has no unit");
      }
      unit_ms = 1000;  // a bare integer is seconds
    } else {
      int index = UnitIndex(unit);
      if (index < 0) return Refuse(text, field, "unknown unit " + Quote(unit));
      if (index <= last_unit) {
        return Refuse(text, field, "units must go from largest to smallest, each at most once");
      }
      last_unit = index;
      unit_ms = kUnits[index].ms;
    }
    if (overflow || number > kMaxMs / unit_ms) return too_large;
    int64_t part = number * unit_ms;
    if (total > kMaxMs - part) return too_large;
    total += part;
  }
  return total;
}

std::string FormatDuration(int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  uint64_t rest = static_cast<uint64_t>(ms);
  if (ms < 0) {
    out = "-";
    rest = 0 - rest;  // well defined for INT64_MIN too
  }
  for (const Unit& u : kUnits) {
    uint64_t n = rest / static_cast<uint64_t>(u.ms);
    if (n == 0) continue;
    out += std::to_string(n);
    out += u.name;
    rest -= n * static_cast<uint64_t>(u.ms);
  }
  return out;
}

}  // namespace tq
