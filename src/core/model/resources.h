// How a task's processes run (SPEC 8): their scheduling priority, I/O class, resource limits
// and the limits of their cgroup, set per queue (tqd.toml) and per job (job files), a job's own
// over its queue's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tq {

/// The settings; an unset one leaves what the task would have had.
struct Resources {
  std::optional<int> nice;            ///< -20 (first) to 19 (last)
  std::optional<std::string> ionice;  ///< idle, best-effort or realtime, optionally :0 to :7
  std::optional<int64_t> nofile;      ///< RLIMIT_NOFILE, soft and hard
  std::optional<int64_t> nproc;       ///< RLIMIT_NPROC, soft and hard (the user's processes)
  std::optional<int64_t> core;        ///< RLIMIT_CORE in bytes, soft and hard; 0: no core dumps
  std::optional<int64_t> memory_max;  ///< the task cgroup's memory.max, bytes
  std::optional<int> cpu_weight;      ///< the task cgroup's cpu.weight, 1 to 10000 (100: even)
  std::optional<int64_t> pids_max;    ///< the task cgroup's pids.max, processes and threads

  /// These settings with every one `over` sets in its place.
  Resources With(const Resources& over) const;
  /// These settings with those of `over` (a user's own job) that ask for no more than they
  /// give: a higher nice, a lower I/O priority, a smaller memory_max, pids_max or cpu_weight.
  /// The limits nofile, nproc and core stay these.
  Resources Narrowed(const Resources& over) const;
  bool operator==(const Resources&) const = default;
};

/// The names of the settings as tqd.toml and job files spell them.
constexpr const char* kResourceKeys =
    "nice, ionice, nofile, nproc, core, memory_max, cpu_weight, pids_max";

/// cpu.weight's default: every cgroup's even share.
constexpr int kEvenCpuWeight = 100;

/// True when `key` is one of kResourceKeys.
bool IsResourceKey(std::string_view key);

/// The kernel's I/O priority (ioprio_set(2)'s, class << 13 | level) of an `ionice` value:
/// "idle", "best-effort" (level 4), "realtime" (level 4), or either of the last two with ":0"
/// (first) to ":7"; nullopt for anything else.
std::optional<int> IoPriority(std::string_view ionice);

}  // namespace tq
