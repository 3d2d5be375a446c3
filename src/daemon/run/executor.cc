#include "daemon/run/executor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/model/saturating.h"
#include "core/model/signal_names.h"
#include "daemon/host/log.h"
#include "daemon/host/log_setup.h"
#include "daemon/host/proc.h"
#include "daemon/run/shim_args.h"
#include "daemon/run/shim_record.h"
#include "daemon/shim/shim_record.h"

namespace tq {

Executor::Executor(EventLoop& loop, const Clock& clock, Spawner& spawner, TaskFiles files,
                   const ConfigPtr& config, size_t task_fd_limit, const TaskCgroups* cgroups,
                   Callbacks callbacks)
    : loop_(loop),
      clock_(clock),
      spawner_(spawner),
      files_(std::move(files)),
      spares_(files_.SpareDir()),
      config_(config),
      task_fd_limit_(task_fd_limit),
      cgroups_(cgroups),
      on_finished_(std::move(callbacks.on_finished)),
      on_stop_(std::move(callbacks.on_stop)),
      boot_id_(CurrentBootId()),
      log_journal_(StderrIsJournal()) {}

void Executor::EndStored(TaskId id, int attempt) {
  spares_.Keep(files_.StatusRecord(id, attempt));
}

Executor::~Executor() {
  // The shims keep running: a stopping daemon never touches its tasks.
  if (linger_timer_) loop_.CancelTimer(linger_timer_);
  for (auto& [id, r] : running_) {
    for (EventLoop::TimerId t : {r.timeout_timer, r.kill_timer, r.probe_timer})
      if (t) loop_.CancelTimer(t);
    if (r.pidfd < 0) continue;
    loop_.Unwatch(r.pidfd);
    close(r.pidfd);
  }
}

Result<int> Executor::Start(const Launch& launch) {
  // The status file is created and locked here and handed to the shim, so from the instant the
  // shim exists its lock says "alive": a daemon that dies while starting it never mistakes a
  // running attempt for a lost one (which would run it twice).
  const std::string status = files_.StatusRecord(launch.id, launch.attempt);
  const std::optional<int> spare = spares_.TakeAs(status);
  auto locked = spare ? Result<int>(*spare) : LockedStatusRecord(status);
  if (!locked.ok()) return locked.status();
  const int fd = *locked;
  std::vector<std::string> args = {"--status",     status,
                                   "--status-fd",  std::to_string(TQ_SHIM_STATUS_FD),
                                   "--stdout",     files_.Stdout(launch.id, launch.attempt),
                                   "--stderr",     files_.Stderr(launch.id, launch.attempt),
                                   "--order",      files_.Order(launch.id, launch.attempt),
                                   "--output-max", std::to_string(config_->output_max),
                                   "--kill-grace", std::to_string(config_->kill_grace_ms)};
  if (launch.keep_background) args.push_back("--keep-background");
  if (task_fd_limit_ > 0) args.insert(args.end(), {"--nofile", std::to_string(task_fd_limit_)});
  if (launch.has_stdin) args.insert(args.end(), {"--stdin", files_.Stdin(launch.id)});
  if (!launch.cwd.empty()) args.insert(args.end(), {"--cwd", launch.cwd});
  if (!launch.cwd.empty() && !launch.cwd_fallback.empty())
    args.insert(args.end(), {"--cwd-fallback", launch.cwd_fallback});
  const std::vector<std::string> resources = ResourceArgs(launch.resources);
  args.insert(args.end(), resources.begin(), resources.end());
  const std::vector<std::string> cgroup = CgroupArgs(launch);
  args.insert(args.end(), cgroup.begin(), cgroup.end());
  const std::vector<std::string> identity =
      IdentityArgs(launch.account, launch.pam_service, launch.pam_dir);
  args.insert(args.end(), identity.begin(), identity.end());
  args.insert(args.end(),
              {"--env-fd", std::to_string(TQ_SHIM_ENV_FD), "--log-name",
               "task " + std::to_string(launch.id) + " attempt " + std::to_string(launch.attempt),
               "--log-style", log_journal_ ? "journal" : "plain"});
  args.push_back("--");
  args.insert(args.end(), launch.argv.begin(), launch.argv.end());

  auto env = EnvironmentFd(launch.env);
  if (!env.ok()) {
    close(fd);
    return env.status();
  }
  auto pid = spawner_.Spawn(args, fd, *env, launch.account && !launch.pam_service.empty());
  close(*env);
  close(fd);  // the shim's copy keeps the lock
  if (!pid.ok()) return pid.status();
  Running r;
  r.id = launch.id;
  r.attempt = launch.attempt;
  r.shim_pid = *pid;
  r.our_child = true;
  r.keep_background = launch.keep_background;
  r.started = clock_.WallNow();
  r.program = launch.argv.empty() ? "" : launch.argv[0];
  r.cwd = launch.cwd;
  r.pidfd = PidfdOpen(*pid);
  if (r.pidfd < 0) {
    // Cannot happen for an unreaped child; kill it rather than run unsupervised.
    const std::string why = strerror(errno);
    kill(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
    return Status::Internal("pidfd_open of the shim failed: " + why);
  }
  if (launch.timeout_ms > 0) ArmTimeout(r, launch.timeout_ms);
  const TaskId id = launch.id;
  running_[id] = std::move(r);
  Watch(id);
  return *pid;
}

void Executor::ArmTimeout(Running& r, int64_t after_ms) {
  const TaskId id = r.id;
  // Also while a call waits for the store: a task's time is up however the store answers.
  r.timeout_timer = loop_.AddTimer(
      SaturatingAdd(clock_.MonoNow(), after_ms),
      [this, id] {
        auto it = running_.find(id);
        if (it == running_.end()) return;
        it->second.timeout_timer = 0;
        // Its shim exited before its time was up (during a wait for the store its exit is read
        // only after): it ended as it ended.
        if (ShimExited(it->second)) return;
        LogInfo("task {} attempt {} timed out", id, it->second.attempt);
        Terminate(id, AttemptReason::kTimeout, TaskReason::kTimeout, StopSignal{});
      },
      EventLoop::DuringWaits::kYes);
}

bool Executor::ShimExited(const Running& r) {
  pollfd exited{r.pidfd, POLLIN, 0};
  return r.pidfd >= 0 && poll(&exited, 1, 0) > 0;
}

void Executor::ArmKill(Running& r) {
  if (r.kill_timer != 0 || !r.stop) return;
  const int64_t asked_ago = std::max<int64_t>(0, clock_.WallNow() - r.stop->at);
  const int64_t left = std::max<int64_t>(0, config_->kill_grace_ms - asked_ago);
  const TaskId id = r.id;
  r.kill_timer = loop_.AddTimer(
      SaturatingAdd(clock_.MonoNow(), left),
      [this, id] {
        auto it = running_.find(id);
        if (it == running_.end()) return;
        it->second.kill_timer = 0;
        LogInfo("task {}: grace period over, killing", id);
        Signal(it->second, TQ_SHIM_SIG_KILL);
      },
      EventLoop::DuringWaits::kYes);
}

namespace {
// True when `pidfd` (opened for `record`'s shim) is that very shim: the record is from this boot
// and the process started when the record says, so a reused pid is never taken for it. A
// version 1 record carries neither fact; its held lock is the only proof there is.
bool SameShim(const ShimRecord& record, int pid, const std::string& boot_id) {
  if (record.version < 2) return true;
  return record.boot_id == boot_id && ProcessStartTime(pid) == record.shim_start_time;
}

// How often the record of a shim that holds its lock but has not yet written is read again, and
// the task of a lost attempt is checked until it is gone.
constexpr MonoMs kProbeIntervalMs = 20;

// How often the cgroups of ended tasks that still held processes are tried again.
constexpr MonoMs kLingerRetryMs = 60 * 1000;

// Why a task could not start, for `tq status`: the step, what it acted on when known, the error.
std::string SpawnDetail(const ShimRecord& record, const std::string& program,
                        const std::string& cwd) {
  std::string what = record.spawn_step.empty() ? "start" : record.spawn_step;
  if (record.spawn_step == TQ_SHIM_STEP_CWD && !cwd.empty()) what += " " + cwd;
  if (record.spawn_step == TQ_SHIM_STEP_EXEC && !program.empty()) what += " " + program;
  return what + ": " + strerror(record.spawn_errno);
}
}  // namespace

void Executor::Adopt(const RunningAttempt& a) {
  Running r;
  r.id = a.task_id;
  r.attempt = a.number;
  r.stop = a.stop;
  r.stop_signalled = a.stop.has_value();  // the earlier daemon signalled right after recording
  r.timeout_ms = a.timeout_ms;
  r.started = a.started;
  r.keep_background = a.keep_background;
  const TaskId id = a.task_id;
  running_[id] = std::move(r);
  Reconcile(id);
}

void Executor::Reconcile(TaskId id) {
  Running& r = running_.at(id);
  switch (TryAttach(r)) {
    case Probe::kStarting:
      // Counted as running meanwhile, so no slot is handed out twice.
      r.probe_timer = loop_.AddTimer(clock_.MonoNow() + kProbeIntervalMs, [this, id] {
        auto it = running_.find(id);
        if (it == running_.end()) return;
        it->second.probe_timer = 0;
        Reconcile(id);
      });
      return;
    case Probe::kGone: {
      Running gone = std::move(r);
      running_.erase(id);
      Conclude(id, std::move(gone), /*adopted=*/true);
      return;
    }
    case Probe::kLive:
      break;
  }
  LogInfo("re-attached to task {} attempt {} (shim pid {})", id, r.attempt, r.shim_pid);
  Watch(id);
  if (r.stop) {
    // A stop in progress goes on: TERM if it was asked while the shim was still starting, KILL
    // when its grace runs out.
    if (!r.stop_signalled) {
      SignalStop(r);
    } else {
      ArmKill(r);
    }
  } else if (r.timeout_ms > 0) {
    // The earlier daemon's monotonic deadline is gone: what is left of the timeout is
    // measured from the attempt's wall-clock start (never more than the whole timeout).
    const int64_t elapsed = std::max<int64_t>(0, clock_.WallNow() - r.started);
    ArmTimeout(r, std::max<int64_t>(0, r.timeout_ms - elapsed));
  }
}

// SPEC 6: a live shim of this boot is re-attached; a finished record is collected; anything
// else (another boot, no lock and no final record) is an attempt lost. The record names the
// shim even when the daemon died before storing its pid. A held lock with no record yet is a
// shim still starting (the daemon locks the file before the shim exists): never lost.
Executor::Probe Executor::TryAttach(Running& r) {
  const std::string path = files_.StatusRecord(r.id, r.attempt);
  if (!ShimRecordLocked(path)) return Probe::kGone;
  auto record = ReadShimRecord(path);
  if (!record.ok() || (!record->finished && record->shim_pid <= 0)) return Probe::kStarting;
  if (record->finished) return Probe::kGone;  // exiting; its record is final
  r.shim_pid = record->shim_pid;
  r.pidfd = PidfdOpen(r.shim_pid);
  // The start time is checked after the pidfd exists: it then names the same process.
  if (r.pidfd >= 0 && SameShim(*record, r.shim_pid, boot_id_) && ShimRecordLocked(path))
    return Probe::kLive;
  if (r.pidfd >= 0) close(r.pidfd);
  r.pidfd = -1;
  LogWarn("task {} attempt {}: shim pid {} is not the shim that ran it", r.id, r.attempt,
          r.shim_pid);
  return Probe::kGone;
}

void Executor::Watch(TaskId id) {
  loop_.Watch(running_.at(id).pidfd, EPOLLIN, [this, id](uint32_t) { OnShimExit(id); });
}

void Executor::OnShimExit(TaskId id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  Running r = std::move(it->second);
  running_.erase(it);
  loop_.Unwatch(r.pidfd);
  close(r.pidfd);
  if (r.timeout_timer) loop_.CancelTimer(r.timeout_timer);
  if (r.kill_timer) loop_.CancelTimer(r.kill_timer);
  int shim_exit = -1;
  if (r.our_child) {
    int status = 0;
    while (waitpid(r.shim_pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) shim_exit = WEXITSTATUS(status);
  }
  Conclude(id, std::move(r), /*adopted=*/false, shim_exit);
}

void Executor::Conclude(TaskId id, Running r, bool adopted, int shim_exit) {
  const std::string path = files_.StatusRecord(id, r.attempt);
  AttemptOutcome outcome;
  if (shim_exit == TQ_SHIM_EXIT_NO_SPACE) {
    // The shim had no room for its first record and said so: it started nothing (SPEC 6).
    outcome.ended = clock_.WallNow();
    outcome.reason = AttemptReason::kLost;  // should it not be undone
    outcome.never_started = true;
    outcome.detail = kNoSpaceDetail;
  } else {
    outcome = Collect(id, r);
  }
  const int attempt = r.attempt;
  // The shim removes its cgroup; one it could not (processes kept on purpose, or the shim died)
  // is removed once empty.
  if (cgroups_ != nullptr && !cgroups_->Remove(id, attempt)) Linger(id, attempt);
  const std::optional<StopRequest> stop = r.stop;
  auto report = [this, id, attempt, stop](const AttemptOutcome& out, bool later) {
    if (!later) return on_finished_(id, attempt, out, stop);
    reporting_.insert({id, attempt});
    loop_.Defer(nullptr, [this, id, attempt, out, stop] {
      reporting_.erase({id, attempt});
      on_finished_(id, attempt, out, stop);
    });
  };
  if (outcome.never_started || outcome.reason != AttemptReason::kLost)
    return report(outcome, adopted);
  if (adopted && ShimRecordBlank(path)) {
    // The shim writes its record before it forks the task: with none, no task ever ran. Only
    // an earlier daemon's death explains that; a shim of ours that exits without writing is a
    // fault to report, never a reason to start again and again.
    LogWarn("task {} attempt {}: its supervisor never started", id, attempt);
    outcome.never_started = true;
    return report(outcome, adopted);
  }
  auto record = ReadShimRecord(path);
  const bool task_runs = record.ok() && record->pid_start_time != 0 &&
                         record->boot_id == boot_id_ &&
                         StillRunsProcess(record->pid, record->pid_start_time);
  // Processes kept on purpose (--keep-background) outlive the task; the cgroup is not theirs to
  // end once its main process is gone.
  const bool by_cgroup = cgroups_ != nullptr && !r.keep_background;
  if (!task_runs && !(by_cgroup && cgroups_->Populated(id, attempt)))
    return report(outcome, adopted);
  // The task outlived its supervisor: end it before the attempt is called lost, or a retry would
  // run a second copy beside it. Its start time in this boot proves the pid (and so the group) is
  // the task's; its cgroup holds every process it left, whatever their group.
  LogWarn("task {} attempt {}: its supervisor died; killing what is left of the task", id, attempt);
  r.pidfd = -1;  // closed with the shim; the attempt stays only to hold its slot
  r.timeout_timer = r.kill_timer = 0;
  running_[id] = std::move(r);
  AwaitGone(id, task_runs ? record->pid : 0, task_runs ? record->pid_start_time : 0, outcome);
}

void Executor::AwaitGone(TaskId id, int pid, unsigned long long start_time,
                         AttemptOutcome outcome) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  const int attempt = it->second.attempt;
  const bool by_cgroup = cgroups_ != nullptr && !it->second.keep_background;
  const bool group_runs = pid > 0 && StillRunsProcess(pid, start_time);
  if (group_runs || (by_cgroup && cgroups_->Populated(id, attempt))) {
    if (group_runs) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);  // in case it left its own group
    }
    if (by_cgroup) cgroups_->Kill(id, attempt);
    it->second.probe_timer =
        loop_.AddTimer(clock_.MonoNow() + kProbeIntervalMs, [this, id, pid, start_time, outcome] {
          auto found = running_.find(id);
          if (found == running_.end()) return;
          found->second.probe_timer = 0;
          AwaitGone(id, pid, start_time, outcome);
        });
    return;
  }
  if (cgroups_ != nullptr && !cgroups_->Remove(id, attempt)) Linger(id, attempt);
  const Running gone = std::move(it->second);
  running_.erase(it);
  on_finished_(id, gone.attempt, outcome, gone.stop);
}

std::vector<std::string> Executor::CgroupArgs(const Launch& launch) {
  const Resources& res = launch.resources;
  std::vector<std::string> args;
  if (cgroups_ != nullptr) args = {"--cgroup", cgroups_->PathOf(launch.id, launch.attempt)};
  const struct {
    const char* key;
    const char* controller;
    const char* option;
    std::optional<int64_t> value;
  } limits[] = {{"memory_max", "memory", "--memory-max", res.memory_max},
                {"cpu_weight", "cpu", "--cpu-weight", res.cpu_weight},
                {"pids_max", "pids", "--pids-max", res.pids_max}};
  for (const auto& limit : limits) {
    if (!limit.value) continue;
    if (cgroups_ != nullptr && cgroups_->Has(limit.controller)) {
      args.insert(args.end(), {limit.option, std::to_string(*limit.value)});
    } else if (unenforced_.insert(limit.key).second) {
      LogWarn("task {}: {} is not enforced: {} (said once per setting)", launch.id, limit.key,
              cgroups_ == nullptr ? "tasks have no cgroup (see cgroup in tqd.toml(5))"
                                  : std::string("the ") + limit.controller +
                                        " controller is not enabled in " + cgroups_->dir());
    }
  }
  return args;
}

void Executor::Linger(TaskId id, int attempt) {
  lingering_.insert({id, attempt});
  if (linger_timer_ == 0)
    linger_timer_ = loop_.AddTimer(clock_.MonoNow() + kLingerRetryMs, [this] {
      linger_timer_ = 0;
      std::set<std::pair<TaskId, int>> still;
      for (const auto& [task, number] : lingering_)
        if (!cgroups_->Remove(task, number)) still.insert({task, number});
      lingering_.clear();
      for (const auto& [task, number] : still) Linger(task, number);
    });
}

AttemptOutcome Executor::Collect(TaskId id, const Running& r) const {
  AttemptOutcome out;
  out.ended = clock_.WallNow();
  auto record = ReadShimRecord(files_.StatusRecord(id, r.attempt));
  if (!record.ok() || !record->finished) {
    LogWarn("task {} attempt {}: no status record from its supervisor ({}); attempt lost", id,
            r.attempt, record.ok() ? "it did not finish" : record.status().message());
    out.reason = AttemptReason::kLost;
    return out;
  }
  if (record->ended_ms > 0) out.ended = record->ended_ms;
  for (const std::string& file : {files_.Stdout(id, r.attempt), files_.Stderr(id, r.attempt)}) {
    struct stat st;
    if (stat(file.c_str(), &st) == 0) out.output_bytes += st.st_size;
  }
  out.pid = record->pid;
  out.shim_pid = record->shim_pid;
  out.exit_code = record->exit_code;
  out.signal = record->signal;
  out.user_cpu_us = record->user_cpu_us;
  out.system_cpu_us = record->system_cpu_us;
  out.max_rss_kb = record->max_rss_kb;
  out.memory_peak_bytes = static_cast<int64_t>(record->memory_peak);
  for (int stream = 0; stream < 2; ++stream)
    if (record->cut_errno[stream] != 0)
      out.output_cuts.push_back({stream == 1, std::max<int64_t>(0, record->cut_at[stream]),
                                 strerror(record->cut_errno[stream])});
  if (record->spawn_errno != 0) {
    out.reason = AttemptReason::kSpawnFailed;
    out.detail = SpawnDetail(*record, r.program, r.cwd);
    // Before the fork, for want of space on the state directory's disk: nothing ran (SPEC 6).
    if (record->pid == 0 && (record->spawn_errno == ENOSPC || record->spawn_errno == EDQUOT)) {
      out.never_started = true;
      out.detail = std::string(kNoSpaceDetail) + " (" + out.detail + ")";
    }
  } else if (record->exit_code == 0) {
    out.reason = AttemptReason::kExit;  // it finished before our signal took effect
  } else if (r.stop) {
    out.reason = r.stop->attempt_reason;
  } else {
    out.reason = record->signal != 0 ? AttemptReason::kSignal : AttemptReason::kExit;
  }
  return out;
}

bool Executor::Terminate(TaskId id, AttemptReason why, TaskReason task_reason,
                         const StopSignal& how) {
  auto it = running_.find(id);
  if (it == running_.end()) return false;
  Running& r = it->second;
  if (!r.stop) {
    r.stop = StopRequest{why, task_reason, clock_.WallNow()};
    r.how = how;
    on_stop_(id, r.attempt, *r.stop);  // durable before any signal
    if (how.kill_now) {
      LogInfo("task {} attempt {}: stopping ({}): KILL now", id, r.attempt,
              TaskReasonName(task_reason));
    } else {
      LogInfo("task {} attempt {}: stopping ({}): {} now, KILL after {} ms", id, r.attempt,
              TaskReasonName(task_reason), SignalName(how.signal), config_->kill_grace_ms);
    }
  } else if (how.kill_now && !r.how.kill_now) {
    r.how.kill_now = true;  // a stop in its grace, hurried
    LogInfo("task {} attempt {}: KILL now", id, r.attempt);
  }
  if (r.pidfd < 0) return true;  // a shim still starting: signalled once it is attached
  SignalStop(r);
  return true;
}

void Executor::KillOrphan(TaskId id, int attempt) {
  const std::string path = files_.StatusRecord(id, attempt);
  if (!ShimRecordLocked(path)) return;  // its shim is gone
  auto record = ReadShimRecord(path);
  if (!record.ok() || record->finished || record->shim_pid <= 0) return;
  const int pidfd = PidfdOpen(record->shim_pid);
  if (pidfd < 0) return;
  // As in TryAttach: the start time is checked once the pidfd names the process.
  if (SameShim(*record, record->shim_pid, boot_id_) && ShimRecordLocked(path)) {
    LogWarn("task {} attempt {}: it passed to another host, yet it still ran here: KILL now", id,
            attempt);
    if (PidfdSendSignal(pidfd, TQ_SHIM_SIG_KILL) != 0 && errno != ESRCH)
      LogWarn("signalling the shim of task {} failed: {}", id, strerror(errno));
  }
  close(pidfd);
}

void Executor::SignalStop(Running& r) {
  if (r.how.kill_now) {
    Signal(r, TQ_SHIM_SIG_KILL);
  } else if (PidfdSendSignalValue(r.pidfd, TQ_SHIM_SIG_TERMINATE, r.how.signal) != 0 &&
             errno != ESRCH) {
    LogWarn("signalling the shim of task {} failed: {}", r.id, strerror(errno));
  }
  r.stop_signalled = true;
  ArmKill(r);
}

void Executor::Signal(const Running& r, int sig) const {
  if (PidfdSendSignal(r.pidfd, sig) != 0 && errno != ESRCH)
    LogWarn("signalling the shim of task {} failed: {}", r.id, strerror(errno));
}

}  // namespace tq
