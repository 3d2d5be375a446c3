#include "core/policy/chooser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <random>

namespace tq {
namespace {

// An in-memory ready set: ids increase with age (smaller id = older), like the store's.
class VectorReady : public ReadySource {
 public:
  std::vector<Candidate> tasks;
  std::map<uint32_t, int> running;    ///< per owner
  const ServedLog* served = nullptr;  ///< when each owner was last served; none: never

  std::vector<OwnerCandidate> FirstPerOwner(ReadyOrder order) override {
    std::map<uint32_t, Candidate> first;
    for (const Candidate& c : tasks) {
      auto [it, added] = first.emplace(c.owner_uid, c);
      const bool better =
          order == ReadyOrder::kHighestPriority
              ? std::pair(c.priority, c.id) < std::pair(it->second.priority, it->second.id)
              : c.id < it->second.id;
      if (!added && better) it->second = c;
    }
    std::vector<OwnerCandidate> out;
    for (const auto& [owner, c] : first)
      out.push_back({c, running[owner], served ? served->LastServed(owner) : 0});
    return out;
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

TEST_CASE("ChooseAmong: the best priority first, then the user running least, then the oldest") {
  struct Case {
    const char* what;
    std::vector<OwnerCandidate> owners;
    ReadyOrder order;
    TaskId want;
  };
  const auto owner = [](TaskId id, int priority, uint32_t uid, int running,
                        uint64_t last_served = 0) {
    return OwnerCandidate{Candidate{id, priority, uid}, running, last_served};
  };
  const Case cases[] = {
      {"a better priority wins over fewer running",
       {owner(1, 3, 10, 0), owner(2, 1, 11, 5)},
       ReadyOrder::kHighestPriority,
       2},
      {"same priority: the user running fewer",
       {owner(1, 3, 10, 2), owner(9, 3, 11, 1)},
       ReadyOrder::kHighestPriority,
       9},
      {"same priority and running: the older task",
       {owner(5, 3, 10, 1), owner(4, 3, 11, 1)},
       ReadyOrder::kHighestPriority,
       4},
      {"oldest ignores running and priority",
       {owner(1, 5, 10, 9), owner(2, 1, 11, 0)},
       ReadyOrder::kOldest,
       1},
      {"same priority and running: the user served least recently",
       {owner(1, 3, 10, 0, 8), owner(9, 3, 11, 0, 7)},
       ReadyOrder::kHighestPriority,
       9},
      {"a user never served goes before one served",
       {owner(1, 3, 10, 0, 1), owner(9, 3, 11, 0, 0)},
       ReadyOrder::kHighestPriority,
       9},
      {"fewer running wins over served less recently",
       {owner(1, 3, 10, 0, 9), owner(9, 3, 11, 1, 0)},
       ReadyOrder::kHighestPriority,
       1},
      {"a better priority wins over served less recently",
       {owner(1, 2, 10, 0, 9), owner(9, 3, 11, 0, 0)},
       ReadyOrder::kHighestPriority,
       1},
      {"oldest ignores when users were served",
       {owner(1, 3, 10, 0, 9), owner(9, 3, 11, 0, 0)},
       ReadyOrder::kOldest,
       1},
      {"one owner", {owner(7, 2, 10, 100)}, ReadyOrder::kHighestPriority, 7},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    auto pick = ChooseAmong(c.owners, c.order);
    REQUIRE(pick);
    CHECK(pick->id == c.want);
  }
  CHECK_FALSE(ChooseAmong({}, ReadyOrder::kHighestPriority));
  CHECK_FALSE(ChooseAmong({}, ReadyOrder::kOldest));
}

TEST_CASE("a user with 10,000 tasks does not delay another user's 10 at the same priority") {
  VectorReady ready;
  constexpr uint32_t kFlooder = 1000, kOther = 1001;
  TaskId next_id = 1;
  for (int i = 0; i < 10000; ++i) ready.tasks.push_back({next_id++, 3, kFlooder});
  for (int i = 0; i < 10; ++i) ready.tasks.push_back({next_id++, 3, kOther});
  const UniformSource uniform = Seeded(7);
  // Two slots; a task runs until two more have started, whoever's they are.
  std::deque<uint32_t> running;
  int picks = 0, other_started = 0;
  while (other_started < 10 && picks < 100) {
    if (running.size() == 2) {
      --ready.running[running.front()];
      running.pop_front();
    }
    auto pick = PickNext(ready, 0.8, uniform);
    REQUIRE(pick);
    ++picks;
    ++ready.running[pick->owner_uid];
    running.push_back(pick->owner_uid);
    if (pick->owner_uid == kOther) ++other_started;
    ready.Remove(pick->id);
  }
  CAPTURE(picks);
  CHECK(other_started == 10);
  CHECK(picks <= 30);  // about every other pick of the 80% branch
}

TEST_CASE("ServedLog: never served is 0, then each start is later than the last") {
  ServedLog log;
  CHECK(log.LastServed(10) == 0);
  log.Served(10);
  log.Served(11);
  CHECK(log.LastServed(10) < log.LastServed(11));
  log.Served(10);
  CHECK(log.LastServed(10) > log.LastServed(11));
}

// With one slot both users have 0 running whenever it frees: only when each was last served
// keeps the flooder from taking every start.
TEST_CASE("with a cap of 1, a user's 3 tasks start within 10 starts of another's 300") {
  struct Case {
    double high_share;
    uint64_t seed;
    int most_starts;  // B's third task starts within this many starts
  };
  for (const Case& c : {Case{1.0, 1, 6}, Case{0.8, 3, 10}, Case{0.8, 11, 10}}) {
    CAPTURE(c.high_share);
    CAPTURE(c.seed);
    VectorReady ready;
    constexpr uint32_t kA = 1000, kB = 1001;
    TaskId next_id = 1;
    for (int i = 0; i < 300; ++i) ready.tasks.push_back({next_id++, 3, kA});
    for (int i = 0; i < 3; ++i) ready.tasks.push_back({next_id++, 3, kB});
    ServedLog served;
    ready.served = &served;
    const UniformSource uniform = Seeded(c.seed);
    int starts = 0, b_started = 0;
    while (b_started < 3 && starts < 50) {
      auto pick = PickNext(ready, c.high_share, uniform);  // the one running task has ended
      REQUIRE(pick);
      ++starts;
      served.Served(pick->owner_uid);
      b_started += pick->owner_uid == kB;
      ready.Remove(pick->id);
    }
    CHECK(b_started == 3);
    CHECK(starts <= c.most_starts);
  }
}

TEST_CASE("nothing ready, nothing picked") {
  VectorReady ready;
  CHECK_FALSE(PickNext(ready, 0.8, Seeded(1)));
}

}  // namespace
}  // namespace tq
