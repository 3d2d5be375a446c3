#include "cli/decimal.h"

#include <charconv>
#include <limits>
#include <optional>

#include "core/model/quote.h"

namespace tq {

namespace {

// `text` as a number of `range`, or nothing: the rules DecimalProblem states.
std::optional<long long> Read(std::string_view text, const DecimalRange& range) {
  std::string_view digits = text;
  if (range.lo < 0 && digits.starts_with('-')) digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  if (digits.front() == '0' && (digits.size() > 1 || digits.size() < text.size()))
    return std::nullopt;  // "017", and "-0"
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < range.lo || value > range.hi) return std::nullopt;
  return value;
}

}  // namespace

DecimalRange TaskIdRange() {
  return {1, std::numeric_limits<long long>::max(), "a task id"};
}

std::string DecimalProblem(std::string_view text, const DecimalRange& range) {
  if (Read(text, range)) return "";
  const std::string allowed = "a decimal number from " + std::to_string(range.lo) + " to " +
                              std::to_string(range.hi) + " without leading zeros";
  if (range.noun.empty()) return Quote(text) + " is not " + allowed;
  return Quote(text) + " is not " + range.noun + ": " + range.noun + " is " + allowed;
}

Result<long long> ParseDecimal(std::string_view text, const DecimalRange& range,
                               const std::string& field) {
  if (std::optional<long long> value = Read(text, range)) return *value;
  return Status::Invalid(field, field + ": " + DecimalProblem(text, range));
}

}  // namespace tq
