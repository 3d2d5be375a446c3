// Claims across hosts on one PostgreSQL store, without processes (SPEC 12): fills a fresh store
// with N ready tasks, then HOSTS processes, each joined as a host of its own with its own
// connection, claim (choose + StartAttempt in WriteTogether) and complete (FinishAttempt) tasks
// until none is ready. Prints claims per second over all hosts, and how often a chosen task was
// taken by another host first. Usage: tq-bench-claims CONNINFO [HOSTS=1] [N=5000] (bench/claims.sh
// starts a PostgreSQL)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/store/postgres/open.h"

namespace {

constexpr tq::WallMs kNow = 1'800'000'000'000;

// Opens the store at `conninfo`, printing why not on failure.
std::unique_ptr<tq::Store> Open(const std::string& conninfo) {
  auto store = tq::OpenPostgresStore(conninfo, /*durability_full=*/true);
  if (!store.ok()) {
    std::fprintf(stderr, "tq-bench-claims: %s\n", store.status().message().c_str());
    return nullptr;
  }
  return std::move(*store);
}

// One host's loop: claims and completes ready tasks until none is left. Writes "claims lost" to
// `out` (a pipe to the parent); exit status 0 on success.
int Host(const std::string& conninfo, int index, int out) {
  std::unique_ptr<tq::Store> store = Open(conninfo);
  if (!store) return 1;
  if (tq::Status s = store->JoinHost("bench-" + std::to_string(index), "bench", 1000, kNow);
      !s.ok()) {
    std::fprintf(stderr, "tq-bench-claims: join: %s\n", s.message().c_str());
    return 1;
  }
  long claims = 0, lost = 0;
  for (;;) {
    // A claim as tqd makes one: its own transaction, side by side with the other hosts' claims,
    // passing over the tasks they hold.
    tq::Result<std::optional<tq::Candidate>> chosen{std::optional<tq::Candidate>()};
    tq::Result<std::optional<int>> attempt{std::optional<int>()};
    tq::Status claimed = store->WriteTogether([&] {
      chosen = store->FirstReady("default", tq::ReadyOrder::kHighestPriority);
      if (!chosen.ok()) return chosen.status();
      if (chosen->has_value()) attempt = store->StartAttempt((*chosen)->id, kNow, {});
      return attempt.status();
    });
    if (!claimed.ok()) {
      std::fprintf(stderr, "tq-bench-claims: claim: %s\n", claimed.message().c_str());
      return 1;
    }
    if (!chosen->has_value()) break;
    if (!attempt->has_value()) {  // another host took it between the choice and the claim
      ++lost;
      continue;
    }
    tq::AttemptOutcome exited;
    exited.ended = kNow;
    exited.exit_code = 0;
    if (!store
             ->FinishAttempt((*chosen)->id, **attempt, exited, tq::TaskState::kSucceeded,
                             tq::TaskReason::kExit)
             .ok())
      return 1;
    ++claims;
  }
  const std::string line = std::to_string(claims) + " " + std::to_string(lost) + "\n";
  return write(out, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tq-bench-claims CONNINFO [HOSTS=1] [N=5000]\n");
    return 2;
  }
  const std::string conninfo = argv[1];
  const int hosts = argc > 2 ? std::atoi(argv[2]) : 1;
  const long n = argc > 3 ? std::atol(argv[3]) : 5000;
  {
    std::unique_ptr<tq::Store> store = Open(conninfo);
    if (!store) return 1;
    tq::TaskSpec spec;
    spec.argv = {"true"};
    for (long done = 0; done < n; done += 1000) {
      const std::vector<tq::TaskSpec> batch(std::min(1000L, n - done), spec);
      if (!store->SubmitBatch(tq::Owner{1000, 1000, "bench"}, batch, kNow).ok()) return 1;
    }
  }
  int pipes[2];
  if (pipe(pipes) != 0) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> children;
  for (int i = 0; i < hosts; ++i) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) _exit(Host(conninfo, i, pipes[1]));
    children.push_back(pid);
  }
  close(pipes[1]);
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && ok;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long claims = 0, lost = 0;
  FILE* in = fdopen(pipes[0], "r");
  for (long c = 0, l = 0; in && std::fscanf(in, "%ld %ld", &c, &l) == 2;) claims += c, lost += l;
  if (!ok) {
    std::fprintf(stderr, "tq-bench-claims: a host failed\n");
    return 1;
  }
  std::printf(
      "store-only, %d host%s: %ld claims in %.2f s: %.0f claims/s (%ld taken first by "
      "another host)\n",
      hosts, hosts == 1 ? "" : "s", claims, s, claims / s, lost);
  return claims == n ? 0 : 1;
}
