// The SQLite implementation of Store: one connection in WAL mode, owned by the daemon's single
// event-loop thread; statements are prepared once at open and reused.
//
// Layout (see migrations.cc): tasks carry a `ready` flag and a `deps_left` counter kept up to
// date by Insert, PromoteDue, StartAttempt, FinishAttempt and EndPending, so FirstReady,
// PromoteDue and NextDue each walk one partial index. Environments are stored once per distinct
// content in `envs`, keyed by a stable digest. Byte strings are BLOBs and round-trip exactly.
//
// Departures from the interface's defaults, by design:
// - List leaves `attempts`, `spec.env` and `spec.stdin_data` empty (they can be large); use Get
//   for the whole task.
// - Duplicate ids in spec.after are stored once; Get returns the distinct ids in submit order.
// - FinishAttempt accepts only a terminal final_state (succeeded, failed, cancelled); putting a
//   task back to pending for a retry needs its own method (with the new not_before).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sqlite_db.h"
#include "core/store.h"

namespace tq {

/// The SQLite store. Never throws; every SQLite failure is Status::Internal("store: <what> failed:
/// <sqlite message>"), and no message carries environment values.
class SqliteStore : public Store {
 public:
  /// Opens, creating or migrating, the store at `path` (":memory:" for tests). With
  /// `durability_full` each commit is fsynced (synchronous=FULL), else synchronous=NORMAL.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path, bool durability_full);

  ~SqliteStore() override;

  Result<TaskId> Insert(const Owner& owner, const TaskSpec& spec, WallMs now) override;
  Result<Task> Get(TaskId id) override;
  Result<std::vector<Task>> List(const ListFilter& filter) override;
  Result<std::vector<std::string>> Queues() override;
  Result<std::optional<Candidate>> FirstReady(const std::string& queue, ReadyOrder order) override;
  Result<int> PromoteDue(WallMs now) override;
  Result<std::optional<WallMs>> NextDue() override;
  Result<std::optional<int>> StartAttempt(TaskId id, WallMs now) override;
  Status SetAttemptPids(TaskId id, int attempt, int pid, int shim_pid) override;
  Status FinishAttempt(TaskId id, int attempt, const AttemptOutcome& outcome, TaskState final_state,
                       TaskReason reason) override;
  Result<bool> EndPending(TaskId id, TaskState final_state, TaskReason reason, WallMs now) override;
  Result<std::vector<RunningAttempt>> RunningAttempts() override;
  Result<int> CountRunning(const std::optional<std::string>& queue) override;

  /// The hot queries whose plans must stay on their partial indexes.
  enum class PlannedQuery { kFirstReadyByPriority, kFirstReadyOldest, kPromoteDue, kNextDue };
  /// SQLite's EXPLAIN QUERY PLAN for `query`, one line per step (for tests).
  Result<std::string> QueryPlan(PlannedQuery query);

 private:
  struct Statements;

  explicit SqliteStore(sqlite::Db db);
  Status Prepare();
  /// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back when it or the commit fails.
  template <typename Body>
  Status Write(Body&& body);

  Status CheckDeps(const Owner& owner, const std::vector<TaskId>& after, int* deps_left);
  Result<std::string> StoreEnv(const std::string& data);
  Status InsertRows(TaskId id, const TaskSpec& spec, const std::vector<TaskId>& deps);
  Status LoadLists(Task& task, bool with_attempts);
  Result<sqlite::Stmt*> ListStatement(const ListFilter& filter);
  Status ReleaseDependents(TaskId id, WallMs now);

  sqlite::Db db_;  // declared first: destroyed after the statements
  std::unique_ptr<Statements> st_;
};

}  // namespace tq
