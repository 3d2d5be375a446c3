#include "cli/progress_line.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("the rate and ETA of tq wait's progress come from the tasks ended so far") {
  struct Case {
    WaitCounts c;
    std::optional<double> rate;
    std::optional<int64_t> eta;
  };
  const Case cases[] = {
      {{.done = 0, .failed = 0, .total = 3, .elapsed_ms = 0}, std::nullopt, std::nullopt},
      {{.done = 0, .failed = 0, .total = 3, .elapsed_ms = 2000}, 0.0, std::nullopt},
      {{.done = 1, .failed = 0, .total = 3, .elapsed_ms = 0}, std::nullopt, std::nullopt},
      {{.done = 12, .failed = 1, .total = 20, .elapsed_ms = 5000}, 2.4, 3333},
      {{.done = 1, .failed = 0, .total = 4, .elapsed_ms = 10000}, 0.1, 30000},
      {{.done = 3, .failed = 3, .total = 3, .elapsed_ms = 1500}, 2.0, 0},
      {{.done = 0, .failed = 0, .total = 0, .elapsed_ms = 0}, std::nullopt, 0},
  };
  for (const Case& k : cases) {
    CAPTURE(k.c.done);
    CAPTURE(k.c.total);
    CAPTURE(k.c.elapsed_ms);
    const auto rate = TasksPerSecond(k.c);
    REQUIRE(rate.has_value() == k.rate.has_value());
    if (rate) CHECK(*rate == doctest::Approx(*k.rate));
    CHECK(EtaMs(k.c) == k.eta);
  }
}

TEST_CASE("durations on the progress line read as a clock") {
  struct Case {
    int64_t ms;
    std::string want;
  };
  const Case cases[] = {
      {0, "0:00"},          {999, "0:00"},     {5000, "0:05"},           {59999, "0:59"},
      {60000, "1:00"},      {754000, "12:34"}, {3599999, "59:59"},       {3600000, "1:00:00"},
      {3723000, "1:02:03"}, {-5, "0:00"},      {360000000, "100:00:00"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.ms);
    CHECK(ClockDuration(c.ms) == c.want);
  }
}

TEST_CASE("the progress line: a bar while it fits, then fewer pieces, never wider than asked") {
  const WaitCounts mid{.done = 12, .failed = 1, .total = 20, .elapsed_ms = 5000};
  const std::string text = "12/20 done  1 failed  2.4/s  elapsed 0:05  ETA 0:03";
  struct Case {
    WaitCounts c;
    size_t width;
    std::string want;
  };
  const Case cases[] = {
      // 79 columns: the bar takes what the text would leave with wide numbers (19 inside:
      // "20 failed  999.9/s  elapsed 59:59  ETA 59:59"), 12/20 of it filled.
      {mid, 79, "[" + std::string(11, '#') + std::string(8, '.') + "]  " + text},
      // A wide terminal: the bar stops at 40.
      {mid, 200, "[" + std::string(24, '#') + std::string(16, '.') + "]  " + text},
      // The smallest bar: 10 inside.
      {mid, 70, "[" + std::string(6, '#') + std::string(4, '.') + "]  " + text},
      // No room for a bar of 10: none.
      {mid, 69, text},
      {mid, 51, text},
      // Then elapsed goes, the rate, the ETA and the failed count; then the rest is cut.
      {mid, 50, "12/20 done  1 failed  2.4/s  ETA 0:03"},
      {mid, 37, "12/20 done  1 failed  2.4/s  ETA 0:03"},
      {mid, 36, "12/20 done  1 failed  ETA 0:03"},
      {mid, 30, "12/20 done  1 failed  ETA 0:03"},
      {mid, 29, "12/20 done  1 failed"},
      {mid, 20, "12/20 done  1 failed"},
      {mid, 19, "12/20 done"},
      {mid, 10, "12/20 done"},
      {mid, 5, "12/20"},
      {mid, 0, ""},
      // At the start nothing is known yet.
      {{.done = 0, .failed = 0, .total = 3, .elapsed_ms = 0},
       79,
       "[" + std::string(22, '.') + "]  0/3 done  0 failed  ?/s  elapsed 0:00  ETA ?"},
      // At the end the bar is full.
      {{.done = 3, .failed = 0, .total = 3, .elapsed_ms = 1500},
       70,
       "[" + std::string(13, '#') + "]  3/3 done  0 failed  2.0/s  elapsed 0:01  ETA 0:00"},
      // Fast: the rate without decimals; the done count as wide as the total.
      {{.done = 500, .failed = 2, .total = 1000, .elapsed_ms = 2000},
       60,
       " 500/1000 done  2 failed  250/s  elapsed 0:02  ETA 0:02"},
  };
  for (const Case& k : cases) {
    CAPTURE(k.width);
    CAPTURE(k.c.done);
    CHECK(ProgressLine(k.c, k.width) == k.want);
  }
}

TEST_CASE("the bar keeps its size and the counts their place while the numbers change") {
  const WaitCounts steps[] = {
      {.done = 0, .failed = 0, .total = 20, .elapsed_ms = 0},
      {.done = 1, .failed = 0, .total = 20, .elapsed_ms = 100},
      {.done = 9, .failed = 9, .total = 20, .elapsed_ms = 900},
      {.done = 10, .failed = 10, .total = 20, .elapsed_ms = 59000},
      {.done = 19, .failed = 0, .total = 20, .elapsed_ms = 3599000},
  };
  for (const WaitCounts& c : steps) {
    CAPTURE(c.done);
    const std::string line = ProgressLine(c, 79);
    CHECK(line.find("]  ") == 20);   // 19 inside the bar
    CHECK(line.find("/20 ") == 25);  // " 1/20 done" as "12/20 done"
  }
}

TEST_CASE("the progress line never exceeds its width, whatever the counts") {
  const WaitCounts counts[] = {
      {.done = 0, .failed = 0, .total = 2, .elapsed_ms = 0},
      {.done = 1, .failed = 1, .total = 2, .elapsed_ms = 999},
      {.done = 7, .failed = 3, .total = 9, .elapsed_ms = 61000},
      {.done = 99999, .failed = 12345, .total = 100000, .elapsed_ms = 360000000},
  };
  for (const WaitCounts& c : counts)
    for (size_t width = 0; width <= 150; ++width) {
      CAPTURE(c.done);
      CAPTURE(width);
      const std::string line = ProgressLine(c, width);
      CHECK(line.size() <= width);
      if (width >= 10)
        CHECK(line.find(std::to_string(c.done) + "/") == line.find_first_of("0123456789"));
    }
}

}  // namespace
}  // namespace tq
