// Choosing stays cheap with a million pending tasks, most of them delayed: fills a store with
// N delayed and R ready tasks, then times the chooser's queries and a start.
// Usage: tq-bench-ready [N=1000000] [READY=1000]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "core/store/sqlite/open.h"

namespace {

double MicrosPer(int runs, const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) body();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / runs;
}

}  // namespace

int main(int argc, char** argv) {
  const long delayed = argc > 1 ? std::atol(argv[1]) : 1000000;
  const long ready = argc > 2 ? std::atol(argv[2]) : 1000;
  char dir[] = "/tmp/tq-bench-ready-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  const std::string db = std::string(dir) + "/tq.db";
  auto store = tq::OpenSqliteStore(db, /*durability_full=*/false);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  const tq::WallMs now = 1'800'000'000'000;
  tq::Owner owner{1000, 1000, "bench"};
  tq::TaskSpec spec;
  spec.argv = {"true"};
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < delayed + ready; ++i) {
    spec.priority = static_cast<int>(i % 5) + 1;
    spec.queue = i % 3 == 0 ? "batch" : "default";
    spec.not_before = i < delayed ? now + 3600'000 + i : 0;  // delayed by an hour and more
    if (!(*store)->Insert(owner, spec, now).ok()) return 1;
  }
  const double fill_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  tq::Store& s = **store;
  const double first_prio =
      MicrosPer(10000, [&] { (void)s.FirstReady("default", tq::ReadyOrder::kHighestPriority); });
  const double first_old =
      MicrosPer(10000, [&] { (void)s.FirstReady("default", tq::ReadyOrder::kOldest); });
  const double promote = MicrosPer(1000, [&] { (void)s.PromoteDue(now, 1000); });
  const double next_due = MicrosPer(10000, [&] { (void)s.NextDue(); });
  int started = 0;
  const double start = MicrosPer(100, [&] {
    auto c = s.FirstReady("default", tq::ReadyOrder::kHighestPriority);
    if (c.ok() && c->has_value() && s.StartAttempt((*c)->id, now, {}).ok()) ++started;
  });
  std::printf("ready-index bench: %ld delayed + %ld ready tasks (filled in %.1f s)\n", delayed,
              ready, fill_s);
  std::printf("  FirstReady(highest priority)  %8.2f us\n", first_prio);
  std::printf("  FirstReady(oldest)            %8.2f us\n", first_old);
  std::printf("  PromoteDue (nothing due)      %8.2f us\n", promote);
  std::printf("  NextDue                       %8.2f us\n", next_due);
  std::printf("  choose + StartAttempt         %8.2f us (%d started, durability normal)\n", start,
              started);
  std::string cmd = std::string("rm -rf ") + dir;
  return std::system(cmd.c_str()) == 0 ? 0 : 1;
}
