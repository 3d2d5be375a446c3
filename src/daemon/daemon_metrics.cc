// What the daemon reports of itself (SPEC 11): Daemon::Metrics, the store's counts now with what
// the daemon counted since its start, and Daemon::ServiceStatus, systemd's status line.
#include <sys/stat.h>

#include <map>
#include <utility>

#include "daemon/daemon.h"

namespace tq {

namespace {

// The size of `path`, 0 when it does not exist.
int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

Result<MetricsSnapshot> Daemon::Metrics() {
  MetricsSnapshot s;
  s.started = started_;
  // Queues tqd.toml does not name are counted together: any user may make one, and every user
  // reads the metrics, so their names would leak and their series grow without bound.
  const auto label = [&](const std::string& queue) {
    return queue == TaskSpec().queue || options_.config->queues.count(queue) ? queue
                                                                             : kOtherQueuesLabel;
  };
  auto counts = store_->TaskCounts();
  if (!counts.ok()) return counts.status();
  std::map<std::pair<std::string, TaskState>, int64_t> tasks;
  for (const TaskCount& c : *counts) tasks[{label(c.queue), c.state}] += c.count;
  for (const auto& [key, n] : tasks) s.tasks.push_back({key.first, StateName(key.second), n});
  auto running = store_->RunningCounts();
  if (!running.ok()) return running.status();
  for (const auto& [queue, n] : *running) s.running[label(queue)] += n;
  const std::string db = options_.state_dir + "/tq.db";
  s.store_bytes = FileBytes(db) + FileBytes(db + "-wal");
  s.counters = counters_;
  if (hooks_) {
    const HookCounts& h = hooks_->counts();
    s.counters.hooks = {{"succeeded", h.succeeded}, {"failed", h.failed}, {"dropped", h.dropped}};
  }
  // Only the jobs of the job files: every user may read the metrics, and a user's own job
  // (USER/NAME) would name that user.
  if (overdue_)
    for (const auto& [job, late] : overdue_->overdue())
      if (job.find('/') == std::string::npos) s.jobs_overdue[job] = late;
  return s;
}

std::optional<std::string> Daemon::ServiceStatus() {
  auto running = store_->RunningCounts();
  auto counts = store_->TaskCounts();
  if (!running.ok() || !counts.ok()) return std::nullopt;
  int64_t attempts = 0, pending = 0;
  for (const auto& [queue, n] : *running) attempts += n;
  for (const TaskCount& c : *counts)
    if (c.state == TaskState::kPending) pending += c.count;
  return ServiceStatusLine(attempts, pending);
}

}  // namespace tq
