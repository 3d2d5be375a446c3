// Runs the commands that tell of a task's end (SPEC 7a): its hooks and the mail to `mailto`,
// each under a shim as the task's user (in a cgroup of its own where tasks have them), a few at
// once, stopped after hook_timeout, never retried.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/model/account.h"
#include "core/model/clock.h"
#include "core/model/resources.h"
#include "core/model/status.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"
#include "daemon/run/spawner.h"
#include "daemon/run/task_cgroups.h"

namespace tq {

/// One notification command to run.
struct HookLaunch {
  std::string what;    ///< for the log: "task 12 on_failure"
  uint32_t owner = 0;  ///< whose it is: the task's owner, for a fair share of the slots
  bool admin = false;  ///< its owner is an admin: it may take the slot kept for admins
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;                 ///< "": the shim's (/); / when the user cannot enter it
  std::string input;               ///< its standard input: the task's output, or the mail
  Resources resources;             ///< its task's nice, ionice and rlimits (no cgroup limits)
  std::optional<Account> account;  ///< whom it runs as; none: the daemon's own user
  std::string pam_service;         ///< with an account: its PAM session ("" none)
  std::string pam_dir;             ///< where that service's configuration is ("" /etc/pam.d)
};

/// What became of the hooks so far, for `tq stats`.
struct HookCounts {
  uint64_t succeeded = 0;  ///< exited 0
  uint64_t failed = 0;     ///< exited non-zero, killed, timed out or could not start
  uint64_t dropped = 0;    ///< never run: too many were waiting
};

/// Runs hooks under the shim with their files in one directory of the state. A hook still
/// running when tqd stops runs on, and the next tqd adopts it with its deadline; one not yet
/// started is lost (at most once).
class HookRunner {
 public:
  /// Hooks keep their files in `dir`; hook_timeout, kill_grace and output_max are read through
  /// `config` (which must outlive the runner) at each start. With `cgroups` (null: none) each
  /// hook runs in a cgroup of its own, ended whole when its shim dies.
  HookRunner(EventLoop& loop, const Clock& clock, Spawner& spawner, std::string dir,
             const ConfigPtr& config, const TaskCgroups* cgroups);
  ~HookRunner();
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  /// Makes the directory; hooks an earlier daemon left running are watched again until what was
  /// left of their hook_timeout, and everything else it left is removed (the processes in the
  /// cgroups of hooks whose shims died are killed).
  Status Open();
  /// Runs `hook` now, or once a slot is free for it: at most kMaxRunning run, at most
  /// kMaxRunningPerOwner of one owner, so a user whose hooks hang cannot hold back everyone
  /// else's, and kKeptForAdmins of the slots only for admins' hooks; waiting ones start in
  /// order. Past kMaxWaiting waiting, or kMaxWaitingPerOwner of its
  /// owner, or past kMaxWaitingBytes or kMaxWaitingBytesPerOwner of what they carry, it is
  /// dropped with a warning.
  void Run(HookLaunch hook);
  /// Hooks running now, and waiting to run.
  size_t running() const { return running_.size(); }
  size_t waiting() const { return waiting_.size(); }
  const HookCounts& counts() const { return counts_; }

  /// Hooks that run at once: enough for a burst of failures, few enough to leave the machine
  /// to the tasks.
  static constexpr size_t kMaxRunning = 8;
  /// Hooks that wait beyond those: a storm of ends is told of, a flood is not kept in memory.
  static constexpr size_t kMaxWaiting = 1000;
  /// Slots only admins' hooks may take, so users whose hooks hang never hold them all.
  static constexpr size_t kKeptForAdmins = 1;
  /// One owner's share: half the slots, and a fifth of the waiting room.
  static constexpr size_t kMaxRunningPerOwner = 4;
  static constexpr size_t kMaxWaitingPerOwner = 200;
  /// What waiting hooks may carry (environments, input): each holds its task's environment (up
  /// to 1 MiB) and output, so a count alone would let one user fill the daemon's memory.
  static constexpr size_t kMaxWaitingBytes = 64u << 20;
  static constexpr size_t kMaxWaitingBytesPerOwner = 16u << 20;

 private:
  /// One hook under its shim.
  struct Running {
    std::string what;
    uint32_t owner = 0;
    int shim_pid = 0;
    int pidfd = -1;
    bool timed_out = false;
    EventLoop::TimerId timeout_timer = 0;
    EventLoop::TimerId kill_timer = 0;
  };

  /// Starts `hook` as number `seq`; false (logged, its files removed) when it cannot start.
  bool Start(uint64_t seq, const HookLaunch& hook);
  /// Watches again hook `seq`, which an earlier daemon started and whose shim still runs.
  bool Adopt(uint64_t seq);
  /// Stops running hook `seq` (TERM, then KILL after kill_grace) in `after_ms`.
  void ArmTimeout(uint64_t seq, int64_t after_ms);
  void OnExit(uint64_t seq);
  /// Starts waiting hooks while there is room.
  void StartWaiting();
  /// How many hooks of `owner` run now.
  size_t RunningOf(uint32_t owner) const;
  std::string PathOf(uint64_t seq, const char* suffix) const;
  void RemoveFiles(uint64_t seq) const;
  /// Ends what is left in hook `seq`'s cgroup and removes it, trying again later while its
  /// processes are still leaving.
  void EndCgroup(uint64_t seq);

  EventLoop& loop_;
  const Clock& clock_;
  Spawner& spawner_;
  std::string dir_;
  const ConfigPtr& config_;
  const TaskCgroups* cgroups_;
  std::set<uint64_t> ending_;  ///< hooks whose cgroups still held processes when they ended
  EventLoop::TimerId ending_timer_ = 0;
  uint64_t next_seq_ = 1;
  std::map<uint64_t, Running> running_;
  std::deque<HookLaunch> waiting_;
  HookCounts counts_;
  LogThrottle dropped_log_;  ///< a flood of dropped hooks is said every 10 s, not per hook
};

}  // namespace tq
