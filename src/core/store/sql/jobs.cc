// The cron jobs' part of the SQL store (SPEC 7): firings, each (job, scheduled) at most once
// and recorded with its task in one transaction; the job records (`tq jobs`); the last good job
// files; and the rule that holds a job's exclusive runs while another run of it is running.
#include <string>
#include <unordered_set>
#include <vector>

#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

namespace {

// Refuses each of `jobs` that CheckJobName refuses, naming its position.
Status CheckJobNames(const std::vector<std::string>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (Status s = sql::CheckJobName(jobs[i]); !s.ok()) {
      return Status::Invalid("job", "job " + std::to_string(i + 1) + ": " + s.message());
    }
  }
  return Status::Ok();
}

}  // namespace

// ---- the exclusive rule, inside a transaction ----

Result<bool> SqlStore::JobRunning(const std::string& job, TaskId except, TaskId group) {
  sql::Query q(st_->job_running);
  Result<bool> row = q.BindText(job).BindInt(except).BindInt(group).Step();
  if (!row.ok()) return row.status();
  return *row;
}

Status SqlStore::LockJob(const std::string& job) {
  if (st_->lock_job == nullptr) return Status::Ok();  // one writer: nothing to take turns with
  sql::Query q(st_->lock_job);
  return q.BindText(job).Run();
}

Result<bool> SqlStore::MustHold(const JobRun& run, TaskId id) {
  if (!run.job || !run.exclusive) return false;
  if (Status s = LockJob(*run.job); !s.ok()) return s;
  return JobRunning(*run.job, id, run.group);
}

Status SqlStore::HoldRuns(const std::string& job, TaskId group) {
  sql::Query q(st_->hold_runs);
  return q.BindText(job).BindInt(group).Run();
}

Status SqlStore::ReleaseRuns(const std::string& job, WallMs now) {
  if (Status s = LockJob(job); !s.ok()) return s;
  Result<bool> running = JobRunning(job, 0, 0);
  if (!running.ok()) return running.status();
  if (*running) return Status::Ok();
  sql::Query q(st_->release_runs);
  return q.BindText(job).BindInt(now).Run();
}

Status SqlStore::NoteJobTask(const std::optional<std::string>& job, TaskId id) {
  if (!job) return Status::Ok();
  sql::Query q(st_->set_last_task);
  return q.BindText(*job).BindInt(id).Run();
}

Status SqlStore::NoteJobSuccess(const std::string& job, TaskId group, WallMs now) {
  if (group != 0) {
    sql::Query q(st_->group_unsucceeded);
    Result<bool> row = q.BindInt(group).Step();
    if (!row.ok()) return row.status();
    if (*row) return Status::Ok();  // a shard has yet to succeed, or did not
  }
  sql::Query q(st_->set_last_success);
  return q.BindText(job).BindInt(now).Run();
}

// ---- firings ----

Result<FireOutcome> SqlStore::Fire(const Firing& firing, const Owner& owner,
                                   const std::optional<TaskSpec>& spec, WallMs now) {
  if (Status s = sql::CheckJobName(firing.job); !s.ok()) return s;
  std::optional<TaskSpec> run = spec;
  if (run) {
    run->job = firing.job;
    if (Status s = sql::CheckBytes(*run); !s.ok()) return s;
    if (run->shard)
      if (Status s = CheckShardCount("shards", run->shard->total); !s.ok()) return s;
  }
  const bool boot = !firing.boot_id.empty();
  FireOutcome out;
  Status status = Write([&]() -> Status {
    {
      sql::Query q(st_->insert_job);
      if (Status s = q.BindText(firing.job).BindInt(now).Run(); !s.ok()) return s;
    }
    {
      // Holds the job's row (PostgreSQL): a host firing the same time waits for this firing,
      // then finds it below.
      sql::Query q(st_->job_fired);
      Result<bool> row = q.BindText(firing.job).Step();
      if (!row.ok()) return row.status();
      if (*row && !q.IsNull(0) && firing.scheduled <= q.Int(0)) return Status::Ok();
      if (*row && boot && q.Text(1) == firing.boot_id) return Status::Ok();
      // Disabled through any host that shares the store: no host fires it, whatever it knew.
      if (*row && spec && q.Int(2) != 0) return Status::Ok();
    }
    {
      sql::Query q(st_->firing_exists);
      Result<bool> row = q.BindText(firing.job).BindInt(firing.scheduled).Step();
      if (!row.ok()) return row.status();
      if (*row) return Status::Ok();  // this time fired already
    }
    {
      // Only the firings with a task, and the latest, are worth keeping.
      sql::Query q(st_->drop_old_firings);
      if (Status s = q.BindText(firing.job).BindInt(firing.scheduled).Run(); !s.ok()) return s;
    }
    // The firing's row names a task (its first shard for a group): it goes when that is purged.
    std::optional<int64_t> first;
    if (run && run->shard) {
      ShardedSubmit group;
      Status s = InsertShardsInTx(owner, *run, run->shard->total, now, &group);
      if (!s.ok()) return s;
      out.task = group.group;
      out.shards = group.ids;
      first = group.ids.front();
    } else if (run) {
      std::vector<TaskId> ended;
      Result<TaskId> id = InsertInTx(owner, *run, now, &ended);
      if (!id.ok()) return id.status();
      out.task = *id;
      first = *id;
    }
    {
      sql::Query q(st_->insert_firing);
      q.BindText(firing.job).BindInt(firing.scheduled).BindText(firing.boot_id);
      if (Status s = q.BindOptInt(first).Run(); !s.ok()) return s;
    }
    sql::Query q(boot ? st_->set_boot_fired : st_->set_last_fired);
    q.BindText(firing.job);
    if (boot) {
      q.BindText(firing.boot_id);
    } else {
      q.BindInt(firing.scheduled);
    }
    if (Status s = q.Run(); !s.ok()) return s;
    out.fired = true;
    return Status::Ok();
  });
  if (!status.ok()) return status;
  if (!out.fired) out.task.reset();
  return out;
}

Result<JobRuns> SqlStore::RunsOf(const std::string& job) {
  JobRuns runs;
  RunTally tally;
  sql::Query q(st_->runs_of);
  Status s = q.BindText(job).ForEach([&]() -> Status {
    std::optional<TaskState> state = StateFromName(q.Text(1));
    bool in_flight = true;
    if (state == TaskState::kPending) {
      in_flight = q.Int(2) != 0;
      (in_flight ? runs.between_stages : runs.pending).push_back(q.Int(0));
    } else if (state == TaskState::kRunning) {
      runs.running.push_back(q.Int(0));
    } else {
      return sql::StoreError("read runs of job " + job,
                             "corrupt state of " + sql::TaskName(q.Int(0)));
    }
    tally.Add(q.IsNull(3) ? 0 : q.Int(3), in_flight);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  runs.pending_runs = tally.pending();
  runs.in_flight_runs = tally.in_flight();
  return runs;
}

// ---- job records ----

Result<std::vector<JobRecord>> SqlStore::JobRecords() {
  std::vector<JobRecord> records;
  sql::Query q(st_->job_records);
  Status s = q.ForEach([&]() -> Status {
    JobRecord r;
    r.job = q.Text(0);
    r.first_seen = q.Int(1);
    if (!q.IsNull(2)) r.last_fired = q.Int(2);
    r.boot_id = q.Text(3);
    r.disabled = q.Int(4) != 0;
    if (!q.IsNull(5)) r.last_task = q.Int(5);
    if (!q.IsNull(6)) {  // the latest task is still in the store
      r.last_state = StateFromName(q.Text(6));
      std::optional<TaskReason> reason = TaskReasonFromName(q.Text(7));
      if (!r.last_state || !reason) {
        return sql::StoreError("read job " + r.job,
                               "corrupt state of " + sql::TaskName(*r.last_task));
      }
      r.last_reason = *reason;
      r.last_exit_code = static_cast<int>(q.Int(8));
    }
    if (!q.IsNull(9)) r.last_success = q.Int(9);
    if (!q.IsNull(10)) r.overdue_alerted = q.Int(10);
    if (!q.IsNull(11)) r.last_run = q.Int(11);
    records.push_back(std::move(r));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return records;
}

Status SqlStore::AddJobs(const std::vector<std::string>& jobs, WallMs now) {
  if (Status s = CheckJobNames(jobs); !s.ok()) return s;
  return Write([&]() -> Status {
    for (const std::string& job : jobs) {
      sql::Query q(st_->insert_job);
      if (Status s = q.BindText(job).BindInt(now).Run(); !s.ok()) return s;
    }
    return Status::Ok();
  });
}

Status SqlStore::ForgetJobs(const std::vector<std::string>& jobs) {
  if (jobs.empty()) return Status::Ok();
  if (Status s = CheckJobNames(jobs); !s.ok()) return s;
  return Write([&]() -> Status {
    std::unordered_set<std::string> kept;  // jobs whose tasks the store still holds
    sql::Query with_tasks(st_->jobs_with_tasks);
    if (Status s = with_tasks.ForEach([&] { kept.insert(with_tasks.Text(0)); }); !s.ok()) return s;
    for (const std::string& job : jobs) {
      if (kept.contains(job)) continue;
      for (sql::Stmt* stmt : {&st_->forget_job, &st_->forget_firings}) {
        sql::Query q(*stmt);
        if (Status s = q.BindText(job).Run(); !s.ok()) return s;
      }
    }
    return Status::Ok();
  });
}

Status SqlStore::SetJobDisabled(const std::string& job, bool disabled) {
  return Write([&]() -> Status {
    sql::Query q(st_->set_job_disabled);
    if (Status s = q.BindText(job).BindInt(disabled ? 1 : 0).Run(); !s.ok()) return s;
    if (db_->Changes() == 0) {
      return Status(ErrorCode::kNotFound, "job", "job " + job + " is not known to the store");
    }
    return Status::Ok();
  });
}

Status SqlStore::SetJobOverdueAlerted(const std::string& job, WallMs since) {
  return Write([&]() -> Status {
    sql::Query q(st_->set_overdue_alerted);
    return q.BindText(job).BindInt(since).Run();
  });
}

// ---- job files ----

Result<std::vector<StoredJobFile>> SqlStore::JobFiles() {
  std::vector<StoredJobFile> files;
  sql::Query q(st_->job_files);
  Status s = q.ForEach([&] { files.push_back(StoredJobFile{q.Text(0), q.Blob(1), q.Int(2)}); });
  if (!s.ok()) return s;
  return files;
}

Status SqlStore::SaveJobFiles(const std::vector<StoredJobFile>& files) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].path.empty()) {
      return Status::Invalid("path", "job file " + std::to_string(i + 1) + " has no path");
    }
  }
  return Write([&]() -> Status {
    for (const StoredJobFile& file : files) {
      sql::Query q(st_->save_job_file);
      if (Status s = q.BindText(file.path).BindBlob(file.text).BindInt(file.saved).Run(); !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  });
}

Status SqlStore::ForgetJobFiles(const std::vector<std::string>& paths) {
  return Write([&]() -> Status {
    for (const std::string& path : paths) {
      sql::Query q(st_->forget_job_file);
      if (Status s = q.BindText(path).Run(); !s.ok()) return s;
    }
    return Status::Ok();
  });
}

}  // namespace tq
