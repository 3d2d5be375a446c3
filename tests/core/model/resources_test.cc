// The ionice values of queues and jobs, and a job's resources over its queue's.
#include "core/model/resources.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("IoPriority: the I/O classes and levels ioprio_set takes") {
  struct Case {
    const char* text;
    std::optional<int> want;
  };
  const Case cases[] = {
      {"idle", 3 << 13},
      {"best-effort", 2 << 13 | 4},
      {"best-effort:0", 2 << 13},
      {"best-effort:7", 2 << 13 | 7},
      {"realtime", 1 << 13 | 4},
      {"realtime:2", 1 << 13 | 2},
      {"", std::nullopt},
      {"idle:3", std::nullopt},
      {"best-effort:8", std::nullopt},
      {"best-effort:", std::nullopt},
      {"best-effort:10", std::nullopt},
      {"none", std::nullopt},
      {"Idle", std::nullopt},
      {"realtime:-1", std::nullopt},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.text));
    CHECK(IoPriority(c.text) == c.want);
  }
}

TEST_CASE("Resources::With: a job's settings over its queue's, the others kept") {
  Resources queue;
  queue.nice = 10;
  queue.ionice = "idle";
  queue.nofile = 100;
  Resources job;
  job.nice = 5;
  job.core = 0;
  const Resources r = queue.With(job);
  CHECK(r.nice == 5);
  CHECK(r.ionice == "idle");
  CHECK(r.nofile == 100);
  CHECK(r.core == 0);
  CHECK_FALSE(r.nproc.has_value());
  CHECK(queue.With(Resources{}) == queue);
}

}  // namespace
}  // namespace tq
