#include "core/model/shard_spread.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("LeavesShard leaves a shard to an open host that runs fewer of the group's shards") {
  const struct {
    const char* name;
    std::vector<ShardHost> hosts;
    bool leaves;
  } kCases[] = {
      {"alone", {{"a", 3, true}}, false},
      {"none runs any yet", {{"a", 0, true}, {"b", 0, true}, {"c", 0, true}}, false},
      {"another runs none", {{"a", 1, true}, {"b", 0, true}}, true},
      {"as many as the others", {{"a", 1, true}, {"b", 1, true}, {"c", 1, true}}, false},
      {"the one with fewer is full", {{"a", 2, true}, {"b", 0, false}}, false},
      {"one of several has fewer", {{"a", 2, true}, {"b", 2, true}, {"c", 1, true}}, true},
      {"fewer, but not open", {{"a", 2, false}, {"b", 1, false}, {"c", 3, true}}, false},
      {"this host unknown to the store", {{"b", 0, true}}, false},
      {"more than this host elsewhere", {{"a", 1, true}, {"b", 4, true}}, false},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    CHECK(LeavesShard("a", c.hosts) == c.leaves);
  }
}

}  // namespace
}  // namespace tq
