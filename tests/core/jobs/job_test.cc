// Job names and the spellings of the overlap and misfire policies.
#include "core/jobs/job.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

TEST_CASE("job: overlap and misfire names round-trip and nothing else parses") {
  for (Overlap o : {Overlap::kSkip, Overlap::kQueue, Overlap::kAllow, Overlap::kReplace})
    CHECK(OverlapFromName(OverlapName(o)) == o);
  for (Misfire m : {Misfire::kSkip, Misfire::kRunOnce, Misfire::kRunAll})
    CHECK(MisfireFromName(MisfireName(m)) == m);
  CHECK(std::string(OverlapName(Overlap::kReplace)) == "replace");
  CHECK(std::string(MisfireName(Misfire::kRunOnce)) == "run_once");
  for (const char* bad : {"", "Skip", "skip ", "wait", "run-once"}) {
    CHECK_FALSE(OverlapFromName(bad).has_value());
    CHECK_FALSE(MisfireFromName(bad).has_value());
  }
}

TEST_CASE("job: names are 1 to 64 characters from A-Z a-z 0-9 _ . -") {
  for (const char* good : {"a", "nightly-report", "a.b_c-D9", "0"}) CHECK(ValidJobName(good));
  CHECK(ValidJobName(std::string(64, 'x')));
  CHECK_FALSE(ValidJobName(std::string(65, 'x')));
  for (const char* bad : {"", "a b", "a/b", "job:x", "ä", "a\n"}) CHECK_FALSE(ValidJobName(bad));
}

}  // namespace
}  // namespace tq
