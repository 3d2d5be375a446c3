// Standard output and standard error merged in the order written (`tq logs --merged`).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/model/output_order.h"

namespace tq {
namespace {

constexpr bool O = false, E = true;

TEST_CASE("merged segments follow the switches, then the rest of stdout and of stderr") {
  const struct {
    const char* name;
    std::string order;
    int64_t out, err;
    bool complete;
    std::vector<OutputSegment> want;
  } cases[] = {
      {"nothing written", "", 0, 0, true, {}},
      {"stdout only", "", 10, 0, true, {{O, 0, 10}}},
      {"stderr only, running", "", 0, 7, false, {{E, 0, 7}}},
      {"both, no switch read yet, running", "", 3, 4, false, {}},
      {"both, no order, over", "", 3, 4, true, {{O, 0, 3}, {E, 0, 4}}},
      {"out err out", "o 5\ne 2\n", 9, 2, true, {{O, 0, 5}, {E, 0, 2}, {O, 5, 9}}},
      {"out err out, running", "o 5\ne 2\n", 9, 2, false, {{O, 0, 5}, {E, 0, 2}, {O, 5, 9}}},
      {"err out err", "e 1\no 3\n", 3, 6, true, {{E, 0, 1}, {O, 0, 3}, {E, 1, 6}}},
      {"running: the stream left grew again", "o 5\n", 8, 2, false, {{O, 0, 5}}},
      {"running: a line half written", "o 5\ne 2", 5, 4, false, {{O, 0, 5}, {E, 0, 4}}},
      {"end: the rest once over",
       "o 5\ne 2\nend\n",
       9,
       6,
       true,
       {{O, 0, 5}, {E, 0, 2}, {O, 5, 9}, {E, 2, 6}}},
      {"end: nothing more while running", "o 5\ne 2\nend\n", 9, 6, false, {{O, 0, 5}, {E, 0, 2}}},
      {"a line it cannot read ends the order",
       "o 5\nx 1\ne 2\n",
       9,
       6,
       true,
       {{O, 0, 5}, {O, 5, 9}, {E, 0, 6}}},
      {"negative or junk numbers end it", "o -1\n", 4, 4, true, {{O, 0, 4}, {E, 0, 4}}},
      {"a position past the file is cut to it", "o 50\ne 2\n", 9, 2, true, {{O, 0, 9}, {E, 0, 2}}},
      {"a position behind adds nothing", "o 5\ne 2\no 3\n", 5, 2, true, {{O, 0, 5}, {E, 0, 2}}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto got = MergedSegments(c.order, c.out, c.err, c.complete);
    CHECK(got == c.want);
    int64_t want_size = 0;
    for (const auto& s : c.want) want_size += s.end - s.begin;
    CHECK(SegmentsSize(got) == want_size);
  }
}

TEST_CASE("what a follower reads at any moment is the start of the whole") {
  // The order and sizes a follower may read one after another while the task runs; at the third,
  // stdout grew after a switch whose line it had not read yet.
  const struct {
    std::string order;
    int64_t out, err;
    bool complete;
  } steps[] = {{"", 4, 0, false},
               {"o 4\n", 4, 3, false},
               {"o 4\n", 6, 3, false},
               {"o 4\ne 3\n", 6, 3, false},
               {"o 4\ne 3\no 6\n", 6, 5, false},
               {"o 4\ne 3\no 6\n", 6, 5, true}};
  // Each byte of a merged output as (stream, position).
  auto bytes = [](const std::vector<OutputSegment>& segments) {
    std::vector<std::pair<bool, int64_t>> out;
    for (const auto& seg : segments)
      for (int64_t i = seg.begin; i < seg.end; ++i) out.emplace_back(seg.stderr_stream, i);
    return out;
  };
  const auto& last = steps[std::size(steps) - 1];
  const auto whole = bytes(MergedSegments(last.order, last.out, last.err, last.complete));
  CHECK(whole.size() == 11);
  for (const auto& s : steps) {
    CAPTURE(s.order);
    const auto now = bytes(MergedSegments(s.order, s.out, s.err, s.complete));
    REQUIRE(now.size() <= whole.size());
    CHECK(std::vector(whole.begin(), whole.begin() + static_cast<long>(now.size())) == now);
  }
}

}  // namespace
}  // namespace tq
