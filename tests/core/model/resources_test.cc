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

TEST_CASE("Resources::Narrowed: a user's job gets the stricter of its own and its queue's") {
  Resources queue;
  queue.nice = 10;
  queue.ionice = "best-effort:5";
  queue.memory_max = 4LL << 30;
  queue.cpu_weight = 50;
  queue.nofile = 1024;

  Resources raise;  // asks for more than the queue gives: nothing of it is taken
  raise.nice = 0;
  raise.ionice = "best-effort:0";
  raise.memory_max = 1LL << 40;
  raise.cpu_weight = 100;
  raise.pids_max = 100;
  CHECK(queue.Narrowed(raise).nice == 10);
  CHECK(queue.Narrowed(raise).ionice == "best-effort:5");
  CHECK(queue.Narrowed(raise).memory_max == 4LL << 30);
  CHECK(queue.Narrowed(raise).cpu_weight == 50);
  CHECK(queue.Narrowed(raise).pids_max == 100);  // the queue sets none
  CHECK(queue.Narrowed(raise).nofile == 1024);

  Resources lower;  // asks for less: taken
  lower.nice = 19;
  lower.ionice = "idle";
  lower.memory_max = 1LL << 30;
  lower.cpu_weight = 10;
  lower.nofile = 1 << 20;  // a limit a user's file may not set: never taken
  const Resources got = queue.Narrowed(lower);
  CHECK(got.nice == 19);
  CHECK(got.ionice == "idle");
  CHECK(got.memory_max == 1LL << 30);
  CHECK(got.cpu_weight == 10);
  CHECK(got.nofile == 1024);

  const Resources none;  // a queue without settings: the kernel's defaults are the bar
  Resources up;
  up.ionice = "best-effort:0";
  up.cpu_weight = 101;
  up.nice = 3;
  CHECK_FALSE(none.Narrowed(up).ionice.has_value());
  CHECK_FALSE(none.Narrowed(up).cpu_weight.has_value());
  CHECK(none.Narrowed(up).nice == 3);
}

}  // namespace
}  // namespace tq
