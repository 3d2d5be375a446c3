#include "daemon/serve/buffer_budget.h"

#include <doctest/doctest.h>

#include <vector>

namespace tq {

namespace {
constexpr uint32_t kOwner = 1000;
using Excess = BufferBudget::Excess;
using Kind = BufferBudget::Kind;
constexpr Kind kIn = Kind::kInput;
constexpr Kind kOut = Kind::kOutput;

// Bytes counted before the question.
struct Held {
  uint32_t uid;
  Kind kind;
  size_t bytes;
};

// 100 in all, 30 a user, the last 20 for root and the owner, holding `held`.
BufferBudget Budget(const std::vector<Held>& held) {
  BufferBudget budget(/*total=*/100, /*per_uid=*/30, /*owner_reserve=*/20, kOwner);
  for (const Held& h : held) budget.Add(h.uid, h.kind, h.bytes);
  return budget;
}
}  // namespace

TEST_CASE("what input fits: the per-user bound, the shared part and the owner's reserve") {
  struct Case {
    const char* what;
    std::vector<Held> held;
    uint32_t uid;
    size_t bytes;
    bool fits;
  };
  const Case cases[] = {
      {"an empty budget", {}, 2001, 30, true},
      {"past the per-user bound", {}, 2001, 31, false},
      {"up to the per-user bound", {{2001, kIn, 20}}, 2001, 10, true},
      {"one past the per-user bound", {{2001, kIn, 20}}, 2001, 11, false},
      {"another user's input is not mine", {{2002, kIn, 30}}, 2001, 30, true},
      {"nothing more at the bound", {{2001, kIn, 30}}, 2001, 0, true},
      {"the shared part is 80", {{2001, kIn, 30}, {2002, kIn, 30}}, 2003, 20, true},
      {"the shared part is full", {{2001, kIn, 30}, {2002, kIn, 30}}, 2003, 21, false},
      {"root's input counts in the shared part", {{2002, kIn, 30}, {0, kIn, 40}}, 2001, 11, false},
      {"unsent responses never keep input out",
       {{2001, kOut, 30}, {2002, kOut, 90}},
       2001,
       30,
       true},
      {"root has no per-user bound", {}, 0, 100, true},
      {"root may take the reserve", {{2001, kIn, 30}, {2002, kIn, 30}}, 0, 40, true},
      {"but not past the total", {{2001, kIn, 30}, {2002, kIn, 30}}, 0, 41, false},
      {"the owner as root", {{2001, kIn, 30}, {2002, kIn, 30}}, kOwner, 40, true},
      {"zero bytes fit for root at the total", {{2001, kIn, 30}, {0, kIn, 70}}, 0, 0, true},
      {"a huge request never wraps around", {{2001, kIn, 10}}, 2001, size_t(-1), false},
      {"nor for root", {{2001, kIn, 10}}, 0, size_t(-1), false},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(Budget(c.held).Fits(c.uid, c.bytes) == c.fits);
  }
}

TEST_CASE("what is over: a user's input and output past its bound, or everyone's past the total") {
  struct Case {
    const char* what;
    std::vector<Held> held;
    uint32_t uid;
    Excess over;
  };
  const Case cases[] = {
      {"nothing held", {}, 2001, Excess::kNone},
      {"at the per-user bound", {{2001, kIn, 20}, {2001, kOut, 10}}, 2001, Excess::kNone},
      {"one past it", {{2001, kIn, 20}, {2001, kOut, 11}}, 2001, Excess::kUser},
      {"another user past it", {{2002, kOut, 31}}, 2001, Excess::kNone},
      {"in the reserve is not over",
       {{2001, kIn, 30}, {2002, kIn, 30}, {0, kOut, 40}},
       2003,
       Excess::kNone},
      {"past the total", {{2001, kIn, 30}, {2002, kOut, 30}, {0, kIn, 41}}, 2003, Excess::kTotal},
      {"past both: its own bound first",
       {{2001, kOut, 31}, {2002, kIn, 30}, {0, kIn, 40}},
       2001,
       Excess::kUser},
      {"root has no bound of its own", {{0, kOut, 90}}, 0, Excess::kNone},
      {"but the total", {{0, kOut, 101}}, 0, Excess::kTotal},
      {"the owner as root", {{0, kIn, 50}, {kOwner, kOut, 51}}, kOwner, Excess::kTotal},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(Budget(c.held).Over(c.uid) == c.over);
  }
}

TEST_CASE("bytes are counted per user and kind and released, never below zero") {
  BufferBudget budget(/*total=*/1000, /*per_uid=*/100, /*owner_reserve=*/10, kOwner);
  budget.Add(2001, kIn, 60);
  budget.Add(2001, kOut, 70);  // a response is counted whole, fitting or not
  budget.Add(2002, kIn, 5);
  CHECK(budget.HeldBy(2001) == 130);
  CHECK(budget.held() == 135);
  CHECK(budget.Over(2001) == Excess::kUser);
  CHECK(budget.Fits(2001, 40));
  CHECK(!budget.Fits(2001, 41));
  budget.Release(2001, kOut, 40);
  CHECK(budget.Over(2001) == Excess::kNone);
  budget.Release(2001, kIn, 500);  // more than it holds: down to nothing of that kind
  CHECK(budget.HeldBy(2001) == 30);
  CHECK(budget.Fits(2001, 100));
  budget.Release(2001, kOut, 30);
  CHECK(budget.HeldBy(2001) == 0);
  CHECK(budget.held() == 5);
  budget.Release(4242, kIn, 5);  // never counted: ignored
  CHECK(budget.held() == 5);
  budget.Add(2002, kOut, 0);
  CHECK(budget.HeldBy(2002) == 5);
}

TEST_CASE("the owner's reserve is at most half the total") {
  BufferBudget budget(/*total=*/100, /*per_uid=*/100, /*owner_reserve=*/90, kOwner);
  CHECK(budget.Fits(2001, 50));
  CHECK(!budget.Fits(2001, 51));
  CHECK(budget.Fits(0, 100));
}

}  // namespace tq
