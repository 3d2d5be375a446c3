#include "core/model/duration.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/model/limits.h"

namespace tq {
namespace {

constexpr int64_t kS = 1000;
constexpr int64_t kM = 60 * kS;
constexpr int64_t kH = 60 * kM;
constexpr int64_t kD = 24 * kH;
constexpr int64_t kW = 7 * kD;

TEST_CASE("ParseDuration accepts the SPEC 10 grammar") {
  struct Case {
    const char* text;
    int64_t ms;
  };
  const Case cases[] = {
      {"0", 0},
      {"0s", 0},
      {"90", 90 * kS},  // a bare integer is seconds
      {"90s", 90 * kS},
      {"250ms", 250},
      {"1m", kM},
      {"1h30m", kH + 30 * kM},
      {"2d3h", 2 * kD + 3 * kH},
      {"1w", kW},
      {"1w2d3h4m5s6ms", kW + 2 * kD + 3 * kH + 4 * kM + 5 * kS + 6},
      {"1s500ms", 1500},
      {"007s", 7 * kS},
      {"5214w2d", 36500 * kD},  // the largest: 100 years
      {"36500d", 36500 * kD},
  };
  for (const Case& c : cases) {
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<int64_t> r = ParseDuration(c.text, "--delay");
    REQUIRE(r.ok());
    CHECK(*r == c.ms);
  }
}

TEST_CASE("ParseDuration refuses, naming the field, the value and the reason") {
  struct Case {
    const char* text;
    const char* reason;  // part of the message
  };
  const Case cases[] = {
      {"", "it is empty"},
      {"5x", "unknown unit \"x\""},
      {"5S", "unknown unit \"S\""},
      {"5sec", "unknown unit \"sec\""},
      {"-5s", "negative"},
      {"-5", "negative"},
      {"+5s", "expected a number"},
      {"1h30", "has no unit"},
      {"1h 30m", "spaces are not allowed"},
      {" 5s", "spaces are not allowed"},
      {"5s ", "spaces are not allowed"},
      {"1.5h", "unexpected \".5h\""},
      {"30m1h", "largest to smallest"},
      {"1m1m", "largest to smallest"},
      {"h", "expected a number"},
      {"99999999999999999999", "too large"},
      {"15250284453w", "too large"},
      {"15250284452w4d", "too large"},
      {"36500d1ms", "too large: the range is 0s to 36500d (100 years)"},
      {"9223372036854775807ms", "too large: the range is 0s to 36500d (100 years)"},
      {"5215w", "too large"},
  };
  for (const Case& c : cases) {
    const std::string text_s = c.text;
    CAPTURE(text_s);
    Result<int64_t> r = ParseDuration(c.text, "--delay");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == "--delay");
    const std::string& msg = r.status().message();
    CAPTURE(msg);
    CHECK(msg.rfind("--delay: \"" + std::string(c.text) + "\"", 0) == 0);
    CHECK(msg.find(c.reason) != std::string::npos);
  }
}

TEST_CASE("a refusal says what is allowed") {
  Result<int64_t> r = ParseDuration("5x", "--delay");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() ==
        "--delay: \"5x\" is not a duration: unknown unit \"x\" (use <integer><unit>..., units ms s "
        "m h d w, e.g. 90s or 1h30m)");
}

TEST_CASE("FormatDuration is compact and the inverse of ParseDuration") {
  struct Case {
    int64_t ms;
    const char* text;
  };
  const Case cases[] = {
      {0, "0s"},
      {250, "250ms"},
      {90 * kS, "1m30s"},
      {kH + 30 * kM, "1h30m"},
      {2 * kD + 3 * kH, "2d3h"},
      {kW, "1w"},
      {14 * kD, "2w"},
      {1500, "1s500ms"},
      {-90 * kS, "-1m30s"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.ms);
    CHECK(FormatDuration(c.ms) == c.text);
    if (c.ms >= 0) {
      Result<int64_t> back = ParseDuration(FormatDuration(c.ms), "x");
      REQUIRE(back.ok());
      CHECK(*back == c.ms);
    }
  }
  Result<int64_t> back = ParseDuration(FormatDuration(kMaxDurationMs), "x");
  REQUIRE(back.ok());
  CHECK(*back == kMaxDurationMs);
  CHECK(FormatDuration(std::numeric_limits<int64_t>::min()).rfind("-15250284452w", 0) == 0);
}

}  // namespace
}  // namespace tq
