// Fills a store with N delayed tasks for bench/scale.sh: a day and more in the future, owned by
// the user running it, spread over three queues and five priorities, 10,000 per transaction.
// Usage: tq-bench-fill STATE_DIR/tq.db N
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/store/sqlite/open.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tq-bench-fill STATE_DIR/tq.db N\n");
    return 2;
  }
  const long n = std::atol(argv[2]);
  auto store = tq::OpenSqliteStore(argv[1], /*durability_full=*/false);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  const struct passwd* pw = getpwuid(getuid());
  const tq::Owner owner{getuid(), getgid(), pw != nullptr ? pw->pw_name : "bench"};
  const tq::WallMs now = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const char* queues[] = {"default", "batch", "nightly"};
  std::vector<tq::TaskSpec> chunk;
  for (long i = 0; i < n;) {
    chunk.clear();
    for (; i < n && chunk.size() < 10000; ++i) {
      tq::TaskSpec spec;
      spec.argv = {"true"};
      spec.priority = static_cast<int>(i % 5) + 1;
      spec.queue = queues[i % 3];
      spec.not_before = now + 86'400'000 + i;  // a day from now, and later
      chunk.push_back(std::move(spec));
    }
    auto ids = (*store)->SubmitBatch(owner, chunk, now);
    if (!ids.ok()) {
      std::fprintf(stderr, "%s\n", ids.status().message().c_str());
      return 1;
    }
  }
  return 0;
}
