#include "cli/decimal.h"

#include <doctest/doctest.h>

#include <limits>
#include <optional>

namespace tq {
namespace {

constexpr const char* kTaskIdRule =
    "a task id is a decimal number from 1 to 9223372036854775807 without leading zeros";

TEST_CASE("decimal task ids: digits without leading zeros, 1 to the largest 64-bit integer") {
  struct Case {
    std::string_view text;
    std::optional<long long> want;  // nullopt: refused
  };
  const Case cases[] = {
      {"1", 1},
      {"15", 15},
      {"9223372036854775807", std::numeric_limits<long long>::max()},
      {"017", std::nullopt},  // not octal 15
      {"010", std::nullopt},  // not octal 8
      {"00", std::nullopt},
      {"0x10", std::nullopt},  // not hexadecimal 16
      {"0X10", std::nullopt},
      {"0b1", std::nullopt},
      {"0", std::nullopt},                     // below the range
      {"9223372036854775808", std::nullopt},   // one past the largest
      {"99999999999999999999", std::nullopt},  // 20 digits: not clamped
      {"-1", std::nullopt},
      {"-0", std::nullopt},
      {"+1", std::nullopt},
      {" 1", std::nullopt},
      {"1 ", std::nullopt},
      {"\t1", std::nullopt},
      {"1\n", std::nullopt},
      {"1e3", std::nullopt},
      {"1.0", std::nullopt},
      {"1_000", std::nullopt},
      {"", std::nullopt},
      {"\xff", std::nullopt},
      {"1\xff", std::nullopt},
      {std::string_view("1\0"
                        "2",
                        3),
       std::nullopt},              // an embedded NUL
      {"\xd9\xa1", std::nullopt},  // ARABIC-INDIC DIGIT ONE
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Result<long long> r = ParseDecimal(c.text, TaskIdRange(), "ids");
    REQUIRE(r.ok() == c.want.has_value());
    if (c.want) {
      CHECK(*r == *c.want);
      CHECK(DecimalProblem(c.text, TaskIdRange()) == "");
    } else {
      CHECK(r.status().code() == ErrorCode::kInvalid);
      CHECK(r.status().field() == "ids");
      CHECK(r.status().message() == "ids: " + DecimalProblem(c.text, TaskIdRange()));
      CHECK(DecimalProblem(c.text, TaskIdRange()).find(kTaskIdRule) != std::string::npos);
    }
  }
}

TEST_CASE("a refusal quotes the text typed, its bad bytes escaped, and says what is allowed") {
  CHECK(DecimalProblem("017", TaskIdRange()) ==
        std::string("\"017\" is not a task id: ") + kTaskIdRule);
  CHECK(DecimalProblem("", TaskIdRange()) == std::string("\"\" is not a task id: ") + kTaskIdRule);
  CHECK(DecimalProblem("1\xff", TaskIdRange()) ==
        std::string("\"1\\xff\" is not a task id: ") + kTaskIdRule);
  CHECK(DecimalProblem("0", {1, 10000, "a count"}) ==
        "\"0\" is not a count: a count is a decimal number from 1 to 10000 without leading zeros");
  CHECK(DecimalProblem("x", {0, 5, ""}) ==
        "\"x\" is not a decimal number from 0 to 5 without leading zeros");
}

TEST_CASE("decimal bounds: each end is in, one past is out, a sign only where negatives are") {
  const DecimalRange priority{1, 5, "a priority"};
  CHECK(ParseDecimal("1", priority, "--priority").ok());
  CHECK(ParseDecimal("5", priority, "--priority").ok());
  CHECK(!ParseDecimal("6", priority, "--priority").ok());
  CHECK(!ParseDecimal("0", priority, "--priority").ok());
  CHECK(!ParseDecimal("05", priority, "--priority").ok());

  const DecimalRange zero_up{0, 1000, "a retry count"};
  CHECK(*ParseDecimal("0", zero_up, "--retries") == 0);
  CHECK(!ParseDecimal("-0", zero_up, "--retries").ok());
  CHECK(!ParseDecimal("-1", zero_up, "--retries").ok());

  const DecimalRange any{std::numeric_limits<long long>::min(),
                         std::numeric_limits<long long>::max(), "a version"};
  CHECK(*ParseDecimal("-1", any, "--version") == -1);
  CHECK(*ParseDecimal("-9223372036854775808", any, "--version") ==
        std::numeric_limits<long long>::min());
  CHECK(*ParseDecimal("0", any, "--version") == 0);
  CHECK(!ParseDecimal("-9223372036854775809", any, "--version").ok());
  CHECK(!ParseDecimal("-0", any, "--version").ok());
  CHECK(!ParseDecimal("-017", any, "--version").ok());
  CHECK(!ParseDecimal("-", any, "--version").ok());
  CHECK(!ParseDecimal("--1", any, "--version").ok());
  CHECK(!ParseDecimal("+1", any, "--version").ok());
  CHECK(!ParseDecimal("99999999999999999999", any, "--version").ok());
}

}  // namespace
}  // namespace tq
