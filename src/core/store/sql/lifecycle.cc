// A task's life in the SQL store after submit: the ready set the chooser draws from, starting
// and closing attempts, retries (back to pending with a later not_before), ending pending tasks,
// `tq retry`, and the failure of dependents: a task that ends failed or cancelled fails every
// pending task waiting for it, transitively, in the same transaction.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/policy/attempt_end.h"
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

namespace {
using sql::TaskName;

// An attempt's units as the attempts table keeps them; nullopt for none.
std::optional<std::string> UnitsText(const UnitGrant& units) {
  return units.empty() ? std::nullopt : std::optional<std::string>(EncodeUnitGrant(units));
}
}  // namespace

// ---- the ready set ----

Result<std::vector<uint32_t>> SqlStore::ReadyOwners(const std::string& queue) {
  std::vector<uint32_t> owners;
  sql::Query q(st_->ready_owners);
  q.BindText(queue);
  Status s = q.ForEach([&] { owners.push_back(static_cast<uint32_t>(q.Int(0))); });
  if (!s.ok()) return s;
  return owners;
}

Result<std::optional<Candidate>> SqlStore::FirstReady(const std::string& queue, uint32_t owner_uid,
                                                      ReadyOrder order,
                                                      const std::vector<std::string>& unfit,
                                                      const ReadyPlaces& places) {
  const bool high = order == ReadyOrder::kHighestPriority;
  if (!places.unplaced && places.host.empty()) return std::optional<Candidate>();
  // Placed on no host, on this one, or either (one statement); without requests to pass over,
  // the plain queries: the common case pays nothing for units.
  const bool both = places.unplaced && !places.host.empty();
  sql::Stmt* stmt = nullptr;
  if (unfit.empty())
    stmt = both ? (high ? &st_->first_ready_priority_both : &st_->first_ready_oldest_both)
                : (high ? &st_->first_ready_priority : &st_->first_ready_oldest);
  else
    stmt = both ? (high ? &st_->first_fitting_priority_both : &st_->first_fitting_oldest_both)
                : (high ? &st_->first_fitting_priority : &st_->first_fitting_oldest);
  sql::Query q(*stmt);
  q.BindText(queue).BindInt(owner_uid).BindText(places.unplaced && !both ? "" : places.host);
  if (!unfit.empty()) q.BindTextList(unfit);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Candidate>();
  return std::optional<Candidate>(Candidate{q.Int(0), static_cast<int>(q.Int(1)), owner_uid,
                                            q.Text(2), !q.IsNull(3),
                                            !q.IsNull(4) && q.Text(5).empty()});
}

Result<std::optional<Candidate>> SqlStore::FirstReady(const std::string& queue, ReadyOrder order) {
  auto owners = ReadyOwners(queue);
  if (!owners.ok()) return owners.status();
  std::optional<Candidate> best;
  for (uint32_t owner : *owners) {
    auto c = FirstReady(queue, owner, order, {});
    if (!c.ok()) return c.status();
    if (!c->has_value()) continue;
    const Candidate& cand = **c;
    if (!best || ComesFirst(cand, *best, order)) best = cand;
  }
  return best;
}

Result<std::vector<std::string>> SqlStore::ReadyUnitRequests() {
  std::vector<std::string> requests;
  sql::Query q(st_->ready_uses);
  Status s = q.ForEach([&] { requests.push_back(q.Text(0)); });
  if (!s.ok()) return s;
  return requests;
}

Result<std::vector<UnitHolder>> SqlStore::HeldUnits() {
  std::vector<UnitHolder> holders;
  sql::Query q(st_->held_units);
  Status s = q.BindText(host_).ForEach([&]() -> Status {
    std::optional<UnitGrant> units = DecodeUnitGrant(q.Text(2));
    if (!units) return sql::StoreError("read the units of " + TaskName(q.Int(0)), "corrupt units");
    holders.push_back({q.Int(0), static_cast<uint32_t>(q.Int(1)), std::move(*units)});
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return holders;
}

Result<int> SqlStore::PromoteDue(WallMs now, int limit, std::optional<WallMs>* next_due) {
  int promoted = 0;
  // PostgreSQL reads the next due time in the promotion's statement.
  const bool at_once = next_due != nullptr && st_->promote_due_and_next != nullptr;
  Status status = WriteOrRefuse([&]() -> Status {  // refuses nothing
    if (at_once) {
      sql::Query q(st_->promote_due_and_next);
      Result<bool> row = q.BindInt(now).BindInt(limit).Step();
      if (!row.ok()) return row.status();
      promoted = static_cast<int>(q.Int(0));
      *next_due = q.IsNull(1) ? std::nullopt : std::optional<WallMs>(q.Int(1));
      return q.Run();  // finish the statement
    }
    sql::Query q(st_->promote_due);
    if (Status s = q.BindInt(now).BindInt(limit).Run(); !s.ok()) return s;
    promoted = db_->Changes();
    return Status::Ok();
  });
  if (!status.ok()) return status;
  if (next_due != nullptr && !at_once) {
    Result<std::optional<WallMs>> due = QueryMin(st_->next_due_after, now);
    if (!due.ok()) return due.status();
    *next_due = *due;
  }
  return promoted;
}

Result<std::optional<WallMs>> SqlStore::NextDue() {
  return QueryMin(st_->next_due);
}

// ---- attempts ----

Result<std::optional<int>> SqlStore::StartAttempt(TaskId id, WallMs now, const UnitGrant& units) {
  std::optional<int> number;
  bool may_undo = false;  // not started here: an exclusive run of a job, or not ready
  Status status = WriteOrRefuse([&]() -> Status {
    number.reset();
    may_undo = false;
    JobRun run;
    // PostgreSQL inserts the attempt in the start's statement.
    const bool at_once = st_->start_plain_with_attempt != nullptr;
    Result<std::optional<int>> started =
        at_once ? StartRow(st_->start_plain_with_attempt, id, &run, StartedAt{now, &units})
                : StartRow(st_->start_plain_task, id, &run);
    if (!started.ok()) return started.status();
    number = *started;
    if (!number) {
      may_undo = true;
      return Status::Ok();
    }
    if (run.job)
      if (Status s = HoldRuns(*run.job, run.group); !s.ok()) return s;
    return at_once ? Status::Ok() : InsertAttempt(id, *number, now, units);
  });
  if (!status.ok()) return status;
  if (may_undo) return StartMayUndo(id, now, units);
  return number;
}

Result<std::optional<StartedAttempt>> SqlStore::StartAndRead(TaskId id, WallMs now,
                                                             const UnitGrant& units) {
  // SQLite reads the task first, then starts it.
  if (st_->start_and_read == nullptr) return StartRead(id, Get(id), now, units);
  std::optional<StartedAttempt> started;
  Status status = WriteOrRefuse([&]() -> Status {
    started.reset();
    JobRun run;
    {
      sql::Query q(st_->start_and_read);
      q.BindInt(id).BindText(host_).BindInt(epoch_).BindInt(now).BindOptText(UnitsText(units));
      Result<bool> row = q.Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::Ok();  // an exclusive run of a job, or no longer ready
      // The columns after the task's: what the start holds even should the task not read.
      constexpr int kAfter = sql::kTaskSelectColumns;
      started.emplace(StartedAttempt{static_cast<int>(q.Int(kAfter)), sql::ReadTask(q)});
      if (!q.IsNull(kAfter + 1)) run.job = q.Text(kAfter + 1);
      run.group = q.Int(kAfter + 2);
      if (Status s = q.Run(); !s.ok()) return s;  // finish the statement before the next
    }
    if (run.job)
      if (Status s = HoldRuns(*run.job, run.group); !s.ok()) return s;
    const int number = started->number;
    Result<Task>& read = started->task;
    if (!read.ok()) return Status::Ok();  // the attempt fails at its launch, telling why
    // As a read before the start gives it (the attempts before this one), then as it started.
    read->attempt_count = number - 1;
    if (Status s = LoadLists(*read, number > 1 ? AttemptsRead::kAll : AttemptsRead::kNone);
        !s.ok()) {
      read = s;
      return Status::Ok();
    }
    std::erase_if(read->attempts, [number](const Attempt& a) { return a.number >= number; });
    read = StartedTask(std::move(*read), number, now, units, host_);
    return Status::Ok();
  });
  if (!status.ok()) return status;
  // Not started here (an exclusive run of a job, whose start may be undone): read, then start.
  if (!started) return StartRead(id, Get(id), now, units);
  return started;
}

Result<std::optional<StartedAttempt>> SqlStore::StartRead(TaskId id, Result<Task> read, WallMs now,
                                                          const UnitGrant& units) {
  Result<std::optional<int>> number = StartAttempt(id, now, units);
  if (!number.ok()) return number.status();
  if (!number->has_value()) return std::optional<StartedAttempt>();
  if (read.ok()) read = StartedTask(std::move(*read), **number, now, units, host_);
  return std::optional<StartedAttempt>(StartedAttempt{**number, std::move(read)});
}

Result<std::optional<int>> SqlStore::StartRow(sql::Stmt& stmt, TaskId id, JobRun* run,
                                              std::optional<StartedAt> attempt) {
  // Only while this host's epoch is current: a fenced host starts nothing more.
  sql::Query q(stmt);
  q.BindInt(id).BindText(host_).BindInt(epoch_);
  if (attempt) q.BindInt(attempt->now).BindOptText(UnitsText(*attempt->units));
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<int>();
  const int number = static_cast<int>(q.Int(0));
  if (!q.IsNull(1)) run->job = q.Text(1);
  if (!q.IsNull(2)) run->group = q.Int(2);
  run->exclusive = q.Int(3) != 0;
  if (Status s = q.Run(); !s.ok()) return s;  // finish the statement before the next
  return std::optional<int>(number);
}

Status SqlStore::InsertAttempt(TaskId id, int number, WallMs now, const UnitGrant& units) {
  sql::Query q(st_->insert_attempt);
  q.BindInt(id).BindInt(number).BindInt(now);
  return q.BindOptText(UnitsText(units)).BindText(host_).BindInt(epoch_).Run();
}

Result<std::optional<int>> SqlStore::StartMayUndo(TaskId id, WallMs now, const UnitGrant& units) {
  std::optional<int> number;
  JobRun run;
  bool job_busy = false;  // another run of its exclusive job is in flight
  Status status = Write([&]() -> Status {
    Result<std::optional<int>> started = StartRow(st_->start_task, id, &run);
    if (!started.ok()) return started.status();
    number = *started;
    if (!number) return HostCurrent();  // not ready (any more): nothing changes
    if (run.job) {
      // Another host may have started a run of the job meanwhile, passing this one over (its
      // row was being claimed here): under the job's row, the run starts only if none is.
      Result<bool> busy = MustHold(run, id);
      if (!busy.ok()) return busy.status();
      if (*busy) {
        job_busy = true;
        return Status::Invalid("job", "a run of job " + *run.job + " is in flight");
      }
      if (Status s = HoldRuns(*run.job, run.group); !s.ok()) return s;
    }
    return InsertAttempt(id, *number, now, units);
  });
  if (job_busy) {  // undone: the task waits, held by its job, for the run in flight to end
    Status held = Write([&]() -> Status {
      Result<bool> busy = MustHold(run, id);  // the job's row was let go with the undo
      if (!busy.ok()) return busy.status();
      if (!*busy) return Status::Ok();  // that run ended meanwhile: the task stays ready
      sql::Query q(st_->hold_for_job);
      return q.BindInt(id).Run();
    });
    if (!held.ok()) return held;
    return std::optional<int>();
  }
  if (!status.ok()) return status;
  return number;
}

Status SqlStore::RecordStop(TaskId id, int attempt, const StopRequest& stop) {
  return Write([&]() -> Status {
    sql::Query q(st_->record_stop);
    return q.BindInt(id)
        .BindInt(attempt)
        .BindText(AttemptReasonName(stop.attempt_reason))
        .BindText(TaskReasonName(stop.task_reason))
        .BindInt(stop.at)
        .Run();
  });
}

Status SqlStore::NoteAttempt(TaskId id, int attempt, const std::string& note) {
  return Write([&]() -> Status {
    sql::Query q(st_->note_attempt);
    return q.BindInt(id).BindInt(attempt).BindText(note).Run();
  });
}

Status SqlStore::CloseAttempt(TaskId id, int attempt, const AttemptOutcome& outcome, JobRun* run,
                              std::optional<Ending> ending) {
  {
    // Only the task's running attempt, held by this host at its epoch: one statement (with
    // the task's end and its dependents' release when `ending` says how it ends).
    sql::Query q(ending ? st_->finish_attempt_and_task : st_->finish_attempt);
    q.BindInt(id).BindInt(attempt).BindInt(outcome.ended).BindInt(outcome.exit_code);
    q.BindInt(outcome.signal).BindText(AttemptReasonName(outcome.reason));
    q.BindInt(outcome.user_cpu_us).BindInt(outcome.system_cpu_us).BindInt(outcome.max_rss_kb);
    q.BindInt(outcome.pid).BindText(outcome.detail).BindInt(outcome.output_bytes);
    q.BindInt(outcome.memory_peak_bytes).BindInt(outcome.shim_pid).BindText(host_);
    q.BindInt(epoch_).BindText(EncodeOutputCuts(outcome.output_cuts));
    q.BindInt(outcome.detail.empty() ? 0 : 1);
    if (ending) {
      q.BindText(StateName(ending->state)).BindText(TaskReasonName(ending->reason));
      static const StoredOutput kNone;
      const StoredOutput& output = ending->output != nullptr ? *ending->output : kNone;
      q.BindInt(ending->output != nullptr ? 1 : 0).BindBlob(output.stdout_bytes);
      q.BindBlob(output.stderr_bytes).BindBlob(output.order);
    }
    Result<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (*row) {
      if (!q.IsNull(0)) run->job = q.Text(0);
      run->exclusive = q.Int(1) != 0;
      if (!q.IsNull(2)) run->group = q.Int(2);
      return q.Run();  // finish the statement
    }
  }
  // Nothing was closed: why.
  sql::Query q(st_->task_run_state);
  Result<bool> row = q.BindInt(id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound(TaskName(id) + " not found");
  if (q.Text(0) != StateName(TaskState::kRunning) || q.Int(1) != attempt)
    return Status::Invalid("attempt",
                           TaskName(id) + " is not running attempt " + std::to_string(attempt));
  // Its fencing number is stale: the attempt passed to its rescuer.
  return Status::Invalid("attempt", TaskName(id) + " attempt " + std::to_string(attempt) +
                                        " passed to another host when host " + host_ +
                                        " was fenced: its end is not recorded");
}

// ---- dependents ----

Status SqlStore::ReleaseDependents(TaskId id, WallMs now) {
  sql::Query q(st_->release_dependents);
  return q.BindInt(id).BindInt(now).Run();
}

Status SqlStore::FailDependents(TaskId id, WallMs now, std::vector<TaskId>* ended) {
  // Breadth-first over pending dependents. Ids of dependencies point backwards except after a
  // keyed replace, and replace refuses cycles; `seen` still guarantees the walk ends.
  std::vector<TaskId> frontier{id};
  std::unordered_set<TaskId> seen{id};
  for (size_t i = 0; i < frontier.size(); ++i) {
    std::vector<TaskId> dependents;
    {
      sql::Query q(st_->pending_dependents);
      Status s = q.BindInt(frontier[i]).ForEach([&] { dependents.push_back(q.Int(0)); });
      if (!s.ok()) return s;
    }
    std::sort(dependents.begin(), dependents.end());  // oldest first
    for (TaskId dependent : dependents) {
      if (!seen.insert(dependent).second) continue;
      sql::Query q(st_->end_pending);
      q.BindInt(dependent).BindText(StateName(TaskState::kFailed));
      q.BindText(TaskReasonName(TaskReason::kDependencyFailed)).BindInt(now);
      if (Status s = q.Run(); !s.ok()) return s;
      if (db_->Changes() == 0) continue;
      ended->push_back(dependent);
      frontier.push_back(dependent);
    }
  }
  return Status::Ok();
}

Status SqlStore::EndPendingInTx(TaskId id, TaskState final_state, TaskReason reason, WallMs now,
                                std::vector<TaskId>* ended) {
  std::optional<std::string> job;
  {
    sql::Query q(st_->end_pending);
    q.BindInt(id).BindText(StateName(final_state)).BindText(TaskReasonName(reason)).BindInt(now);
    Result<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    // Only a run part way through its stages, or a shard, may have been in flight and holding
    // its job's other runs: ending any other pending run releases nothing (and asking would
    // walk every pending run of the job, for each of a bulk cancel's thousands).
    if (!q.IsNull(0) && q.Int(1) != 0) job = q.Text(0);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  ended->push_back(id);
  if (job) {
    if (Status s = ReleaseRuns(*job, now); !s.ok()) return s;
  }
  return FailDependents(id, now, ended);
}

// ---- ends ----

Result<std::vector<TaskId>> SqlStore::FinishAttempt(TaskId id, int attempt,
                                                    const AttemptOutcome& outcome,
                                                    TaskState final_state, TaskReason reason,
                                                    const StoredOutput* output) {
  if (final_state != TaskState::kSucceeded && final_state != TaskState::kFailed &&
      final_state != TaskState::kCancelled) {
    return Status::Invalid(
        "state", std::string("a finished attempt cannot leave its task ") + StateName(final_state));
  }
  std::vector<TaskId> ended;
  // CloseAttempt refuses before anything is written; what follows fails only with the store.
  Status status = WriteOrRefuse([&]() -> Status {
    ended.clear();
    JobRun run;
    // PostgreSQL ends the task, keeps its output and releases its dependents in the attempt's
    // statement.
    const bool at_once = st_->finish_attempt_and_task != nullptr;
    if (Status s = CloseAttempt(
            id, attempt, outcome, &run,
            at_once ? std::optional<Ending>(Ending{final_state, reason, output}) : std::nullopt);
        !s.ok())
      return s;
    if (!at_once) {
      if (output != nullptr)
        if (Status s = SaveOutputInTx(id, attempt, *output); !s.ok()) return s;
      sql::Query q(st_->finish_task);
      q.BindInt(id).BindText(StateName(final_state)).BindText(TaskReasonName(reason));
      q.BindInt(outcome.exit_code).BindInt(outcome.signal).BindInt(outcome.ended);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    if (run.job) {
      if (Status s = ReleaseRuns(*run.job, outcome.ended); !s.ok()) return s;
    }
    if (run.job && final_state == TaskState::kSucceeded) {
      if (Status s = NoteJobSuccess(*run.job, run.group, outcome.ended); !s.ok()) return s;
    }
    if (final_state != TaskState::kSucceeded) return FailDependents(id, outcome.ended, &ended);
    return at_once ? Status::Ok() : ReleaseDependents(id, outcome.ended);
  });
  if (!status.ok()) return status;
  return ended;
}

Status SqlStore::RetryLater(TaskId id, int attempt, const AttemptOutcome& outcome,
                            WallMs not_before, int priority) {
  // ReopenAfter refuses a retry only before it writes (CloseAttempt).
  return WriteOrRefuse([&] { return ReopenAfter(id, attempt, outcome, not_before, priority); });
}

Status SqlStore::AdvanceStage(TaskId id, int attempt, const AttemptOutcome& outcome) {
  return Write([&] { return ReopenAfter(id, attempt, outcome, outcome.ended, std::nullopt); });
}

Status SqlStore::ReopenAfter(TaskId id, int attempt, const AttemptOutcome& outcome,
                             WallMs not_before, std::optional<int> retry_priority) {
  JobRun run;
  if (Status s = CloseAttempt(id, attempt, outcome, &run); !s.ok()) return s;
  Result<bool> held = MustHold(run, id);
  if (!held.ok()) return held.status();
  // Ready at once only when no delay is left at the attempt's end; otherwise the task waits in
  // tasks_delayed, where NextDue sees it and PromoteDue makes it ready. A held run waits for
  // its job's running run instead.
  const bool ready = !*held && not_before <= outcome.ended;
  {
    sql::Query q(retry_priority ? st_->retry_task : st_->advance_task);
    q.BindInt(id);
    if (retry_priority) q.BindInt(*retry_priority);
    q.BindInt(not_before).BindInt(ready ? 1 : 0);
    q.BindInt(outcome.exit_code).BindInt(outcome.signal).BindInt(*held ? 1 : 0);
    if (!retry_priority) q.BindText(dialect_ == sql::Dialect::kPostgres ? host_ : std::string());
    if (Status s = q.Run(); !s.ok()) return s;
    if (!retry_priority && db_->Changes() == 0)
      return Status::Invalid("stage", TaskName(id) + " has no stage after the one that ran");
  }
  return run.job ? ReleaseRuns(*run.job, outcome.ended) : Status::Ok();
}

Result<std::vector<TaskId>> SqlStore::EndPendingAll(const std::vector<TaskId>& ids,
                                                    TaskState final_state, TaskReason reason,
                                                    WallMs now) {
  if (final_state != TaskState::kCancelled && final_state != TaskState::kFailed) {
    return Status::Invalid("state",
                           std::string("a pending task cannot end ") + StateName(final_state));
  }
  std::vector<TaskId> ended;
  Status status = Write([&]() -> Status {
    ended.clear();
    for (TaskId id : ids) {
      if (Status s = EndPendingInTx(id, final_state, reason, now, &ended); !s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return ended;
}

Result<std::vector<TaskId>> SqlStore::EndPending(TaskId id, TaskState final_state,
                                                 TaskReason reason, WallMs now) {
  if (final_state != TaskState::kCancelled && final_state != TaskState::kFailed) {
    return Status::Invalid("state",
                           std::string("a pending task cannot end ") + StateName(final_state));
  }
  std::vector<TaskId> ended;
  Status status = Write([&]() -> Status {
    if (Status s = EndPendingInTx(id, final_state, reason, now, &ended); !s.ok()) return s;
    if (!ended.empty()) return Status::Ok();
    sql::Query q(st_->task_exists);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    return *row ? Status::Ok() : Status::NotFound(TaskName(id) + " not found");
  });
  if (!status.ok()) return status;
  return ended;
}

// ---- tq retry ----

Status SqlStore::RequeueInTx(TaskId id, WallMs now, std::optional<int> stage, bool succeeded,
                             bool* requeued) {
  *requeued = false;
  JobRun run;
  bool ran_well = false;  // succeeded or expired: its dependents had stopped waiting for it
  {
    sql::Query q(st_->task_run_state);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound(TaskName(id) + " not found");
    std::optional<TaskState> state = StateFromName(q.Text(0));
    ran_well = state && sql::DepDone(*state);
    if (state != TaskState::kFailed && state != TaskState::kCancelled && !(succeeded && ran_well))
      return Status::Ok();
    if (!q.IsNull(2)) run.job = q.Text(2);
    run.exclusive = q.Int(3) != 0;
    if (!q.IsNull(4)) run.group = q.Int(4);
  }
  int deps_left = 0;
  {
    sql::Query q(st_->dep_states);
    Status s = q.BindInt(id).ForEach([&]() -> Status {
      std::optional<TaskState> state = StateFromName(q.Text(1));
      if (!state) return sql::StoreError("read " + TaskName(q.Int(0)), "corrupt state");
      if (sql::DepFailed(*state)) {
        return Status::Invalid("after", TaskName(id) + " waits for " + TaskName(q.Int(0)) +
                                            ", which " + StateName(*state) +
                                            ": retry that one first");
      }
      if (!sql::DepDone(*state)) ++deps_left;
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  Result<bool> held = MustHold(run, id);
  if (!held.ok()) return held.status();
  sql::Query q(st_->requeue_task);
  q.BindInt(id).BindInt(now).BindInt(deps_left).BindInt(deps_left == 0 && !*held ? 1 : 0);
  q.BindInt(*held ? 1 : 0).BindOptInt(stage ? std::optional<int64_t>(*stage) : std::nullopt);
  q.BindInt(succeeded ? 1 : 0);
  if (Status s = q.Run(); !s.ok()) return s;
  *requeued = db_->Changes() > 0;
  if (!*requeued) return Status::Ok();
  if (ran_well) {
    // It runs again: whatever still waits on it waits for the new run too (as a replace does).
    sql::Query q(st_->reblock_dependents);
    if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
  }
  sql::Query queue(st_->recreate_queue);  // `tq queue delete` may have removed it
  return queue.BindInt(id).Run();
}

Result<bool> SqlStore::Requeue(TaskId id, WallMs now) {
  bool requeued = false;
  Status status = Write([&] { return RequeueInTx(id, now, std::nullopt, false, &requeued); });
  if (!status.ok()) return status;
  return requeued;
}

Result<std::vector<TaskId>> SqlStore::RequeueAll(const std::vector<TaskId>& ids, WallMs now,
                                                 bool skip_blocked,
                                                 const std::map<TaskId, int>& restart_at,
                                                 bool succeeded) {
  std::vector<TaskId> requeued;
  Status status = Write([&]() -> Status {
    for (TaskId id : ids) {
      bool done = false;
      auto at = restart_at.find(id);
      Status s = RequeueInTx(id, now,
                             at == restart_at.end() ? std::nullopt : std::optional<int>(at->second),
                             succeeded, &done);
      // A blocked task is refused before anything is written: the transaction goes on.
      if (!s.ok() && skip_blocked && s.code() == ErrorCode::kInvalid && s.field() == "after")
        continue;
      if (!s.ok()) return s;
      if (done) requeued.push_back(id);
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return requeued;
}

Result<int> SqlStore::FailedSinceQueued(TaskId id) {
  // attempt_count - queued_attempts: the attempts opened since the task was submitted, replaced
  // or re-queued. An attempt that succeeds or is cancelled ends the task, so every one of them
  // failed except possibly a last one still running; while the daemon decides on a retry (the
  // attempt running or just closed by RetryLater/FinishAttempt) the count includes that attempt,
  // as ShouldRetry expects.
  sql::Query q(st_->failed_since_queued);
  Result<bool> row = q.BindInt(id).Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound(TaskName(id) + " not found");
  return static_cast<int>(q.Int(0));
}

}  // namespace tq
