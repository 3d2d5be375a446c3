// The delegated cgroup v2 subtree in which every attempt gets a cgroup of its own (SPEC 8): its
// limits (memory_max, cpu_weight, pids_max), its exact peak memory, and a kill that reaches every
// process at once. Every hook gets one too, so a hook is ended whole. Found and set up at start;
// the shim creates, fills and removes each cgroup, and tqd cleans up after a shim that died.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The tasks' cgroups under one delegated directory: DIR/task-ID-ATTEMPT, and the hooks'
/// DIR/hook-SEQ, beside DIR/supervisors when tqd itself ran in DIR.
class TaskCgroups {
 public:
  /// Sets up the tasks' cgroups as tqd.toml's `cgroup` says: "off" gives none; "auto" uses tqd's
  /// own cgroup when systemd delegated it (Delegate=yes) and none otherwise; a path must be a
  /// cgroup v2 directory tqd may write, or it is a kConfig error. tqd moves out of a directory
  /// it runs in (into DIR/supervisors), and the memory, cpu and pids controllers it offers are
  /// enabled for the tasks. nullopt when there is none.
  static Result<std::optional<TaskCgroups>> Open(const std::string& setting);

  /// The delegated directory the tasks' cgroups are in.
  const std::string& dir() const { return dir_; }
  /// The cgroup of attempt `attempt` of task `id`.
  std::string PathOf(TaskId id, int attempt) const;
  /// Whether the tasks' cgroups have `controller` ("memory", "cpu" or "pids").
  bool Has(std::string_view controller) const { return controllers_.count(controller) > 0; }
  /// True while any process is in that attempt's cgroup.
  bool Populated(TaskId id, int attempt) const;
  /// KILLs every process in that attempt's cgroup at once (cgroup.kill).
  void Kill(TaskId id, int attempt) const;
  /// Removes that attempt's cgroup when it is empty; true when it is gone (or never was), false
  /// while processes hold it.
  bool Remove(TaskId id, int attempt) const;
  /// Removes every empty task cgroup but those of `keep` (the attempts still running): what
  /// shims that died, or tasks kept running in the background, left behind.
  void Sweep(const std::set<std::pair<TaskId, int>>& keep) const;

  /// The cgroup of hook number `seq`.
  std::string HookPathOf(uint64_t seq) const;
  /// KILLs whatever is left in hook `seq`'s cgroup and removes it; true when it is gone (or
  /// never was), false while its processes are still leaving.
  bool EndHook(uint64_t seq) const;
  /// The numbers of the hooks' cgroups there are now.
  std::set<uint64_t> HookSeqs() const;

 private:
  std::string dir_;
  std::set<std::string, std::less<>> controllers_;
};

}  // namespace tq
