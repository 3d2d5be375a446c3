#include "daemon/daemon.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/metrics/prometheus.h"
#include "core/model/stage_progress.h"
#include "core/proto/protocol.h"
#include "core/store/postgres/open.h"
#include "core/store/sqlite/open.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/boot_id.h"
#include "daemon/host/host_name.h"
#include "daemon/host/log.h"
#include "daemon/host/make_dirs.h"
#include "daemon/host/private_files.h"
#include "daemon/host/store_metrics.h"
#include "daemon/run/executor.h"
#include "daemon/users/acting_user.h"

namespace tq {

Daemon::Daemon(DaemonOptions options, const Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      files_(options_.state_dir),
      loop_(clock),
      access_(clock, options_.config, options_.server_limits.user_name_ttl_ms),
      limits_(clock, options_.config, options_.server_limits.user_name_ttl_ms),
      lookup_holds_(clock),
      spool_(options_.state_dir + "/crontabs"),
      service_(loop_, clock, [this] { return ServiceStatusOf(*store_); }) {}

Daemon::~Daemon() {
  requests_.reset();
  dispatch_.reset();  // the runner, before the loop and the server it uses
  server_.reset();
  if (signal_fd_ >= 0) close(signal_fd_);
}

Status Daemon::PrepareState() {
  Status st = MakeDirs(options_.state_dir, 0700);  // a fresh account has no ~/.local/state
  if (st.ok()) st = MakePrivateDir(options_.state_dir);
  // Tasks run as their owners reach their context directories (SPEC 13) through it: others may
  // enter it, never list or write it; everything in it keeps its own private mode.
  if (st.ok() && options_.run_as.owner && chmod(options_.state_dir.c_str(), 0711) != 0)
    st = Status(ErrorCode::kConfig, "state",
                "state: cannot chmod " + options_.state_dir + ": " + std::strerror(errno));
  if (st.ok()) st = lock_.Acquire(options_.state_dir);
  if (st.ok()) st = files_.Prepare();
  if (st.ok()) st = spool_.Prepare();
  if (options_.config->Shared()) return st;  // no SQLite file beside a shared store
  // SQLite gives its -wal and -shm files the mode of the database file.
  if (st.ok()) st = MakePrivateFile(options_.state_dir + "/tq.db");
  for (const char* extra : {"/tq.db-wal", "/tq.db-shm"})
    if (st.ok()) st = NarrowFileMode(options_.state_dir + extra);
  return st;
}

Result<Dispatcher::MakeRunner> Daemon::PrepareRunner() {
  if (options_.make_runner) return options_.make_runner;
  spawner_ = std::make_unique<ShimSpawner>(options_.shim_path);
  if (!spawner_->status().ok()) return spawner_->status();
  auto cgroups = TaskCgroups::Open(options_.config->cgroup);
  if (!cgroups.ok()) return cgroups.status();
  cgroups_ = std::move(*cgroups);
  TaskCgroups* task_cgroups = cgroups_ ? &*cgroups_ : nullptr;
  hooks_ = std::make_unique<HookRunner>(loop_, clock_, *spawner_, options_.state_dir + "/hooks",
                                        options_.config, task_cgroups);
  if (Status opened = hooks_->Open(); !opened.ok()) return opened;
  notifier_ = std::make_unique<Notifier>(
      *hooks_, clock_, files_, options_.config, options_.run_as.owner, options_.run_as.pam_service,
      options_.run_as.pam_dir, [this](const Task& task) { return dispatch_->ResourcesOf(task); },
      [this](const Owner& owner) { return access_.For(owner).admin; });
  return Dispatcher::MakeRunner([this, task_cgroups](Runner::Callbacks callbacks) {
    return std::make_unique<Executor>(loop_, clock_, *spawner_, files_, options_.config,
                                      options_.task_fd_limit, task_cgroups, std::move(callbacks));
  });
}

Status Daemon::Open() {
  if (Status st = PrepareState(); !st.ok()) return st;
  const Config& config = *options_.config;
  auto store = config.store.empty()
                   ? OpenSqliteStore(options_.state_dir + "/tq.db", config.durability_full)
                   : OpenPostgresStore(config.store, config.durability_full);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  // A wait for PostgreSQL's answer waits on the loop, which meanwhile answers pings, feeds the
  // watchdog and stops tasks whose time is up (SPEC 6).
  store_->WaitWith([this](int fd, short events, int timeout_ms) {
    return loop_.WaitFor(
        fd, ((events & POLLIN) ? EPOLLIN : 0u) | ((events & POLLOUT) ? EPOLLOUT : 0u), timeout_ms);
  });
  started_ = clock_.WallNow();
  Result<std::string> host = ThisHostName(config);
  if (!host.ok()) return host.status();
  // Before the running attempts are read: they are the ones this host started.
  if (Status st = store_->JoinHost(*host, TQ_VERSION, config.max_running, started_); !st.ok())
    return st;
  LogInfo("store: {}, as host {}", config.Shared() ? "PostgreSQL" : "SQLite", *host);
  host_ = *host;
  store_->ObserveCommits([this](double seconds) { counters_.commit.Observe(seconds); });

  server_ = std::make_unique<Server>(loop_, clock_, options_.server_limits);
  held_ = std::make_unique<HeldRequests>(loop_, *server_);
  waiters_ = std::make_unique<Waiters>([this](ConnId conn, const nlohmann::json& msg, bool last) {
    server_->Send(conn, msg);
    if (last) server_->SetBusy(conn, false);
  });
  events_ = std::make_unique<EventFeed>(
      *store_, clock_,
      [this](ConnId conn, std::string_view text) { server_->SendText(conn, text); },
      [this](const Owner& peer, uint32_t owner_uid) { return access_.For(peer).Sees(owner_uid); });
  submits_ = std::make_unique<GroupCommit>(
      clock_, *store_, limits_,
      [this](ConnId conn, const SubmitItem& item, const Result<SubmitOutcome>& outcome) {
        AnswerSubmit(*requests_, conn, item, outcome);
      },
      [this](std::function<void()> in_turn, std::function<void(const Status&)> after) {
        dispatch_->JoinNextTurn(std::move(in_turn), std::move(after));
      });

  auto make_runner = PrepareRunner();
  if (!make_runner.ok()) return make_runner.status();
  DispatchEvents told{
      [this](const Task& task, int attempt) { events_->Started(task, attempt); },
      [this](const Task& task, int attempt, const AttemptOutcome& outcome) {
        events_->Retrying(task, attempt, outcome);
      },
      [this](const Task& task, int attempt, const AttemptOutcome& outcome) {
        ++counters_.stages_finished[StageStateName(StageState::kSucceeded)];
        events_->Advanced(task, attempt, outcome);
      },
      [this](TaskId id) { events_->Reread({id}, "unstarted"); },
      [this](const std::vector<TaskId>& ids, const std::vector<Task>& read) {
        NotifyTerminal(ids, read);
      },
      [this](TaskId id, const Status& why) { waiters_->Fail(id, why); },
      [this] { service_.StatusChanged(); },
      [this](const std::string& job) { return scheduler_ ? scheduler_->Definition(job) : nullptr; },
      [this] {
        if (wakeups_) wakeups_->Announce();
      }};
  dispatch_ = std::make_unique<Dispatcher>(
      DispatchParts{loop_, clock_, *store_, options_.config, files_, access_, limits_,
                    lookup_holds_, counters_, options_.run_as, host_},
      std::move(told), *make_runner);

  auto running = store_->RunningAttempts();
  if (!running.ok()) return running.status();
  std::set<std::pair<TaskId, int>> adopted;
  for (const RunningAttempt& a : *running) {
    dispatch_->runner().Adopt(a);
    adopted.insert({a.task_id, a.number});
  }
  if (cgroups_) cgroups_->Sweep(adopted);

  server_->OnFrame([this](ConnId conn, const Owner& peer, std::string payload) {
    OnFrame(conn, peer, payload);
  });
  server_->OnClose([this](ConnId conn) {
    waiters_->Drop(conn);
    events_->Drop(conn);
  });
  loop_.OnClockSet([this] {
    dispatch_->Schedule();  // promotes what is due, re-arms the timers
    scheduler_->OnClockSet();
  });
  dispatch_->Schedule();

  // After the re-attach: overlap counts the runs still running under their shims.
  scheduler_ = std::make_unique<Scheduler>(
      *this, loop_, options_.jobs_dir, options_.boot_id.empty() ? ReadBootId() : options_.boot_id);
  scheduler_->Start();
  if (config.Shared()) {
    KillPassedOn();
    KeepLease(host_);
    wakeups_ = std::make_unique<StoreWakeups>(loop_, clock_, config.store, [this] { Look(); });
    wakeups_->Start();
    PollSharedStore();
    RemoveFilesOfGoneTasks();
  }
  if (notifier_) {
    overdue_ = std::make_unique<OverdueWatch>(loop_, clock_, *store_, *scheduler_, *notifier_,
                                              counters_.overdue_alerts);
    overdue_->Check();
  }
  requests_ = std::make_unique<RequestContext>(
      RequestContext{*store_, clock_, loop_, options_.config, *server_, *waiters_, *events_,
                     *scheduler_, files_, access_, *dispatch_, *submits_, limits_, spool_,
                     counters_, [this](const std::vector<TaskId>& ids) { NotifyTerminal(ids); },
                     [this] { return ReloadConfig(); }, [this] { return Metrics(); }, host_});
  return Status::Ok();
}

Status Daemon::Start() {
  Status st = Open();
  if (!st.ok()) return st;

  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, sig);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal_fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) return Status::Internal(std::string("signalfd: ") + strerror(errno));
  loop_.Watch(signal_fd_, EPOLLIN, [this](uint32_t) { OnSignal(); });

  st = server_->Listen(options_.socket_path, options_.socket_mode);
  if (!st.ok()) return st;
  LogInfo("tqd {} listening on {} (state {}, max_running {})", TQ_VERSION, options_.socket_path,
          options_.state_dir, options_.config->max_running);
  service_.Ready();
  SampleHistory();
  if (!options_.config->metrics_textfile.empty()) {
    textfile_ = std::make_unique<MetricsTextfile>(loop_, clock_, options_.config->metrics_textfile,
                                                  options_.config->metrics_interval_ms,
                                                  [this]() -> std::optional<std::string> {
                                                    auto snapshot = Metrics();
                                                    if (!snapshot.ok()) return std::nullopt;
                                                    return RenderPrometheus(*snapshot);
                                                  });
    textfile_->Start();
  }
  return Status::Ok();
}

Result<ConfigDiff> Daemon::ReloadConfig() {
  if (!options_.read_config) return ConfigDiff{};
  Result<Config> read = options_.read_config();
  if (!read.ok()) return read.status();
  ConfigDiff diff = DiffConfig(*options_.config, *read);
  if (!diff.changed.empty()) {
    options_.config = std::make_shared<const Config>(InForce(*options_.config, *read));
    dispatch_->Schedule();  // caps and mixes may have changed
  }
  for (const std::string& key : diff.changed) LogInfo("reload: tqd.toml: {} changed", key);
  for (const std::string& key : diff.needs_restart)
    LogWarn("reload: tqd.toml: {} changed but needs a restart of tqd to apply", key);
  return diff;
}

void Daemon::Run() {
  loop_.Run();
}

void Daemon::OnSignal() {
  signalfd_siginfo info{};
  while (read(signal_fd_, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo == SIGHUP) {
      LogInfo("SIGHUP: reloading tqd.toml and the job files");
      service_.Reloading();
      if (auto diff = ReloadConfig(); !diff.ok())  // what it did is logged
        LogError("reload: {} (nothing of tqd.toml changed)", diff.status().message());
      scheduler_->Reload();  // logs what it did
      service_.Ready();
      continue;
    }
    LogInfo("signal {}: stopping; running tasks continue under their supervisors", info.ssi_signo);
    service_.Stopping();
    lease_.reset();                 // no heartbeat after the stop is recorded
    if (options_.config->Shared())  // the other hosts show it stopped, not live
      if (Status left = store_->LeaveHost(); !left.ok())
        LogWarn("host {}: its stop is not recorded: {}", host_, left.message());
    server_->Shutdown();
    loop_.Stop();
  }
}

void Daemon::OnFrame(ConnId conn, const Owner& peer, const std::string& payload) {
  auto envelope = DecodeEnvelope(payload);
  // While the loop waits for the store only what needs none is answered: a ping, a refusal.
  const bool store_free = !envelope.ok() || std::holds_alternative<PingRequest>(envelope->request);
  if (held_->Hold(conn, payload, store_free)) return;
  if (!envelope.ok()) {
    server_->Send(conn, ErrorResponse(envelope.status()));
    return;
  }
  auto acting = ActingUser(peer, envelope->as_user);
  if (!acting.ok()) {
    server_->Send(conn, ErrorResponse(acting.status()));
    return;
  }
  HandleRequest(*requests_, conn, *acting, envelope->request);
}

void Daemon::NotifyTerminal(const std::vector<TaskId>& ids, const std::vector<Task>& read) {
  service_.StatusChanged();
  if (wakeups_) wakeups_->Announce();  // their waiters and dependents may be on other hosts
  std::set<TaskId> groups;  // of the shards that ended: told of once, when all have ended
  for (TaskId id : ids) {
    const auto known =
        std::find_if(read.begin(), read.end(), [id](const Task& t) { return t.id == id; });
    auto task = known != read.end() ? Result<Task>(*known) : store_->Get(id);
    if (task.ok()) {
      ++counters_.finished[StateName(task->state)];
      // A task with stages ended at its current stage when its last attempt ran there.
      if (!task->spec.stages.empty() && !task->attempts.empty() &&
          task->attempts.back().stage == task->stage)
        ++counters_.stages_finished[StageStateName(StageStateOf(*task, task->stage))];
      events_->Ended(*task);
      waiters_->OnTerminal(*task);
      if (task->spec.shard) {
        groups.insert(task->spec.shard->group);
      } else if (notifier_) {
        notifier_->TaskEnded(*task);
      }
      if (overdue_ && task->spec.job && task->state == TaskState::kSucceeded) overdue_->Check();
    } else {
      LogError("task {} ended but cannot be read: {}", id, task.status().message());
      waiters_->Fail(id, task.status());
    }
  }
  for (TaskId group : groups) GroupMayHaveEnded(group);
}

void Daemon::GroupMayHaveEnded(TaskId group) {
  auto shards = store_->ShardsOf(group);
  if (!shards.ok()) {
    LogError("group {}: its shards cannot be read: {}", group, shards.status().message());
    return;
  }
  for (const ShardState& shard : *shards)
    if (!IsTerminal(shard.state)) return;
  // Of the hosts that see the group end, the one that claims its end tells of it.
  auto claimed = store_->ClaimGroupEnd(group);
  if (!claimed.ok())
    LogError("group {}: its end cannot be claimed: {}", group, claimed.status().message());
  if (!claimed.ok() || !*claimed) return;
  std::vector<Task> ended;
  for (const ShardState& shard : *shards) {
    auto task = store_->Get(shard.id);
    if (!task.ok()) {
      LogError("group {}: shard {} cannot be read: {}", group, shard.id, task.status().message());
      return;
    }
    ended.push_back(std::move(*task));
  }
  if (notifier_) notifier_->GroupEnded(group, ended);
}

void Daemon::SampleHistory() {
  constexpr MonoMs kMinuteMs = 60 * 1000;
  loop_.AddTimer(clock_.MonoNow() + kMinuteMs, [this] { SampleHistory(); });
  if (auto snapshot = Metrics(); snapshot.ok())  // else a gap; the store said why
    history_.Observe(SampleOf(*snapshot, clock_.WallNow()));
}

void Daemon::KeepLease(const std::string& host) {
  HostLease::Callbacks callbacks{
      [this, host] {
        KillPassedOn();
        Status joined =
            store_->JoinHost(host, TQ_VERSION, options_.config->max_running, clock_.WallNow());
        if (!joined.ok())  // the next heartbeat finds it fenced still, and it tries again
          LogError("host {} could not join the store again: {}", host, joined.message());
      },
      [this](const std::string& silent, int64_t silent_ms,
             const std::vector<RunningAttempt>& attempts) {
        dispatch_->EndRescued(silent, silent_ms, attempts);
      },
      [this](const std::vector<TaskId>& ids) { NotifyTerminal(ids); }};
  // The lease's session of its own: heartbeats and fencing never wait behind this session's
  // statements (SPEC 12).
  HostLease::OpenSession open = [conninfo = options_.config->store,
                                 full = options_.config->durability_full] {
    return OpenPostgresStore(conninfo, full);
  };
  lease_ = std::make_unique<HostLease>(loop_, clock_, *store_, std::move(open), options_.config,
                                       host, std::move(callbacks));
  lease_->Start();
}

void Daemon::PollSharedStore() {
  constexpr MonoMs kPollMs = 1000;  // how late a host may see another host's submit or end
  loop_.AddTimer(clock_.MonoNow() + kPollMs, [this] { PollSharedStore(); });
  Look();
  scheduler_->FollowStore();
}

void Daemon::RemoveFilesOfGoneTasks() {
  constexpr MonoMs kEveryMs = 10 * 60 * 1000;  // tasks another host purged leave files here
  loop_.AddTimer(clock_.MonoNow() + kEveryMs, [this] { RemoveFilesOfGoneTasks(); });
  dispatch_->RemoveFilesOfGoneTasks();
}

void Daemon::Look() {
  dispatch_->Schedule();
  dispatch_->CheckRunning();
  // Tasks awaited here that ended on another host: one read says which, then each is read.
  const std::vector<TaskId> awaited = waiters_->Awaited();
  if (awaited.empty()) return;
  auto ended = store_->EndedAmong(awaited);
  if (!ended.ok()) return;  // the next look tries again
  for (TaskId id : *ended) {
    auto task = store_->GetSummary(id);
    if (task.ok() && IsTerminal(task->state)) waiters_->OnTerminal(*task);
  }
}

void Daemon::KillPassedOn() {
  auto passed = store_->PassedOnAttempts();
  if (!passed.ok()) {
    LogError("the attempts passed to other hosts cannot be read: {}", passed.status().message());
    return;
  }
  for (const auto& [id, attempt] : *passed) dispatch_->runner().KillOrphan(id, attempt);
}

void Daemon::JobsChanged() {
  if (overdue_) overdue_->Check();
}

Result<MetricsSnapshot> Daemon::Metrics() {
  auto s = StoreMetrics(*store_, *options_.config, options_.state_dir + "/tq.db", host_,
                        clock_.WallNow());
  if (!s.ok()) return s;
  s->started = started_;
  s->counters = counters_;
  s->history = history_.samples();
  if (hooks_) {
    const HookCounts& h = hooks_->counts();
    s->counters.hooks = {{"succeeded", h.succeeded}, {"failed", h.failed}, {"dropped", h.dropped}};
  }
  // Only the jobs of the job files: every user may read the metrics, and a user's own job
  // (USER/NAME) would name that user.
  if (overdue_)
    for (const auto& [job, late] : overdue_->overdue())
      if (job.find('/') == std::string::npos) s->jobs_overdue[job] = late;
  return s;
}

}  // namespace tq
