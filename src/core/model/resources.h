// How a task's processes run (SPEC 8): their scheduling priority, I/O class and resource
// limits, set per queue (tqd.toml) and per job (job files), a job's own over its queue's.
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

  /// These settings with every one `over` sets in its place.
  Resources With(const Resources& over) const;
  bool operator==(const Resources&) const = default;
};

/// The names of the settings as tqd.toml and job files spell them.
constexpr const char* kResourceKeys = "nice, ionice, nofile, nproc, core";

/// The kernel's I/O priority (ioprio_set(2)'s, class << 13 | level) of an `ionice` value:
/// "idle", "best-effort" (level 4), "realtime" (level 4), or either of the last two with ":0"
/// (first) to ":7"; nullopt for anything else.
std::optional<int> IoPriority(std::string_view ionice);

}  // namespace tq
