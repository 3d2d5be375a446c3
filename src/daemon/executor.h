// Runs attempts under their supervisors: starts the shim, watches it through a pidfd, signals
// it for cancel and timeout, and turns its status record into an outcome.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/store.h"
#include "core/task.h"
#include "daemon/event_loop.h"
#include "daemon/spawner.h"
#include "daemon/task_files.h"

namespace tq {

/// Everything needed to start one attempt.
struct Launch {
  TaskId id = 0;
  int attempt = 0;
  std::string queue;
  std::vector<std::string> argv;  ///< the final argv (already /bin/sh -c for shell tasks)
  std::vector<std::string> env;   ///< the task's full environment
  std::string cwd;
  bool has_stdin = false;  ///< the payload was written to TaskFiles::Stdin
  int64_t timeout_ms = 0;
};

/// Settings the executor needs from the daemon's configuration.
struct ExecutorOptions {
  int64_t output_max = 8 << 20;
  int64_t kill_grace_ms = 10000;
};

/// Supervises running attempts. Lives on the event loop's thread.
class Executor {
 public:
  /// Called once per attempt when its supervisor is gone, with what it reported.
  using FinishedCallback = std::function<void(TaskId, int attempt, const AttemptOutcome&)>;

  Executor(EventLoop& loop, const Clock& clock, Spawner& spawner, TaskFiles files,
           ExecutorOptions options, FinishedCallback on_finished);
  ~Executor();

  /// Starts the supervisor for `launch`; returns the shim's pid, or why it could not start.
  Result<int> Start(const Launch& launch);

  /// Takes over an attempt started by an earlier daemon: re-attaches to a live shim, collects
  /// a finished one (the callback runs later on the loop), or reports the attempt lost.
  void Adopt(const RunningAttempt& attempt);

  /// Ends a running attempt: TERM to all its processes now, KILL after the grace. `why` is
  /// kCancelled or kTimeout and becomes the attempt's reason. False if `id` is not running.
  bool Terminate(TaskId id, AttemptReason why);

  /// Running attempts in `queue`, or in all queues.
  int RunningCount(const std::optional<std::string>& queue) const;

 private:
  /// One supervised attempt.
  struct Running {
    TaskId id = 0;
    int attempt = 0;
    std::string queue;
    int shim_pid = 0;
    int pidfd = -1;
    bool our_child = false;
    AttemptReason ending = AttemptReason::kNone;  ///< why we asked it to stop, if we did
    EventLoop::TimerId timeout_timer = 0;
    EventLoop::TimerId kill_timer = 0;
  };

  void Watch(Running r);
  /// Ends the attempt with reason timeout `after_ms` from now (monotonic).
  void ArmTimeout(Running& r, int64_t after_ms);
  void OnShimExit(TaskId id);
  void Signal(const Running& r, int sig) const;
  AttemptOutcome Collect(TaskId id, const Running& r) const;

  EventLoop& loop_;
  const Clock& clock_;
  Spawner& spawner_;
  TaskFiles files_;
  ExecutorOptions options_;
  FinishedCallback on_finished_;
  std::map<TaskId, Running> running_;
  std::string boot_id_;  ///< this boot, to tell a shim of this boot from a pid reused since
};

}  // namespace tq
