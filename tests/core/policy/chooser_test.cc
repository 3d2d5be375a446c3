#include "core/policy/chooser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>

namespace tq {
namespace {

// An in-memory ready set: ids increase with age (smaller id = older), like the store's.
class VectorReady : public ReadySource {
 public:
  std::vector<Candidate> tasks;

  std::optional<Candidate> First(ReadyOrder order) override {
    if (tasks.empty()) return std::nullopt;
    auto it = std::min_element(tasks.begin(), tasks.end(), [order](const auto& a, const auto& b) {
      return order == ReadyOrder::kHighestPriority
                 ? std::pair(a.priority, a.id) < std::pair(b.priority, b.id)
                 : a.id < b.id;
    });
    return *it;
  }
  void Remove(TaskId id) {
    tasks.erase(std::remove_if(tasks.begin(), tasks.end(), [id](auto& c) { return c.id == id; }),
                tasks.end());
  }
};

UniformSource Seeded(uint64_t seed) {
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [rng] { return std::uniform_real_distribution<double>(0.0, 1.0)(*rng); };
}

TEST_CASE("DrawOrder splits at high_share") {
  struct Case {
    double draw, share;
    ReadyOrder want;
  };
  const Case cases[] = {
      {0.0, 0.8, ReadyOrder::kHighestPriority}, {0.79, 0.8, ReadyOrder::kHighestPriority},
      {0.8, 0.8, ReadyOrder::kOldest},          {0.99, 0.8, ReadyOrder::kOldest},
      {0.5, 1.0, ReadyOrder::kHighestPriority}, {0.0, 0.0, ReadyOrder::kOldest},
  };
  for (const Case& c : cases) {
    CAPTURE(c.draw);
    CAPTURE(c.share);
    CHECK(DrawOrder(c.share, [&] { return c.draw; }) == c.want);
  }
}

TEST_CASE("about 80% of picks take the highest priority while several priorities wait") {
  for (uint64_t seed : {1u, 2u, 3u}) {
    VectorReady ready;
    // The oldest task has the lowest priority, so the two branches pick different tasks.
    ready.tasks = {{1, 5}, {2, 4}, {3, 3}, {4, 1}, {5, 2}, {6, 1}};
    const UniformSource uniform = Seeded(seed);
    int highest = 0, oldest = 0;
    constexpr int kDraws = 20000;
    for (int i = 0; i < kDraws; ++i) {
      auto pick = PickNext(ready, 0.8, uniform);
      REQUIRE(pick);
      if (pick->id == 4) ++highest;
      if (pick->id == 1) ++oldest;
    }
    CHECK(highest + oldest == kDraws);
    const double share = static_cast<double>(highest) / kDraws;
    CAPTURE(seed);
    CHECK(share > 0.78);
    CHECK(share < 0.82);
  }
}

TEST_CASE("priorities 2-4 are reached while priorities 1 and 5 keep waiting") {
  VectorReady ready;
  TaskId next_id = 1;
  // Middle priorities arrive first; then a steady stream of 1s and a backlog of 5s.
  for (int p : {2, 3, 4, 2, 3, 4}) ready.tasks.push_back({next_id++, p});
  for (int i = 0; i < 50; ++i) ready.tasks.push_back({next_id++, 5});
  ready.tasks.push_back({next_id++, 1});
  const UniformSource uniform = Seeded(42);
  std::map<int, int> picked_by_priority;
  int picks_until_middle_done = 0;
  for (int i = 0; i < 1000; ++i) {
    auto pick = PickNext(ready, 0.8, uniform);
    REQUIRE(pick);
    ++picked_by_priority[pick->priority];
    ready.Remove(pick->id);
    ready.tasks.push_back({next_id++, 1});  // priority 1 never runs dry
    if (picks_until_middle_done == 0 &&
        std::none_of(ready.tasks.begin(), ready.tasks.end(),
                     [](const Candidate& c) { return c.priority >= 2 && c.priority <= 4; }))
      picks_until_middle_done = i + 1;
  }
  CHECK(picks_until_middle_done > 0);
  CHECK(picks_until_middle_done < 200);  // bounded: each oldest-first draw takes one of them
  CHECK(picked_by_priority[2] == 2);
  CHECK(picked_by_priority[3] == 2);
  CHECK(picked_by_priority[4] == 2);
  CHECK(picked_by_priority[5] > 0);  // the 20% branch also reaches the lowest priority
  CHECK(picked_by_priority[1] > 600);
}

TEST_CASE("a single eligible task is picked by either branch") {
  VectorReady ready;
  ready.tasks = {{7, 4}};
  for (double draw : {0.0, 0.5, 0.81, 0.999}) {
    auto pick = PickNext(ready, 0.8, [draw] { return draw; });
    REQUIRE(pick);
    CHECK(pick->id == 7);
  }
}

TEST_CASE("nothing ready, nothing picked") {
  VectorReady ready;
  CHECK_FALSE(PickNext(ready, 0.8, Seeded(1)));
}

}  // namespace
}  // namespace tq
