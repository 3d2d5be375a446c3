// The one way tq's command line reads a number (issue 48): task ids and every integer option are
// decimal, so `017` is refused instead of being read as octal 15, `0x10` instead of 16, and 20
// digits instead of becoming the largest 64-bit integer.
#pragma once

#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// The numbers a value may be, lo..hi, and what one is called in a refusal ("a task id"; empty:
/// "a decimal number").
struct DecimalRange {
  long long lo = 0;
  long long hi = 0;
  std::string noun;
};

/// What a task id (or a group's id) may be: 1 to the largest 64-bit integer.
DecimalRange TaskIdRange();

/// Why `text` is not a number of `range`, "" when it is one. A number is ASCII digits without
/// leading zeros ("0" itself is one), with a '-' first only when `range.lo` is negative; no '+',
/// no spaces, no 0x, no exponent. The reason quotes `text` and says what is allowed:
/// "\"017\" is not a task id: a task id is a decimal number from 1 to 9223372036854775807 without
/// leading zeros".
std::string DecimalProblem(std::string_view text, const DecimalRange& range);

/// `text` as a number of `range`, or kInvalid naming `field`: "FIELD: " and DecimalProblem's
/// reason.
Result<long long> ParseDecimal(std::string_view text, const DecimalRange& range,
                               const std::string& field);

}  // namespace tq
