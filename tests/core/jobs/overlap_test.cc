// DecideOverlap for every overlap mode, count of pending and running runs, and --force.
#include "core/jobs/overlap.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq {
namespace {

constexpr OverlapAction kCreate = OverlapAction::kCreate;
constexpr OverlapAction kSkipIt = OverlapAction::kSkip;
constexpr OverlapAction kCoalesce = OverlapAction::kCoalesce;
constexpr OverlapAction kReplace = OverlapAction::kReplace;

TEST_CASE("DecideOverlap: every mode with pending and running runs") {
  struct Row {
    Overlap overlap;
    int pending;
    int running;
    OverlapAction action;
    bool exclusive;
  };
  const std::vector<Row> rows = {
      {Overlap::kAllow, 0, 0, kCreate, false},   {Overlap::kAllow, 1, 0, kCreate, false},
      {Overlap::kAllow, 0, 1, kCreate, false},   {Overlap::kAllow, 3, 2, kCreate, false},
      {Overlap::kSkip, 0, 0, kCreate, true},     {Overlap::kSkip, 1, 0, kSkipIt, true},
      {Overlap::kSkip, 0, 1, kSkipIt, true},     {Overlap::kSkip, 3, 2, kSkipIt, true},
      {Overlap::kQueue, 0, 0, kCreate, true},    {Overlap::kQueue, 1, 0, kCoalesce, true},
      {Overlap::kQueue, 0, 1, kCreate, true},    {Overlap::kQueue, 3, 2, kCoalesce, true},
      {Overlap::kReplace, 0, 0, kCreate, true},  {Overlap::kReplace, 1, 0, kReplace, true},
      {Overlap::kReplace, 0, 1, kReplace, true}, {Overlap::kReplace, 3, 2, kReplace, true},
  };
  for (const Row& r : rows) {
    const std::string overlap = OverlapName(r.overlap);
    CAPTURE(overlap);
    CAPTURE(r.pending);
    CAPTURE(r.running);
    const OverlapDecision d = DecideOverlap(r.overlap, r.pending, r.running, false);
    CHECK(std::string(OverlapActionName(d.action)) == OverlapActionName(r.action));
    CHECK(d.exclusive == r.exclusive);

    // --force creates a run that is not exclusive, whatever the mode and the other runs.
    const OverlapDecision forced = DecideOverlap(r.overlap, r.pending, r.running, true);
    CHECK(forced.action == kCreate);
    CHECK_FALSE(forced.exclusive);
  }
}

TEST_CASE("DecideCatchUp: a missed firing of run_all makes a run that waits its turn") {
  for (Overlap o : {Overlap::kSkip, Overlap::kQueue, Overlap::kReplace, Overlap::kAllow}) {
    const std::string overlap = OverlapName(o);
    CAPTURE(overlap);
    const OverlapDecision d = DecideCatchUp(o);
    CHECK(d.action == kCreate);
    CHECK(d.exclusive == (o != Overlap::kAllow));
  }
}

TEST_CASE("DecideOverlap: counts below zero read as none") {
  for (Overlap o : {Overlap::kSkip, Overlap::kQueue, Overlap::kReplace}) {
    const std::string overlap = OverlapName(o);
    CAPTURE(overlap);
    const OverlapDecision d = DecideOverlap(o, -1, -1, false);
    CHECK(d.action == kCreate);
    CHECK(d.exclusive);
  }
}

TEST_CASE("OverlapActionName: each action") {
  CHECK(std::string(OverlapActionName(kCreate)) == "create");
  CHECK(std::string(OverlapActionName(kSkipIt)) == "skip");
  CHECK(std::string(OverlapActionName(kCoalesce)) == "coalesce");
  CHECK(std::string(OverlapActionName(kReplace)) == "replace");
}

}  // namespace
}  // namespace tq
