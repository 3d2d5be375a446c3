// The daemon: wires the store, the server, the executor and the chooser together on one event
// loop, and owns the rules that connect them (who sees what, when the chooser runs).
#pragma once

#include <memory>
#include <optional>
#include <random>
#include <string>

#include "core/clock.h"
#include "core/config.h"
#include "core/store.h"
#include "daemon/event_loop.h"
#include "daemon/executor.h"
#include "daemon/server.h"
#include "daemon/spawner.h"
#include "daemon/state_lock.h"
#include "daemon/task_files.h"
#include "daemon/waiters.h"

namespace tq {

/// Where the daemon lives and how it behaves.
struct DaemonOptions {
  std::string socket_path;
  unsigned socket_mode = 0600;  ///< 0666 in system mode: access is decided per request
  std::string state_dir;
  std::string shim_path;
  Config config;
};

/// One tqd. Construct, Start, then Run until a stop signal.
class Daemon {
 public:
  Daemon(DaemonOptions options, const Clock& clock);
  ~Daemon();

  /// Takes the state lock, opens the store and the shim, re-attaches to running attempts and
  /// starts listening. Any failure names what and why.
  Status Start();
  /// Serves until SIGTERM or SIGINT; running tasks are left to their supervisors.
  void Run();

  // For the request handlers.
  Store& store() { return *store_; }
  const Clock& clock() const { return clock_; }
  Server& server() { return *server_; }
  Waiters& waiters() { return *waiters_; }
  Executor& executor() { return *executor_; }
  const TaskFiles& files() const { return files_; }

  /// The task if `peer` may see it (its owner, or root); otherwise kNotFound, so ids of other
  /// users cannot be probed.
  Result<Task> GetVisible(const Owner& peer, TaskId id);
  /// True when `peer` sees every user's tasks.
  bool SeesAll(const Owner& peer) const { return peer.uid == 0; }
  /// Runs the chooser once the current batch of events is handled.
  void ScheduleDispatch();
  /// Ends a pending task with `state`/`reason` and tells its waiters.
  void EndPending(TaskId id, TaskState state, TaskReason reason);

 private:
  void OnFrame(ConnId conn, const Owner& peer, const std::string& payload);
  void OnSignal();
  void Dispatch();
  bool StartTask(TaskId id);
  void OnAttemptFinished(TaskId id, int attempt, const AttemptOutcome& outcome);
  void NotifyTerminal(TaskId id);
  void ArmDueTimer();
  int QueueCap(const std::string& queue) const;

  DaemonOptions options_;
  const Clock& clock_;
  TaskFiles files_;
  EventLoop loop_;
  StateLock lock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ShimSpawner> spawner_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Waiters> waiters_;
  std::unique_ptr<Executor> executor_;
  std::mt19937_64 rng_;
  int signal_fd_ = -1;
  EventLoop::TimerId due_timer_ = 0;
};

}  // namespace tq
