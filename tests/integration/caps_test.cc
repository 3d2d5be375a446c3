// The caps of SPEC 4 hold at all times, as the tasks themselves observe it: every task counts
// itself in and out under a lock and records how many were running at once.
#include <doctest/doctest.h>

#include <sstream>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A task body: under flock, bump the global and the per-queue counters and append both to the
// queue's sample file; sleep a little (task work); then count itself out.
const char* kQueueCounter = R"(
d=$1; q=$2
exec 9>>"$d/lock"
flock 9
all=$(( $(cat "$d/all") + 1 )); echo $all > "$d/all"
n=$(( $(cat "$d/q.$q") + 1 )); echo $n > "$d/q.$q"
echo "$all $n" >> "$d/samples.$q"
flock -u 9
sleep 0.2
flock 9
echo $(( $(cat "$d/all") - 1 )) > "$d/all"
echo $(( $(cat "$d/q.$q") - 1 )) > "$d/q.$q"
flock -u 9
)";

// The largest first and second number over the lines of a sample file, and the line count.
struct Peaks {
  int all = 0, queue = 0, samples = 0;
};
Peaks ReadPeaks(const std::string& path) {
  Peaks p;
  std::istringstream in(ReadFile(path));
  int all = 0, queue = 0;
  while (in >> all >> queue) {
    p.all = std::max(p.all, all);
    p.queue = std::max(p.queue, queue);
    ++p.samples;
  }
  return p;
}
}  // namespace

TEST_CASE("max_running and a queue's concurrency are never exceeded") {
  TestDaemon d("max_running = 3\n[queues.slow]\nconcurrency = 1\n");
  TQ_LOG_ON_FAILURE(d);
  WriteFile(d.dir() + "/counter.sh", kQueueCounter);
  for (const char* f : {"all", "q.default", "q.slow"}) WriteFile(d.dir() + "/" + f, "0\n");

  std::vector<std::string> ids;
  for (int i = 0; i < 16; ++i) {  // interleaved, so both queues compete for the global slots
    const std::string queue = i % 4 == 3 ? "slow" : "default";
    ids.push_back(
        Submit(d, {"--queue", queue, "--", "sh", d.dir() + "/counter.sh", d.dir(), queue}));
  }
  std::vector<std::string> wait = {"wait"};
  wait.insert(wait.end(), ids.begin(), ids.end());
  const RunResult r = Tq(d, wait);
  CHECK_MESSAGE(r.exit_code == 0, r.err);

  const Peaks def = ReadPeaks(d.dir() + "/samples.default");
  const Peaks slow = ReadPeaks(d.dir() + "/samples.slow");
  CHECK(def.samples == 12);
  CHECK(slow.samples == 4);
  CHECK(def.all <= 3);
  CHECK(slow.all <= 3);
  CHECK(slow.queue <= 1);
  CHECK(def.all >= 1);
  for (const auto& id : ids) CHECK(TaskState(d, id) == "succeeded");
  CHECK(ReadFile(d.dir() + "/all") == "0\n");
}
