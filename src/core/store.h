// The persistent store of tasks and attempts, as an interface: SQLite today, other backends
// later. Every method is called from the daemon's single event-loop thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "core/task.h"

namespace tq {

/// Which end of the ready set the chooser wants (SPEC 4).
enum class ReadyOrder {
  kHighestPriority,  ///< lowest priority number, oldest first within it
  kOldest,           ///< oldest of any priority
};

/// A ready task as the chooser sees it.
struct Candidate {
  TaskId id = 0;
  int priority = kDefaultPriority;
};

/// Filters for List; empty fields match everything.
struct ListFilter {
  std::optional<uint32_t> owner_uid;  ///< nullopt: every owner (root, admins)
  std::optional<TaskState> state;
  std::optional<std::string> queue;
  std::optional<std::string> label;
  int limit = 100;  ///< newest first
};

/// What the supervisor reported for a finished attempt.
struct AttemptOutcome {
  WallMs ended = 0;
  int pid = 0;  ///< the task's process as the supervisor saw it (0 if never started)
  int exit_code = -1;
  int signal = 0;
  AttemptReason reason = AttemptReason::kExit;
  int64_t user_cpu_us = 0;
  int64_t system_cpu_us = 0;
  int64_t max_rss_kb = 0;
};

/// An attempt the store believes is running, for reconciliation at start-up.
struct RunningAttempt {
  TaskId task_id = 0;
  int number = 0;
  int pid = 0;
  int shim_pid = 0;
  std::string queue;
};

/// The store. Methods return a Status naming the problem on I/O or constraint failure; they
/// never throw. Writes are durable when they return (per the configured durability).
class Store {
 public:
  virtual ~Store() = default;

  /// Inserts a new pending task for `owner` created at `now`. Each id in spec.after must name a
  /// task of the same owner (else kNotFound naming the id). The task is ready at once when it has
  /// no unfinished dependency and not_before <= now.
  virtual Result<TaskId> Insert(const Owner& owner, const TaskSpec& spec, WallMs now) = 0;

  /// The task with its attempts, or kNotFound.
  virtual Result<Task> Get(TaskId id) = 0;

  /// Tasks matching `filter`, newest first, without their attempt lists.
  virtual Result<std::vector<Task>> List(const ListFilter& filter) = 0;

  /// Names of every queue that has ever held a task.
  virtual Result<std::vector<std::string>> Queues() = 0;

  /// The first ready task of `queue` in `order`, or nullopt when none is ready. O(log n).
  virtual Result<std::optional<Candidate>> FirstReady(const std::string& queue,
                                                      ReadyOrder order) = 0;

  /// Makes pending tasks whose not_before has come (and whose dependencies are done) ready;
  /// returns how many became ready.
  virtual Result<int> PromoteDue(WallMs now) = 0;

  /// The earliest not_before among pending tasks that wait only for time, if any.
  virtual Result<std::optional<WallMs>> NextDue() = 0;

  /// Moves a ready pending task to running and opens attempt number attempt_count+1, in one
  /// conditional update; nullopt if the task was no longer ready (it never starts twice).
  virtual Result<std::optional<int>> StartAttempt(TaskId id, WallMs now) = 0;

  /// Records the pids of a started attempt.
  virtual Status SetAttemptPids(TaskId id, int attempt, int pid, int shim_pid) = 0;

  /// Closes a running attempt with `outcome` (keeping its pid when outcome.pid is 0) and moves
  /// the task to `final_state` with `reason`.
  /// Dependents of a task that succeeded become ready when nothing else holds them.
  virtual Status FinishAttempt(TaskId id, int attempt, const AttemptOutcome& outcome,
                               TaskState final_state, TaskReason reason) = 0;

  /// Moves a pending task to a terminal state (cancelled or failed) with `reason`; false if it
  /// was not pending.
  virtual Result<bool> EndPending(TaskId id, TaskState final_state, TaskReason reason,
                                  WallMs now) = 0;

  /// Every attempt the store holds as running.
  virtual Result<std::vector<RunningAttempt>> RunningAttempts() = 0;

  /// How many tasks are running in each queue, as the store holds it.
  virtual Result<int> CountRunning(const std::optional<std::string>& queue) = 0;
};

/// Opens (creating or migrating) the SQLite store at `path`. `durability_full` selects
/// synchronous=FULL (the default) over NORMAL.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, bool durability_full);

}  // namespace tq
