// The daemon's cron scheduler: the jobs in force, one wall-clock timer for the earliest firing,
// and what each firing does (misfire and overlap policies, the firing recorded with its task).
#include "daemon/cron/scheduler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "core/cron/cron_zone.h"
#include "core/jobs/file_errors.h"
#include "core/jobs/firing_plan.h"
#include "core/jobs/overdue.h"
#include "core/jobs/user_job_file.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "daemon/cron/cron_host.h"
#include "daemon/cron/job_dir.h"
#include "daemon/cron/job_set.h"
#include "daemon/cron/job_task.h"
#include "daemon/cron/job_user.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log.h"
#include "daemon/host/log_throttle.h"
#include "daemon/serve/event_feed.h"
#include "daemon/users/spool.h"

namespace tq {

namespace {

// After a store fault the firing is tried again this soon; the plan then catches up what the
// fault delayed (on time within the misfire grace, else by the misfire policy).
constexpr int64_t kFaultRetryMs = 1000;
// At most one line per this interval for store faults that repeat at each retry.
constexpr int64_t kFaultLogIntervalMs = 60 * 1000;
// Firings hold the event loop at most about this long at a time; what is still due then fires
// after the clients waiting meanwhile are served.
constexpr int64_t kFiringTurnMs = 5;
// A line per firing at most this often (ten a second); the others are counted in the next one.
constexpr int64_t kFiringLogIntervalMs = 100;

bool IsReboot(const JobDef& def) {
  return def.schedule.kind == CronKind::kReboot;
}

}  // namespace

struct Scheduler::State {
  /// One job in force and its run-time state.
  struct Job {
    JobDef def;
    bool from_last_good = false;
    JobUser user;
    TimeZone zone;
    bool disabled = false;        ///< `tq jobs disable` (the store's flag)
    WallMs last = 0;              ///< times at or before this have fired or passed
    bool reboot_due = false;      ///< @reboot: this boot's run is still to be made
    std::optional<WallMs> next;   ///< its entry in `due`, when it has one
    std::optional<WallMs> shown;  ///< the next firing as `tq jobs` shows it
  };

  State(CronHost& d, EventLoop& l, std::string dir, std::string boot)
      : daemon(d),
        loop(l),
        jobs_dir(std::move(dir)),
        boot_id(std::move(boot)),
        rng(std::random_device{}()),
        fault_log(d.clock(), kFaultLogIntervalMs),
        firing_log(d.clock(), kFiringLogIntervalMs) {}

  ~State() {
    if (timer) loop.CancelTimer(timer);
    if (records_retry) loop.CancelTimer(records_retry);
  }

  CronHost& daemon;
  EventLoop& loop;
  const std::string jobs_dir;
  const std::string boot_id;
  const uid_t uid = geteuid();
  std::mt19937_64 rng;
  LogThrottle fault_log;
  LogThrottle firing_log;  ///< the line each firing makes

  std::map<std::string, Job> jobs;
  std::vector<JobLoadError> errors;
  std::set<std::pair<WallMs, std::string>> due;  ///< (time, job) of every active job's next firing
  EventLoop::TimerId timer = 0;
  WallMs timer_at = 0;
  /// The job records could not be read: nothing is planned until they are.
  EventLoop::TimerId records_retry = 0;
  std::map<std::string, JobDef> retry_prev;
  bool retry_at_start = false;

  /// Jobs whose user's missing home was logged: their runs start in / (once per job).
  std::set<std::string> homeless_logged;

  // The lookups a load makes, once per user and zone.
  std::map<std::string, JobUser> users;
  std::map<std::string, TimeZone> zones;

  Store& store() { return daemon.store(); }
  WallMs Now() const { return daemon.clock().WallNow(); }
  static bool Active(const Job& j) { return j.def.enabled && !j.disabled; }

  ReloadReport Load(bool at_start, const std::string& only_user = "");
  void LogMissingHome(const Job& j);
  Status Check(const JobDef& def, const TimeZone& local);
  void SyncRecords(const std::map<std::string, JobDef>& prev, bool at_start);
  void Replan();
  void Plan(Job& j, WallMs now);
  Result<JobRunOutcome> Run(Job& j, const std::optional<Firing>& firing, bool force, WallMs now,
                            bool catch_up = false);
  void Record(Job& j, const Firing& firing, WallMs now);
  /// Records the times of `j` (not @reboot) before `now` as passed, as it arrives (ArrivalMark:
  /// @every keeps the store's grid).
  void RecordArrival(Job& j, WallMs now);
  void SetDisabled(Job& j, bool disabled);
  void Unschedule(Job& j);
  void Schedule(Job& j, WallMs when);
  void Arm();
  void OnTimer();
  void LogFault(const std::string& what, const Status& st);
  JobInfo Info(const Job& j, const std::map<std::string, JobRecord>& records) const;
  void WarnClockBehind() const;
};

Status Scheduler::State::Check(const JobDef& def, const TimeZone& local) {
  if (!users.count(def.user)) {
    auto user = JobUserOf(def, uid);
    if (!user.ok()) return user.status();
    users[def.user] = *user;
  }
  // A user's own job file follows allow_users and deny_users, as cron.allow and cron.deny.
  if (def.name.find('/') != std::string::npos) {
    const Owner& owner = users[def.user].owner;
    if (Access a = daemon.AccessFor(owner); !a.Allowed())
      return Status::Invalid("user", JobWhere(def, "user") + "user: " + a.refusal);
    if (Status q = daemon.CheckQueue(owner, def.queue); !q.ok())
      return Status::Invalid("queue", JobWhere(def, "queue") + q.message());
  }
  if (Status units = daemon.CheckUnits(def.use); !units.ok())
    return Status::Invalid("use", JobWhere(def, "use") + units.message());
  if (!def.timezone.empty() && !zones.count(def.timezone)) {
    auto zone = LoadTimeZone(def.timezone);
    if (!zone.ok())
      return Status::Invalid("timezone", JobWhere(def, "timezone") + zone.status().message());
    zones[def.timezone] = *zone;
  }
  if (def.timezone.empty()) zones[""] = local;
  return Status::Ok();
}

// Reads the job files and puts their jobs in force; with `only_user`, reads only that user's own
// job file again, and every other file's jobs (and load errors) stay as they are.
ReloadReport Scheduler::State::Load(bool at_start, const std::string& only_user) {
  const WallMs now = Now();
  const Spool& spool = daemon.spool();
  const std::string only_path = only_user.empty() ? "" : spool.PathOf(only_user);
  if (only_path.empty()) {  // the lookups of a whole load are fresh; a user's reuses them
    users.clear();
    zones.clear();
  }
  auto local = LocalTimeZone();
  if (!local.ok())
    LogWarn("jobs without a timezone use UTC: the local zone is unknown: {}",
            local.status().message());
  const TimeZone local_zone = local.ok() ? *local : TimeZone();
  const JobCheck check = [&](const JobDef& def) { return Check(def, local_zone); };

  auto stored = store().JobFiles();
  if (!stored.ok())
    LogError("jobs: the last good job files cannot be read: {}", stored.status().message());
  std::vector<StoredJobFile> last_good = stored.ok() ? *stored : std::vector<StoredJobFile>{};
  if (!only_path.empty())
    std::erase_if(last_good, [&](const StoredJobFile& s) { return s.path != only_path; });

  std::vector<JobFileRead> files;
  ReloadReport report;
  // The job files, then the users' own (whose names cannot clash: theirs are USER/NAME). The
  // system daemon reads job files of root only, and users' files bound to their users' uids.
  for (const std::string& dir : {jobs_dir, spool.dir()}) {
    const bool users = dir == spool.dir();
    if (!only_path.empty() && !users) continue;
    auto listed = only_path.empty() ? ReadJobDir(dir, uid == 0 && !users)
                                    : ReadJobFileIfAny(only_path, /*strict_owner=*/false);
    if (!listed.ok()) {
      // Every file of `dir` is as good as unreadable: each keeps its last good jobs.
      bool any = false;
      for (const StoredJobFile& s : last_good) {
        if (!spool.UserOf(s.path).empty() != users) continue;
        files.push_back(
            {s.path, "", JobLoadError{s.path, 0, listed.status().message()}, spool.UserOf(s.path)});
        any = true;
      }
      if (!any) report.errors.push_back({dir, 0, listed.status().message()});
      continue;
    }
    for (JobFileRead& f : *listed) {
      if (users) f.user = spool.UserOf(f.path);
      if (users && !ValidAccountName(f.user) && !f.error)
        f.error = JobLoadError{f.path, 0, f.path + ": not the job file of a user (USER.toml)"};
      if (users && !f.error) {
        // A file an earlier account of the name left is not loaded, and its jobs are forgotten.
        auto binding = spool.Bind(f.user);
        if (!binding.ok()) {
          f.error = JobLoadError{f.path, 0, f.path + ": " + binding.status().message()};
        } else if (binding->state == SpoolBinding::State::kStale) {
          LogWarn("jobs: {}: not loaded", binding->why);
          continue;
        }
      }
      files.push_back(std::move(f));
    }
  }

  JobSetLoad load = ResolveJobFiles(files, last_good, check, now);
  std::vector<JobLoadError> other_errors;  // of the files a user's load leaves alone
  if (!only_path.empty()) {
    for (const auto& [name, j] : jobs)
      if (j.def.file != only_path) load.jobs.push_back(LoadedJob{j.def, j.from_last_good});
    for (const JobLoadError& e : errors)
      if (e.file != only_path) other_errors.push_back(e);
  }

  // What was in force before: the jobs held now, or at start those of the stored files (what the
  // last daemon had), so that a job added or enabled meanwhile is told from one that was there.
  // A file whose text did not change defines what it did: only the others are parsed again.
  std::map<std::string, JobDef> prev;
  if (at_start) {
    std::map<std::string, const std::string*> on_disk;
    for (const JobFileRead& f : files)
      if (!f.error) on_disk[f.path] = &f.text;
    const auto unchanged = [&](const std::string& path, const std::string& text) {
      auto it = on_disk.find(path);
      return it != on_disk.end() && *it->second == text;
    };
    std::set<std::string> same_files;
    std::vector<JobFileRead> before;
    for (const StoredJobFile& s : last_good) {
      if (unchanged(s.path, s.text)) {
        same_files.insert(s.path);
      } else {
        before.push_back({s.path, s.text, std::nullopt, spool.UserOf(s.path)});
      }
    }
    for (LoadedJob& lj : ResolveJobFiles(before, last_good, check, now).jobs)
      prev[lj.def.name] = std::move(lj.def);
    for (const LoadedJob& lj : load.jobs)
      if (!stored.ok() || same_files.count(lj.def.file)) prev[lj.def.name] = lj.def;
  } else {
    for (const auto& [name, j] : jobs) prev[name] = j.def;
  }
  if (!load.to_save.empty())
    if (Status st = store().SaveJobFiles(load.to_save); !st.ok())
      LogError("jobs: the good job files cannot be stored: {}", st.message());
  if (!load.to_forget.empty())
    if (Status st = store().ForgetJobFiles(load.to_forget); !st.ok())
      LogError("jobs: removed job files cannot be forgotten: {}", st.message());
  std::set<std::string> loaded_before;
  for (const StoredJobFile& s : last_good) loaded_before.insert(s.path);
  for (JobLoadError& e : load.errors) {
    e.kept = loaded_before.count(e.file) > 0;
    LogError("{} ({})", e.message,
             e.kept ? "the file's last good jobs stay in force" : "none of its jobs load");
  }

  std::map<std::string, Job> next;
  for (LoadedJob& lj : load.jobs) {
    Job j;
    if (auto old = jobs.find(lj.def.name); old != jobs.end()) {
      j.disabled = old->second.disabled;
      j.last = old->second.last;
      j.reboot_due = old->second.reboot_due;
    }
    j.user = users.at(lj.def.user);
    j.zone = zones.at(lj.def.timezone);
    j.from_last_good = lj.from_last_good;
    if (auto p = prev.find(lj.def.name); p == prev.end()) {
      ++report.added;
    } else if (!SameDefinition(p->second, lj.def)) {
      ++report.changed;
    }
    j.def = std::move(lj.def);
    const std::string name = j.def.name;
    next.emplace(name, std::move(j));
  }
  for (const auto& [name, def] : prev)
    if (!next.count(name)) ++report.removed;
  due.clear();
  jobs = std::move(next);
  for (auto& [name, j] : jobs) j.next.reset();
  for (JobLoadError& e : load.errors) report.errors.push_back(std::move(e));
  for (JobLoadError& e : other_errors) report.errors.push_back(std::move(e));
  errors = report.errors;
  report.files = static_cast<int>(files.size());
  report.jobs = static_cast<int>(jobs.size());
  for (const JobFileRead& f : files) report.user_files += !spool.UserOf(f.path).empty();
  for (const auto& [name, j] : jobs) report.user_jobs += !spool.UserOf(j.def.file).empty();

  SyncRecords(prev, at_start);
  return report;
}

// Reads the jobs' records and plans every job from them. A job new since `prev` or enabled in
// its file since then does not catch up the times before now (nor, @reboot, this boot) unless
// `at_start`, when an @reboot job runs if this boot's run is not recorded yet.
void Scheduler::State::SyncRecords(const std::map<std::string, JobDef>& prev, bool at_start) {
  if (records_retry) loop.CancelTimer(records_retry);
  records_retry = 0;
  const WallMs now = Now();
  std::vector<std::string> names;
  for (const auto& [name, j] : jobs) names.push_back(name);
  Status st = store().AddJobs(names, now);
  auto records = st.ok() ? store().JobRecords() : Result<std::vector<JobRecord>>(st);
  if (!records.ok()) {
    LogFault("jobs: the job records cannot be read, nothing fires until they can",
             records.status());
    retry_prev = prev;
    retry_at_start = at_start;
    records_retry = loop.AddTimer(daemon.clock().MonoNow() + kFaultRetryMs, [this] {
      records_retry = 0;
      SyncRecords(std::map<std::string, JobDef>(retry_prev), retry_at_start);
    });
    due.clear();
    for (auto& [name, j] : jobs) j.next.reset();
    Arm();
    return;
  }
  std::map<std::string, const JobRecord*> by_name;
  std::vector<std::string> gone;
  for (const JobRecord& r : *records) {
    by_name[r.job] = &r;
    if (!jobs.count(r.job)) gone.push_back(r.job);
  }
  if (Status forgot = store().ForgetJobs(gone); !forgot.ok())
    LogFault("jobs: the records of removed jobs are not forgotten", forgot);
  for (auto& [name, j] : jobs) {
    const JobRecord* r = by_name.count(name) ? by_name[name] : nullptr;
    j.disabled = r && r->disabled;
    const WallMs recorded =
        r ? std::max(r->first_seen, r->last_fired.value_or(r->first_seen)) : now;
    j.last = std::max(j.last, recorded);
    const auto p = prev.find(name);
    const bool arrived = p == prev.end() || (!p->second.enabled && j.def.enabled);
    if (!Active(j)) continue;
    if (IsReboot(j.def)) {
      const bool done = r && r->boot_id == boot_id;
      if (at_start) {
        j.reboot_due = !done && !boot_id.empty();
      } else if (arrived && !done) {
        Record(j, Firing{name, now, boot_id}, now);  // it runs at the next boot
      }
    } else if (arrived) {
      RecordArrival(j, now);  // no catch-up for times before it was here
    }
  }
  if (at_start && boot_id.empty())
    for (const auto& [name, j] : jobs)
      if (IsReboot(j.def) && Active(j))
        LogError("job {}: @reboot cannot run: the boot id of this machine is unknown", name);
  Replan();
}

void Scheduler::State::Replan() {
  const WallMs now = Now();
  due.clear();
  for (auto& [name, j] : jobs) {
    j.next.reset();
    j.shown.reset();
  }
  if (records_retry) return Arm();  // planned once the records are read
  for (auto& [name, j] : jobs) Plan(j, now);
  Arm();
}

// Fires what is due of `j` now (misfire and overlap policies) and schedules its next firing.
void Scheduler::State::Plan(Job& j, WallMs now) {
  Unschedule(j);
  j.shown.reset();
  if (!Active(j)) return;
  const std::string& name = j.def.name;
  if (IsReboot(j.def)) {
    if (!j.reboot_due) return;
    auto run = Run(j, Firing{name, now, boot_id}, false, now);
    if (!run.ok() && run.status().fault() != StoreFault::kNone) {
      LogFault("job " + name + ": @reboot run not made yet", run.status());
      return Schedule(j, now + kFaultRetryMs);
    }
    if (!run.ok()) LogError("job {}: @reboot run not made: {}", name, run.status().message());
    j.reboot_due = false;
    return;
  }
  auto plan = PlanFirings(j.def, j.zone, j.last, now);
  if (!plan.ok()) {
    LogError("job {}: no firing can be planned: {}", name, plan.status().message());
    return;
  }
  daemon.counters().cron_misfires += static_cast<uint64_t>(plan->dropped);
  if (plan->late > 0) daemon.counters().cron_firings["late"] += static_cast<uint64_t>(plan->late);
  if (plan->dropped > 0)
    LogInfo("job {}: {}{} missed firing(s) not run (misfire = {})", name,
            plan->dropped >= kMaxDroppedCount ? "at least " : "", plan->dropped,
            MisfireName(j.def.misfire));
  for (const WallMs t : plan->fire) {
    // The firings after the first are missed ones run_all catches up on: each makes its run.
    const bool catch_up = t != plan->fire.front();
    auto run = Run(j, Firing{name, t, ""}, false, now, catch_up);
    if (!run.ok() && run.status().fault() != StoreFault::kNone) {
      LogFault("job " + name + ": firing of " + FormatRfc3339InZone(t, j.zone) + " not made yet",
               run.status());
      j.shown = plan->fire.front();
      return Schedule(j, now + kFaultRetryMs);
    }
    if (!run.ok())
      LogError("job {}: firing of {} not made: {}", name, FormatRfc3339InZone(t, j.zone),
               run.status().message());
    j.last = std::max(j.last, t);
  }
  if (plan->last > j.last) Record(j, Firing{name, plan->last, ""}, now);  // the dropped ones
  j.last = std::max(j.last, plan->last);
  if (plan->next) {
    Schedule(j, std::max(*plan->next, now + 1));  // always after now: OnTimer's loop ends
    j.shown = plan->next;
  }
}

// As cron does, a run of a job that names no cwd starts in / when its user's home is missing (a
// service account's /nonexistent): the shim falls back to / (Daemon::StartTask). Said once per
// job, at its first run.
void Scheduler::State::LogMissingHome(const Job& j) {
  if (!homeless_logged.insert(j.def.name).second) return;
  struct stat st {};
  const int rc = stat(j.user.home.c_str(), &st);
  if (rc == 0 && S_ISDIR(st.st_mode)) return;
  LogWarn("job {}: cannot enter {}, the home of {} ({}): its runs start in /", j.def.name,
          j.user.home, j.user.owner.name, rc == 0 ? "not a directory" : strerror(errno));
}

// One run of `j`, by its overlap unless `force` (or, for a `catch_up` run, DecideCatchUp):
// through Fire for a firing (recorded even when overlap makes no run), else as a plain insert
// (`tq jobs run`).
Result<JobRunOutcome> Scheduler::State::Run(Job& j, const std::optional<Firing>& firing, bool force,
                                            WallMs now, bool catch_up) {
  const std::string& name = j.def.name;
  auto runs = store().RunsOf(name);
  if (!runs.ok()) return runs.status();
  // A sharded run (a group) counts as one run.
  const OverlapDecision d =
      catch_up ? DecideCatchUp(j.def.overlap)
               : DecideOverlap(j.def.overlap, runs->pending_runs, runs->in_flight_runs, force);
  JobRunOutcome out;
  out.action = d.action;
  const std::string when =
      firing ? "firing of " + FormatRfc3339InZone(firing->scheduled, j.zone) : "run now";
  if (d.action == OverlapAction::kSkip || d.action == OverlapAction::kCoalesce) {
    if (firing) {
      auto fired = store().Fire(*firing, j.user.owner, std::nullopt, now);
      if (!fired.ok()) return fired.status();
      store().AfterCommit([this] { ++daemon.counters().cron_firings["overlap"]; });
    }
    firing_log.Log(LogLevel::kDebug, "job " + name + ": " + when + ": no new run (" +
                                         OverlapActionName(d.action) + ": " +
                                         std::to_string(runs->pending_runs) + " pending, " +
                                         std::to_string(runs->in_flight_runs) + " running)");
    return out;
  }
  // A user's own job file makes that user's tasks: their limits apply as to a submit.
  if (name.find('/') != std::string::npos)
    if (Status admitted = daemon.AdmitSubmits(j.user.owner, std::max(j.def.shards, 1));
        !admitted.ok()) {
      LogWarn("job {}: {}: no run: {}", name, when, admitted.message());
      if (firing)
        if (auto fired = store().Fire(*firing, j.user.owner, std::nullopt, now); !fired.ok())
          return fired.status();
      return admitted;
    }
  WallMs not_before = 0;
  if (firing && j.def.random_delay_ms > 0) {
    std::uniform_int_distribution<int64_t> delay(0, j.def.random_delay_ms);
    not_before = std::max(firing->scheduled, now) + delay(rng);
  }
  if (j.def.cwd.empty()) LogMissingHome(j);
  const TaskSpec spec = JobTaskSpec(
      j.def, j.user.home, daemon.RetryPolicyFor(j.def.queue, j.def.retry), not_before, d.exclusive);
  std::vector<TaskId> shards;  // a sharded run's tasks; out.task is then the group
  if (firing) {
    auto fired = store().Fire(*firing, j.user.owner, spec, now);
    if (!fired.ok()) return fired.status();
    if (!fired->fired) {
      LogDebug("job {}: {}: already recorded", name, when);
      return out;
    }
    out.task = fired->task;
    shards = fired->shards;
  } else if (spec.shard) {
    auto group = store().SubmitShards(j.user.owner, spec, spec.shard->total, now);
    if (!group.ok()) return group.status();
    out.task = group->group;
    shards = group->ids;
  } else {
    auto id = store().Insert(j.user.owner, spec, now);
    if (!id.ok()) return id.status();
    out.task = *id;
  }
  if (d.action == OverlapAction::kReplace) {
    // The new run is exclusive: the store holds it until the old processes are gone. The old
    // runs end in the same transaction; they are told of, and signalled, once it commits.
    for (const auto* pending : {&runs->pending, &runs->between_stages})
      for (TaskId old : *pending)
        daemon.EndPending(old, TaskState::kCancelled, TaskReason::kSuperseded);
    for (TaskId old : runs->running) daemon.StopRunning(old, TaskReason::kSuperseded);
  }
  std::string line = "job " + name + ": " + when + (shards.empty() ? ": task " : ": group ") +
                     std::to_string(out.task.value_or(0)) +
                     (d.action == OverlapAction::kReplace ? " replaces the runs before it" : "");
  // Inside OnTimer's WriteTogether: told only once the firings commit (a rolled-back id is
  // given again).
  store().AfterCommit([this, fired = firing.has_value(), task = out.task, shards, spec,
                       owner = j.user.owner, line = std::move(line)] {
    if (fired) ++daemon.counters().cron_firings["run"];
    if (task && shards.empty()) {
      ++daemon.counters().submitted["job"];
      daemon.events().Created(*task, owner, spec);
    }
    for (size_t i = 0; i < shards.size(); ++i) {
      TaskSpec shard = spec;
      shard.shard = ShardOf{*task, static_cast<int>(i), spec.shard->total};
      ++daemon.counters().submitted["job"];
      daemon.events().Created(shards[i], owner, shard);
    }
    firing_log.Log(LogLevel::kInfo, line);
    daemon.ScheduleDispatch();
  });
  return out;
}

// Records `firing` without a run: its time counts as passed.
void Scheduler::State::Record(Job& j, const Firing& firing, WallMs now) {
  auto fired = store().Fire(firing, j.user.owner, std::nullopt, now);
  if (!fired.ok())
    LogFault("job " + j.def.name + ": a passed time is not recorded", fired.status());
  if (firing.boot_id.empty()) j.last = std::max(j.last, firing.scheduled);
}

void Scheduler::State::RecordArrival(Job& j, WallMs now) {
  const WallMs mark = ArrivalMark(j.def, j.last, now);
  if (mark > j.last) Record(j, Firing{j.def.name, mark, ""}, now);
}

void Scheduler::State::Unschedule(Job& j) {
  if (j.next) due.erase({*j.next, j.def.name});
  j.next.reset();
}

void Scheduler::State::Schedule(Job& j, WallMs when) {
  Unschedule(j);
  j.next = when;
  due.emplace(when, j.def.name);
}

void Scheduler::State::Arm() {
  if (due.empty()) {
    if (timer) loop.CancelTimer(timer);
    timer = 0;
    timer_at = 0;
    return;
  }
  const WallMs earliest = due.begin()->first;
  if (timer && timer_at == earliest) return;
  if (timer) loop.CancelTimer(timer);
  timer_at = earliest;
  timer = loop.AddWallTimer(earliest, [this] {
    timer = 0;
    timer_at = 0;
    OnTimer();
  });
}

// Fires what is due, for at most about kFiringTurnMs, with the firings of the turn committed
// together (one sync); what is left is due still, so the timer fires again at once, after the
// clients waiting meanwhile. When the turn's commit fails, its firings are undone (their tasks
// were never stored) and tried again after kFaultRetryMs.
void Scheduler::State::OnTimer() {
  const WallMs now = Now();
  const MonoMs started = daemon.clock().MonoNow();
  struct Before {  // a job planned in this turn, as it was before
    std::string name;
    WallMs last;
    bool reboot_due;
  };
  std::vector<Before> fired;
  // Their queues and environments are stored before the turn's transaction (PrepareInsert).
  for (auto it = due.begin(); it != due.end() && it->first <= now; ++it)
    if (auto job = jobs.find(it->second); job != jobs.end())
      store().PrepareInsert(job->second.def.queue, job->second.def.env);  // as JobTaskSpec's
  Status st = store().WriteTogether([&] {
    while (!due.empty() && due.begin()->first <= now) {
      if (!fired.empty() && daemon.clock().MonoNow() - started >= kFiringTurnMs) break;
      const std::string name = due.begin()->second;
      due.erase(due.begin());
      auto it = jobs.find(name);
      if (it == jobs.end()) continue;
      it->second.next.reset();
      fired.push_back({name, it->second.last, it->second.reboot_due});
      Plan(it->second, now);
    }
    return Status::Ok();
  });
  if (!st.ok()) {
    LogFault("jobs: the firings of " + std::to_string(fired.size()) +
                 " job(s) are not made yet (their commit failed; tried again)",
             st);
    for (const Before& b : fired)
      if (auto it = jobs.find(b.name); it != jobs.end()) {
        it->second.last = b.last;
        it->second.reboot_due = b.reboot_due;
        Schedule(it->second, now + kFaultRetryMs);
      }
  }
  Arm();
}

void Scheduler::State::LogFault(const std::string& what, const Status& st) {
  fault_log.Log(LogLevel::kError, what + ": " + st.message());
}

JobInfo Scheduler::State::Info(const Job& j,
                               const std::map<std::string, JobRecord>& records) const {
  JobInfo info;
  info.def = j.def;
  info.owner_uid = j.user.owner.uid;
  info.disabled = j.disabled;
  info.from_last_good = j.from_last_good;
  if (Active(j)) info.next = j.shown;
  if (auto r = records.find(j.def.name); r != records.end()) {
    info.last_fired = r->second.last_run;
    info.last_task = r->second.last_task;
    info.last_state = r->second.last_state;
    info.last_reason = r->second.last_reason;
    info.last_exit_code = r->second.last_exit_code;
    if (j.def.expect_success_within_ms > 0)
      info.overdue = CheckOverdue(j.def.expect_success_within_ms, r->second.first_seen,
                                  r->second.last_success, r->second.overdue_alerted, Now())
                         .overdue;
  }
  return info;
}

// A clock set back below a job's last firing (say, after a wrong step ahead was undone) pauses
// the job until the clock passes that firing: says so, once.
void Scheduler::State::WarnClockBehind() const {
  const WallMs now = Now();
  int behind = 0;
  const Job* first = nullptr;
  for (const auto& [name, j] : jobs) {
    if (!Active(j) || j.last <= now + kMisfireGraceMs) continue;
    if (behind++ == 0) first = &j;
  }
  if (behind > 0)
    LogWarn(
        "the clock is before the last firing of {} job(s), such as {} at {}: a time at "
        "or before a job's last firing never fires again, so they fire again only once "
        "the clock has passed it",
        behind, first->def.name, FormatRfc3339InZone(first->last, first->zone));
}

Scheduler::Scheduler(CronHost& daemon, EventLoop& loop, std::string jobs_dir, std::string boot_id)
    : state_(std::make_unique<State>(daemon, loop, std::move(jobs_dir), std::move(boot_id))) {}

Scheduler::~Scheduler() = default;

ReloadReport Scheduler::Start() {
  if (state_->jobs_dir.empty()) return {};
  ReloadReport report = state_->Load(/*at_start=*/true);
  state_->WarnClockBehind();
  // The job directory's files apart from the users' own, which are in the spool.
  const Spool& spool = state_->daemon.spool();
  const auto users = std::count_if(report.errors.begin(), report.errors.end(), [&](auto& e) {
    return e.file == spool.dir() || !spool.UserOf(e.file).empty();
  });
  LogInfo(
      "jobs: {} job(s) from {} file(s) in {}, {} file(s) with errors; {} job(s) from {} user "
      "file(s) in {}, {} with errors",
      report.jobs - report.user_jobs, report.files - report.user_files, state_->jobs_dir,
      static_cast<long>(report.errors.size()) - users, report.user_jobs, report.user_files,
      spool.dir(), users);
  return report;
}

ReloadReport Scheduler::Reload() {
  if (state_->jobs_dir.empty()) return {};
  ReloadReport report = state_->Load(/*at_start=*/false);
  LogInfo(
      "jobs reloaded: {} job(s) from {} file(s): {} added, {} removed, {} changed, {} "
      "file(s) with errors",
      report.jobs, report.files, report.added, report.removed, report.changed,
      report.errors.size());
  state_->daemon.JobsChanged();
  return report;
}

ReloadReport Scheduler::ReloadUser(const std::string& user) {
  if (state_->jobs_dir.empty()) return {};
  ReloadReport report = state_->Load(/*at_start=*/false, user);
  LogInfo("jobs: the job file of {} read again: {} added, {} removed, {} changed", user,
          report.added, report.removed, report.changed);
  state_->daemon.JobsChanged();
  return report;
}

void Scheduler::OnClockSet() {
  state_->Replan();
  state_->WarnClockBehind();
}

std::vector<JobInfo> Scheduler::Jobs() {
  std::map<std::string, JobRecord> records;
  if (!state_->jobs.empty()) {
    auto all = state_->store().JobRecords();
    if (!all.ok()) LogError("jobs: {}", all.status().message());
    if (all.ok())
      for (JobRecord& r : *all) records.emplace(r.job, std::move(r));
  }
  std::vector<JobInfo> out;
  out.reserve(state_->jobs.size());
  for (const auto& [name, j] : state_->jobs) out.push_back(state_->Info(j, records));
  return out;
}

Result<JobInfo> Scheduler::Job(const std::string& name) {
  auto it = state_->jobs.find(name);
  if (it == state_->jobs.end()) return Status::NotFound("job " + Quote(name) + " not found");
  std::map<std::string, JobRecord> records;
  auto all = state_->store().JobRecords();
  if (!all.ok()) return all.status();
  for (JobRecord& r : *all)
    if (r.job == name) records.emplace(r.job, std::move(r));
  return state_->Info(it->second, records);
}

const JobDef* Scheduler::Definition(const std::string& name) const {
  auto it = state_->jobs.find(name);
  return it == state_->jobs.end() ? nullptr : &it->second.def;
}

std::vector<Task> Scheduler::SwitchedJobs() const {
  std::vector<Task> out;
  for (const auto& [name, j] : state_->jobs) {
    if (j.def.expect_success_within_ms <= 0 || j.disabled || !j.def.enabled) continue;
    Task run;
    run.owner = j.user.owner;
    run.spec = JobTaskSpec(j.def, j.user.home, RetryPolicy{}, 0, false);
    out.push_back(std::move(run));
  }
  return out;
}

const std::vector<JobLoadError>& Scheduler::Errors() const {
  return state_->errors;
}

Result<JobRunOutcome> Scheduler::RunNow(const std::string& name, bool force) {
  auto it = state_->jobs.find(name);
  if (it == state_->jobs.end()) return Status::NotFound("job " + Quote(name) + " not found");
  return state_->Run(it->second, std::nullopt, force, state_->Now());
}

Result<std::vector<std::string>> Scheduler::CheckUserFile(const std::string& user,
                                                          const std::string& text,
                                                          const std::string& name) {
  auto file =
      ParseUserJobFile(text, name.empty() ? state_->daemon.spool().PathOf(user) : name, user);
  if (!file.ok()) return file.status();
  auto local = LocalTimeZone();
  const TimeZone local_zone = local.ok() ? *local : TimeZone();
  std::vector<std::string> names;
  FileErrors errors(file->path);
  for (const JobDef& def : file->jobs)
    if (errors.Add(state_->Check(def, local_zone))) names.push_back(def.name);
  if (Status st = errors.Joined(); !st.ok()) return st;
  return names;
}

Status Scheduler::SetEnabled(const std::string& name, bool enabled) {
  auto it = state_->jobs.find(name);
  if (it == state_->jobs.end()) return Status::NotFound("job " + Quote(name) + " not found");
  State::Job& j = it->second;
  if (enabled && !j.def.enabled)
    return Status::Invalid("name", "job " + Quote(name) + " is disabled by its file (" +
                                       j.def.file + ":" + std::to_string(j.def.line) +
                                       ": enabled = false): change the file and reload");
  Status st = state_->store().SetJobDisabled(name, !enabled);
  if (!st.ok()) return st;
  state_->SetDisabled(j, !enabled);
  state_->daemon.JobsChanged();
  return Status::Ok();
}

void Scheduler::FollowStore() {
  auto records = state_->store().JobRecords();
  if (!records.ok()) return;  // the next poll reads them again
  bool changed = false;
  for (const JobRecord& r : *records) {
    auto it = state_->jobs.find(r.job);
    if (it == state_->jobs.end() || it->second.disabled == r.disabled) continue;
    LogInfo("job {}: {} through another host", r.job, r.disabled ? "disabled" : "enabled");
    state_->SetDisabled(it->second, r.disabled);
    changed = true;
  }
  if (changed) state_->daemon.JobsChanged();
}

// Takes the store's flag `disabled` for `j` and plans it again.
void Scheduler::State::SetDisabled(Job& j, bool disabled) {
  const bool was_disabled = j.disabled;
  j.disabled = disabled;
  const WallMs now = Now();
  if (!disabled && was_disabled) {
    // Its times while disabled have passed: no catch-up, as a disabled systemd timer.
    if (IsReboot(j.def)) {
      Record(j, Firing{j.def.name, now, boot_id}, now);
    } else {
      RecordArrival(j, now);
    }
  }
  if (!records_retry) Plan(j, now);
  if (disabled) Unschedule(j);
  Arm();
}

}  // namespace tq
