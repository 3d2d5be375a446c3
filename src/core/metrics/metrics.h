// What tqd counts about itself since it started, and the snapshot of it (with the store's
// counts) that `tq stats` receives and the Prometheus exposition is made from (SPEC 11).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/metrics/histogram.h"
#include "core/metrics/minute_history.h"
#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// The counters and histograms tqd keeps in memory from its start (a restart resets them, as
/// Prometheus expects of a counter).
struct DaemonCounters {
  /// Tasks created or made pending again, by source: "submit" (submit and batch requests),
  /// "job" (a job's firing or `tq jobs run`), "retry" (`tq retry`).
  std::map<std::string, uint64_t> submitted;
  std::map<std::string, uint64_t> finished;  ///< tasks that reached a terminal state, by it
  /// Stages of tasks with stages that finished, by how (SPEC 13): succeeded, failed, cancelled.
  std::map<std::string, uint64_t> stages_finished;
  std::map<int, uint64_t> picks;                 ///< the chooser's picks, by the task's priority
  std::map<std::string, uint64_t> cron_firings;  ///< job firings by result: "run" or "overlap"
  uint64_t cron_misfires = 0;                    ///< missed firings the misfire policy did not run
  std::map<std::string, uint64_t> hooks;  ///< hooks and mails by result: succeeded, failed, dropped
  uint64_t overdue_alerts = 0;            ///< alerts of jobs' dead man's switches
  Histogram queue_wait{DurationBounds()};  ///< from ready (created, due or retry) to start, s
  Histogram run_time{DurationBounds()};    ///< of each attempt, s
  Histogram commit{CommitBounds()};        ///< of each store commit, its sync included, s
};

/// How many tasks one queue holds in one state.
struct QueueStateCount {
  std::string queue;
  std::string state;  ///< a state's name: pending, running, succeeded, failed, ...
  int64_t count = 0;
};

/// The queue label under which the queues tqd.toml does not name are counted together (no queue
/// name has parentheses, so it is never a queue's own).
constexpr const char* kOtherQueuesLabel = "(other)";

/// How many of one resource's units are held and free (SPEC 14).
struct UnitCounts {
  int64_t in_use = 0;
  int64_t free = 0;
};

/// One host of the store (SPEC 12) as the answering host sees it, as `tq hosts` shows it.
struct HostCounts {
  std::string state;             ///< live, silent, stopped or fenced
  int64_t running = 0;           ///< the attempts the store holds as running on it
  int64_t max_running = 0;       ///< its max_running
  int64_t heartbeat_age_ms = 0;  ///< how long ago its last heartbeat was
};

/// Everything `tq stats` shows: the store's counts now and the daemon's counters.
struct MetricsSnapshot {
  WallMs started = 0;                      ///< when this tqd started
  std::vector<QueueStateCount> tasks;      ///< pairs with no task are absent
  std::map<std::string, int64_t> running;  ///< running attempts per queue
  int64_t store_bytes = 0;                 ///< the database's files (WAL included)
  /// Each job with expect_success_within: whether it is overdue now (SPEC 7a).
  std::map<std::string, bool> jobs_overdue;
  std::map<std::string, UnitCounts> units;  ///< each resource of [resources]
  std::map<std::string, HostCounts> hosts;  ///< each host of the store, by name
  DaemonCounters counters;
  std::vector<MinuteSample> history;  ///< the last hour, a sample a minute (MinuteHistory)
};

/// The totals of `s` as one sample of the history, taken at `at`.
MinuteSample SampleOf(const MetricsSnapshot& s, WallMs at);

/// The snapshot as the "stats" response carries it.
nlohmann::json MetricsToJson(const MetricsSnapshot& s);
/// A snapshot read back from MetricsToJson's form; kInvalid naming what is wrong.
Result<MetricsSnapshot> MetricsFromJson(const nlohmann::json& j);

}  // namespace tq
