#include "daemon/host/store_metrics.h"

#include <sys/stat.h>

#include <map>
#include <utility>

#include "core/policy/unit_grant.h"
#include "daemon/host/host_state.h"
#include "daemon/host/service_manager.h"

namespace tq {

namespace {

// The size of `path`, 0 when it does not exist.
int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

bool CountedApart(const Config& config, const std::string& queue) {
  return queue == TaskSpec().queue || config.queues.count(queue) > 0;
}

Result<MetricsSnapshot> StoreMetrics(Store& store, const Config& config, const std::string& db_path,
                                     const std::string& self, WallMs now) {
  MetricsSnapshot s;
  const auto label = [&](const std::string& queue) {
    return CountedApart(config, queue) ? queue : kOtherQueuesLabel;
  };
  auto counts = store.TaskCounts();
  if (!counts.ok()) return counts.status();
  std::map<std::pair<std::string, TaskState>, int64_t> tasks;
  for (const TaskCount& c : *counts) tasks[{label(c.queue), c.state}] += c.count;
  for (const auto& [key, n] : tasks) s.tasks.push_back({key.first, StateName(key.second), n});
  auto running = store.RunningCounts();
  if (!running.ok()) return running.status();
  for (const auto& [queue, n] : *running) s.running[label(queue)] += n;
  s.store_bytes = FileBytes(db_path) + FileBytes(db_path + "-wal");
  auto hosts = store.Hosts(now);
  if (!hosts.ok()) return hosts.status();
  for (const HostRecord& h : *hosts) {
    const int64_t age_ms = HeartbeatAgeMs(h);
    s.hosts[h.name] = {HostStateName(h, self, config.Shared(), age_ms, config.host_lease_ms),
                       h.running, h.max_running, age_ms};
  }
  if (config.unit_pools.empty()) return s;
  auto holders = store.HeldUnits();
  if (!holders.ok()) return holders.status();
  const UnitsHeld held_now = UnitsHeldBy(*holders);
  const UnitsHeld* held = &held_now;
  for (const auto& [resource, units] : config.unit_pools) {
    UnitCounts& n = s.units[resource];
    auto it = held->find(resource);
    for (const std::string& unit : units) {
      const bool taken = it != held->end() && it->second.count(unit);
      ++(taken ? n.in_use : n.free);
    }
  }
  return s;
}

std::optional<std::string> ServiceStatusOf(Store& store) {
  auto running = store.RunningCounts();
  auto counts = store.TaskCounts();
  if (!running.ok() || !counts.ok()) return std::nullopt;
  int64_t attempts = 0, pending = 0;
  for (const auto& [queue, n] : *running) attempts += n;
  for (const TaskCount& c : *counts)
    if (c.state == TaskState::kPending) pending += c.count;
  return ServiceStatusLine(attempts, pending);
}

}  // namespace tq
