#include "daemon/daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "core/metrics/prometheus.h"
#include "core/model/saturating.h"
#include "core/policy/attempt_end.h"
#include "core/policy/chooser.h"
#include "core/policy/queue_access.h"
#include "core/policy/task_env.h"
#include "core/proto/protocol.h"
#include "core/store/sqlite/open.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/boot_id.h"
#include "daemon/host/make_dirs.h"
#include "daemon/host/private_files.h"
#include "daemon/users/accounts.h"

namespace tq {

namespace {

// When the store cannot say what is due next, the daemon looks again this much later.
constexpr MonoMs kNextDueRetryMs = 5 * 60 * 1000;
// Delayed tasks made ready per turn of the loop; more wait for the next turn.
constexpr int kPromoteBatch = 1000;

// Serves the chooser from the store's ready indexes, over the queues that have a free slot and
// the owners below their own running cap (`capped` says who is at it).
class StoreReadySource : public ReadySource {
 public:
  using Capped = std::function<bool(uint32_t owner_uid, int running)>;

  StoreReadySource(Store& store, std::vector<std::string> open_queues,
                   std::map<uint32_t, int> running, const ServedLog& served, Capped capped)
      : store_(store),
        queues_(std::move(open_queues)),
        running_(std::move(running)),
        served_(served),
        capped_(std::move(capped)) {}

  std::vector<OwnerCandidate> FirstPerOwner(ReadyOrder order) override {
    std::map<uint32_t, OwnerCandidate> best;
    for (const auto& q : queues_) {
      auto owners = store_.ReadyOwners(q);
      if (!owners.ok()) {
        spdlog::error("{}", owners.status().message());
        continue;
      }
      for (uint32_t owner : *owners) {
        const int running = running_[owner];
        if (capped_(owner, running)) continue;
        auto c = store_.FirstReady(q, owner, order);
        if (!c.ok()) spdlog::error("{}", c.status().message());
        if (!c.ok() || !c->has_value()) continue;
        const Candidate& cand = **c;
        auto [it, added] =
            best.emplace(owner, OwnerCandidate{cand, running, served_.LastServed(owner)});
        const Candidate& held = it->second.first;
        const bool better =
            order == ReadyOrder::kHighestPriority
                ? std::pair(cand.priority, cand.id) < std::pair(held.priority, held.id)
                : cand.id < held.id;
        if (!added && better) it->second.first = cand;
      }
    }
    std::vector<OwnerCandidate> out;
    out.reserve(best.size());
    for (const auto& [owner, c] : best) out.push_back(c);
    return out;
  }

 private:
  Store& store_;
  std::vector<std::string> queues_;
  std::map<uint32_t, int> running_;
  const ServedLog& served_;
  Capped capped_;
};

// Running attempts in `queue` (or all) among the store's `counts` per queue.
int RunningCount(const std::map<std::string, int>& counts,
                 const std::optional<std::string>& queue) {
  if (queue) {
    auto it = counts.find(*queue);
    return it == counts.end() ? 0 : it->second;
  }
  int total = 0;
  for (const auto& [name, n] : counts) total += n;
  return total;
}

Status MakeDir(const std::string& path, mode_t mode) {
  if (mkdir(path.c_str(), mode) == 0 || errno == EEXIST) return Status::Ok();
  return Status(ErrorCode::kConfig, "state", "cannot create " + path + ": " + strerror(errno));
}

Status WriteFile(const std::string& path, const std::string& data) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::Internal("cannot create " + path + ": " + strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = strerror(errno);
      close(fd);
      return Status::Internal("cannot write " + path + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return Status::Ok();
}

}  // namespace

Daemon::Daemon(DaemonOptions options, const Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      files_(options_.state_dir),
      loop_(clock),
      rng_(std::random_device{}()),
      admin_members_(clock, options_.server_limits.user_name_ttl_ms),
      limits_(clock, options_.config, options_.server_limits.user_name_ttl_ms),
      lookup_holds_(clock),
      spool_(options_.state_dir + "/crontabs"),
      service_(loop_, clock, [this] { return ServiceStatus(); }) {}

Daemon::~Daemon() {
  unstored_ends_.reset();
  executor_.reset();  // before the loop and the server it uses
  server_.reset();
  if (signal_fd_ >= 0) close(signal_fd_);
}

Status Daemon::Open() {
  Status st = MakeDirs(options_.state_dir, 0700);  // a fresh account has no ~/.local/state
  if (st.ok()) st = MakePrivateDir(options_.state_dir);
  if (!st.ok()) return st;
  st = lock_.Acquire(options_.state_dir);
  if (!st.ok()) return st;
  st = MakePrivateDir(files_.Root());
  if (!st.ok()) return st;
  st = spool_.Prepare();
  if (!st.ok()) return st;
  // SQLite gives its -wal and -shm files the mode of the database file.
  st = MakePrivateFile(options_.state_dir + "/tq.db");
  for (const char* extra : {"/tq.db-wal", "/tq.db-shm"})
    if (st.ok()) st = NarrowFileMode(options_.state_dir + extra);
  if (!st.ok()) return st;

  auto store = OpenSqliteStore(options_.state_dir + "/tq.db", options_.config->durability_full);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  started_ = clock_.WallNow();
  store_->ObserveCommits([this](double seconds) { counters_.commit.Observe(seconds); });

  server_ = std::make_unique<Server>(loop_, clock_, options_.server_limits);
  waiters_ = std::make_unique<Waiters>([this](ConnId conn, const nlohmann::json& msg, bool last) {
    server_->Send(conn, msg);
    if (last) server_->SetBusy(conn, false);
  });
  events_ = std::make_unique<EventFeed>(
      *store_, clock_,
      [this](ConnId conn, std::string_view text) { server_->SendText(conn, text); },
      [this](const Owner& peer, uint32_t owner_uid) { return AccessFor(peer).Sees(owner_uid); });
  Runner::Callbacks callbacks{[this](TaskId id, int attempt, const AttemptOutcome& outcome,
                                     const std::optional<StopRequest>& stop) {
                                if (outcome.never_started)
                                  return ReturnToPending(id, attempt, outcome, stop);
                                OnAttemptFinished(id, attempt, outcome, stop);
                              },
                              [this](TaskId id, int attempt, const StopRequest& stop) {
                                Status st = store_->RecordStop(id, attempt, stop);
                                if (!st.ok())
                                  spdlog::error("task {} attempt {}: {}", id, attempt,
                                                st.message());
                              }};
  if (options_.make_runner) {
    executor_ = options_.make_runner(std::move(callbacks));
  } else {
    spawner_ = std::make_unique<ShimSpawner>(options_.shim_path);
    if (!spawner_->status().ok()) return spawner_->status();
    auto cgroups = TaskCgroups::Open(options_.config->cgroup);
    if (!cgroups.ok()) return cgroups.status();
    cgroups_ = std::move(*cgroups);
    executor_ = std::make_unique<Executor>(loop_, clock_, *spawner_, files_, options_.config,
                                           options_.task_fd_limit, cgroups_ ? &*cgroups_ : nullptr,
                                           std::move(callbacks));
    hooks_ = std::make_unique<HookRunner>(loop_, clock_, *spawner_, options_.state_dir + "/hooks",
                                          options_.config, cgroups_ ? &*cgroups_ : nullptr);
    if (Status opened = hooks_->Open(); !opened.ok()) return opened;
    notifier_ = std::make_unique<Notifier>(
        *hooks_, clock_, files_, options_.config, options_.run_as_owner, options_.pam_service,
        options_.pam_dir, [this](const Task& task) { return ResourcesOf(task); },
        [this](const Owner& owner) { return AccessFor(owner).admin; });
  }
  unstored_ends_ = std::make_unique<UnstoredEnds>(
      loop_, clock_, [this](AttemptEnd& end) { return StoreEnd(end); });

  watcher_ = std::make_unique<Watcher>(
      *store_, clock_, options_.config,
      [this](const std::vector<TaskId>& ids) { NotifyTerminal(ids); },
      [this](const std::vector<TaskId>& ids) { RemoveTaskFiles(ids); });

  auto running = store_->RunningAttempts();
  if (!running.ok()) return running.status();
  std::set<std::pair<TaskId, int>> adopted;
  for (const RunningAttempt& a : *running) {
    executor_->Adopt(a);
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
    ScheduleDispatch();  // promotes what is due, re-arms the timers
    scheduler_->OnClockSet();
  });
  ScheduleDispatch();

  // After the re-attach: overlap counts the runs still running under their shims.
  scheduler_ = std::make_unique<Scheduler>(
      *this, loop_, options_.jobs_dir, options_.boot_id.empty() ? ReadBootId() : options_.boot_id);
  scheduler_->Start();
  if (notifier_) {
    overdue_ = std::make_unique<OverdueWatch>(loop_, clock_, *store_, *scheduler_, *notifier_,
                                              counters_.overdue_alerts);
    overdue_->Check();
  }
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
  spdlog::info("tqd {} listening on {} (state {}, max_running {})", TQ_VERSION,
               options_.socket_path, options_.state_dir, options_.config->max_running);
  service_.Ready();
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

void Daemon::Run() {
  loop_.Run();
}

void Daemon::OnSignal() {
  signalfd_siginfo info{};
  while (read(signal_fd_, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo == SIGHUP) {
      spdlog::info("SIGHUP: reloading the job files");
      service_.Reloading();
      scheduler_->Reload();  // logs what it did
      service_.Ready();
      continue;
    }
    spdlog::info("signal {}: stopping; running tasks continue under their supervisors",
                 info.ssi_signo);
    service_.Stopping();
    server_->Shutdown();
    loop_.Stop();
  }
}

void Daemon::OnFrame(ConnId conn, const Owner& peer, const std::string& payload) {
  auto request = DecodeRequest(payload);
  if (!request.ok()) {
    server_->Send(conn, ErrorResponse(request.status()));
    return;
  }
  HandleRequest(*this, conn, peer, *request);
}

Result<Task> Daemon::GetVisible(const Owner& peer, TaskId id) {
  return Visible(peer, id, store_->Get(id));
}

Result<Task> Daemon::GetVisibleSummary(const Owner& peer, TaskId id) {
  return Visible(peer, id, store_->GetSummary(id));
}

Result<Task> Daemon::Visible(const Owner& peer, TaskId id, Result<Task> task) {
  if (!task.ok() || !AccessFor(peer).Sees(task->owner.uid))
    return task.ok() || task.status().code() == ErrorCode::kNotFound
               ? Status::NotFound("task " + std::to_string(id) + " not found")
               : task.status();
  return task;
}

Status Daemon::AdmitSubmits(const Owner& peer, int64_t count) {
  int64_t queued = 0;
  for (const auto& [conn, item] : pending_submits_) queued += item.owner.uid == peer.uid;
  return limits_.Admit(*store_, peer, count, queued);
}

Access Daemon::AccessFor(const Owner& peer) const {
  const UserRules& rules = options_.config->users;
  const bool member = !rules.admin_group.empty() && peer.uid != 0 &&
                      admin_members_.Contains(peer, rules.admin_group);
  return AccessOf(peer, geteuid(), rules, member);
}

Status Daemon::CheckQueue(const Owner& peer, const std::string& queue) const {
  const QueueUsers& allowed = options_.config->Queue(queue).users;
  if (!allowed.restricted) return Status::Ok();
  return CheckQueueUse(
      queue, allowed, peer.name, AccessFor(peer).admin,
      [&](const std::string& group) { return admin_members_.Contains(peer, group); });
}

void Daemon::ScheduleDispatch() {
  loop_.Defer(this, [this] { Dispatch(); });
}

int Daemon::QueueCap(const QueueState& queue) const {
  return queue.concurrency ? *queue.concurrency : options_.config->Queue(queue.name).concurrency;
}

void Daemon::Dispatch() {
  service_.StatusChanged();
  auto promoted = store_->PromoteDue(clock_.WallNow(), kPromoteBatch);
  if (!promoted.ok()) spdlog::error("{}", promoted.status().message());
  if (promoted.ok() && *promoted == kPromoteBatch) ScheduleDispatch();  // the rest next turn
  // Only the queues that hold a ready task: the picks below never walk idle queues.
  auto queues = store_->ReadyQueues();
  if (!queues.ok()) {
    spdlog::error("{}", queues.status().message());
    ArmTimers();
    return;
  }
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const UniformSource uniform = [this, &dist] { return dist(rng_); };
  for (;;) {
    // The caps are counted where the attempts are: in the store, read again after each start.
    auto running = store_->RunningCounts();
    if (!running.ok()) {
      spdlog::error("{}", running.status().message());
      break;
    }
    if (RunningCount(*running, std::nullopt) >= options_.config->max_running) break;
    std::vector<std::string> open;
    for (const QueueState& q : *queues) {
      const int cap = QueueCap(q);
      if (!q.paused && (cap == 0 || RunningCount(*running, q.name) < cap)) open.push_back(q.name);
    }
    auto by_owner = store_->RunningByOwner();
    if (!by_owner.ok()) {
      spdlog::error("{}", by_owner.status().message());
      break;
    }
    StoreReadySource ready(*store_, std::move(open), std::move(*by_owner), served_,
                           [this](uint32_t owner, int running) {
                             if (lookup_holds_.Held(owner)) return true;
                             const UserLimits* limits = limits_.Of(owner);
                             if (limits == nullptr) return false;
                             if (limits->max_running > 0 && running >= limits->max_running)
                               return true;
                             // Output kept past output_bytes holds the user's tasks back too.
                             auto kept = store_->OutputOf(owner);
                             return kept.ok() && *kept >= limits->output_bytes;
                           });
    auto pick = PickNext(ready, options_.config->high_share, uniform);
    if (!pick) break;
    ++counters_.picks[pick->priority];
    served_.Served(pick->owner_uid);
    if (!StartTask(pick->id)) break;
  }
  ArmTimers();
}

Resources Daemon::ResourcesOf(const Task& task) const {
  // A queue closed to the owner since the submit (a reload) lends it nothing any more.
  Resources res = CheckQueue(task.owner, task.spec.queue).ok()
                      ? options_.config->Queue(task.spec.queue).resources
                      : Resources();
  const JobDef* def =
      task.spec.job && scheduler_ ? scheduler_->Definition(*task.spec.job) : nullptr;
  if (def == nullptr) return res;
  // A user's own job (USER/NAME) gets what is stricter of its own and its queue's.
  return def->name.find('/') == std::string::npos ? res.With(def->resources)
                                                  : res.Narrowed(def->resources);
}

bool Daemon::StartTask(TaskId id) {
  auto task = store_->Get(id);
  std::optional<Result<Account>> account;
  if (task.ok() && options_.run_as_owner) account = AccountOf(task->owner);
  if (account && account->status().code() == ErrorCode::kNotFound) {
    spdlog::warn("task {} fails user-gone: {}", id, account->status().message());
    // Not stored: stop choosing for now (the task would be picked again at once).
    return EndPending(id, TaskState::kFailed, TaskReason::kUserGone);
  }
  if (account && account->status().code() == ErrorCode::kInternal) {
    // The lookup itself failed: the task waits untouched, and its owner is passed over.
    lookup_holds_.Hold(*task, account->status());
    return true;
  }
  if (account) lookup_holds_.Release(task->owner.uid);
  const WallMs now = clock_.WallNow();
  auto attempt = store_->StartAttempt(id, now);
  if (!attempt.ok()) {
    spdlog::error("{}", attempt.status().message());
    return false;
  }
  if (!attempt->has_value()) return true;  // no longer ready; choose again
  const int n = **attempt;
  if (task.ok()) {
    events_->Started(*task, n);
    // Waiting since it was due: submitted, its --at or delay, or its retry.
    WallMs due = std::max(task->created, task->spec.not_before);
    if (!task->attempts.empty()) due = std::max(due, task->attempts.back().ended);
    counters_.queue_wait.Observe(static_cast<double>(std::max<WallMs>(0, now - due)) / 1000.0);
  }
  Status st = task.ok() ? MakeDir(files_.Dir(id), 0700) : task.status();
  if (st.ok() && account && !account->ok()) st = account->status();  // an entry too large
  if (st.ok() && task->spec.stdin_data) st = WriteFile(files_.Stdin(id), *task->spec.stdin_data);
  Result<int> shim = st;
  if (st.ok()) {
    Launch launch;
    launch.id = id;
    launch.attempt = n;
    launch.argv = task->spec.shell ? std::vector<std::string>{"/bin/sh", "-c", *task->spec.shell}
                                   : task->spec.argv;
    if (account) launch.account = **account;
    if (account) launch.pam_service = options_.pam_service;
    if (account) launch.pam_dir = options_.pam_dir;
    launch.env = AttemptEnvironment(*task, n, launch.account ? &*launch.account : nullptr);
    launch.cwd = task->spec.cwd;
    // A job that names no cwd starts in its user's home, or in / when that is missing (cron).
    const JobDef* def =
        task->spec.job && scheduler_ ? scheduler_->Definition(*task->spec.job) : nullptr;
    if (def != nullptr && def->cwd.empty()) launch.cwd_fallback = "/";
    launch.has_stdin = task->spec.stdin_data.has_value();
    launch.timeout_ms = task->spec.timeout_ms;
    launch.keep_background = task->spec.keep_background;
    launch.resources = ResourcesOf(*task);
    shim = executor_->Start(launch);
  }
  if (!shim.ok()) {
    spdlog::error("task {} attempt {} could not start: {}", id, n, shim.status().message());
    AttemptOutcome outcome;
    outcome.ended = clock_.WallNow();
    outcome.exit_code = 127;  // as the shim records a task it could not start
    outcome.reason = AttemptReason::kSpawnFailed;
    outcome.detail = shim.status().message();
    OnAttemptFinished(id, n, outcome, std::nullopt);
    return true;
  }
  Status pids = store_->SetAttemptPids(id, n, 0, *shim);
  if (!pids.ok()) spdlog::error("{}", pids.message());
  spdlog::debug("task {} attempt {} started (shim pid {})", id, n, *shim);
  return true;
}

void Daemon::OnAttemptFinished(TaskId id, int attempt, const AttemptOutcome& outcome,
                               const std::optional<StopRequest>& stop) {
  AttemptEnd end{id, attempt, outcome, stop};
  Status st = StoreEnd(end);
  if (st.ok()) return;
  if (st.fault() == StoreFault::kNone) {
    spdlog::error("task {} attempt {}: {}", id, attempt, st.message());
    return;
  }
  // The store still says running: keep the end and store it later, so it is never lost.
  spdlog::error("task {} attempt {}: its end is not stored yet, trying again: {}", id, attempt,
                st.message());
  unstored_ends_->Add(std::move(end));
}

Status Daemon::StoreEnd(AttemptEnd& end) {
  const TaskId id = end.id;
  const int attempt = end.attempt;
  const AttemptOutcome& outcome = end.outcome;
  auto task = store_->Get(id);
  if (!task.ok()) return task.status();
  for (const Attempt& a : task->attempts)
    if (a.number == attempt)
      counters_.run_time.Observe(
          static_cast<double>(std::max<WallMs>(0, outcome.ended - a.started)) / 1000.0);
  std::optional<int> failed;
  if (MayRetry(outcome)) {
    auto count = store_->FailedSinceQueued(id);
    if (count.ok()) {
      failed = *count;
    } else if (count.status().fault() != StoreFault::kNone) {
      return count.status();
    } else {
      spdlog::error("task {} attempt {}: {}", id, attempt, count.status().message());
    }
  }
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const AttemptEndDecision decision =
      DecideAttemptEnd(*task, outcome, end.stop, failed,
                       options_.config->Queue(task->spec.queue).retry_priority_penalty,
                       clock_.WallNow(), [&] { return dist(rng_); });
  TaskState state = decision.next;
  const TaskReason reason = decision.reason;
  if (decision.event == TaskEvent::kRetry) {
    Status st =
        store_->RetryLater(id, attempt, outcome, decision.retry_at, decision.retry_priority);
    if (st.ok()) {
      events_->Retrying(*task, attempt, outcome);
      spdlog::info("task {} attempt {} failed ({}); retry {}/{} in {} ms", id, attempt,
                   AttemptReasonName(outcome.reason), *failed, task->spec.retry.retries,
                   decision.delay_ms);
      ScheduleDispatch();
      return Status::Ok();
    }
    if (st.fault() != StoreFault::kNone) return st;
    spdlog::error("task {} attempt {}: {}", id, attempt, st.message());
    state = TaskState::kFailed;
  }
  auto ended = store_->FinishAttempt(id, attempt, outcome, state, reason);
  if (!ended.ok()) return ended.status();
  spdlog::info("task {} attempt {} ended: {} ({})", id, attempt, StateName(state),
               TaskReasonName(reason));
  ended->insert(ended->begin(), id);
  NotifyTerminal(*ended);
  ScheduleDispatch();
  return Status::Ok();
}

bool Daemon::EndPending(TaskId id, TaskState state, TaskReason reason) {
  auto ended = store_->EndPending(id, state, reason, clock_.WallNow());
  if (!ended.ok()) {
    spdlog::error("{}", ended.status().message());
    waiters_->Fail(id, ended.status());  // a cancel waiting for it must not hang
    return false;
  }
  NotifyTerminal(*ended);
  return true;
}

void Daemon::StopRunning(TaskId id, TaskReason reason) {
  executor_->Terminate(id, AttemptReason::kCancelled, reason);
}

void Daemon::NotifyTerminal(const std::vector<TaskId>& ids) {
  service_.StatusChanged();
  for (TaskId id : ids) {
    auto task = store_->Get(id);
    if (task.ok()) {
      ++counters_.finished[StateName(task->state)];
      events_->Ended(*task);
      waiters_->OnTerminal(*task);
      if (notifier_) notifier_->TaskEnded(*task);
      if (overdue_ && task->spec.job && task->state == TaskState::kSucceeded) overdue_->Check();
    } else {
      spdlog::error("task {} ended but cannot be read: {}", id, task.status().message());
      waiters_->Fail(id, task.status());
    }
  }
}

void Daemon::JobsChanged() {
  if (overdue_) overdue_->Check();
}

RetryPolicy Daemon::RetryPolicyFor(const std::string& queue,
                                   const RetryOverrides& overrides) const {
  return ApplyOverrides(options_.config->Queue(queue).retry, overrides);
}

void Daemon::QueueSubmit(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running) {
  pending_submits_.emplace_back(conn, SubmitItem{peer, std::move(spec), supersede_running});
  loop_.Defer(&pending_submits_, [this] { FlushSubmits(); });
}

void Daemon::FlushSubmits() {
  auto group = std::move(pending_submits_);
  pending_submits_.clear();
  std::vector<SubmitItem> items;
  items.reserve(group.size());
  for (auto& [conn, item] : group) items.push_back(std::move(item));
  const auto results = store_->SubmitGroup(items, clock_.WallNow());
  spdlog::debug("group commit of {} submit(s)", items.size());
  for (size_t i = 0; i < group.size(); ++i)
    AnswerSubmit(*this, group[i].first, items[i], results[i]);
}

nlohmann::json Daemon::QueuesJson(const Owner& peer) {
  // The queues that exist: the default, those of tqd.toml, those given a setting by `tq queue`,
  // and any other while a task of it is pending or running.
  std::map<std::string, QueueState> all;
  all[TaskSpec().queue].name = TaskSpec().queue;
  for (const auto& [name, cfg] : options_.config->queues) all[name].name = name;
  std::set<std::string> active;
  if (auto counts = store_->TaskCounts(); counts.ok())
    for (const TaskCount& c : *counts)
      if (c.state == TaskState::kPending || c.state == TaskState::kRunning) active.insert(c.queue);
  if (auto states = store_->QueueStates(); states.ok())
    for (const QueueState& q : *states)
      if (all.count(q.name) || q.paused || q.concurrency || active.count(q.name)) all[q.name] = q;
  // A user sees the queues of tqd.toml open to them, and the others where they have tasks.
  if (!AccessFor(peer).admin) {
    std::set<std::string> own;
    if (auto mine = store_->ActiveQueuesOf(peer.uid); mine.ok())
      own.insert(mine->begin(), mine->end());
    std::erase_if(all, [&](const auto& entry) {
      const std::string& name = entry.first;
      const bool listed = name == TaskSpec().queue || options_.config->queues.count(name);
      return !own.count(name) && (!listed || !CheckQueue(peer, name).ok());
    });
  }
  auto running = store_->RunningCounts();
  if (!running.ok()) spdlog::error("{}", running.status().message());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, q] : all) {
    const int cap = QueueCap(q);
    out.push_back({{"name", name},
                   {"paused", q.paused},
                   {"concurrency", cap == 0 ? nlohmann::json() : nlohmann::json(cap)},
                   {"running", running.ok() ? RunningCount(*running, name) : 0}});
  }
  return out;
}

void Daemon::RemoveTaskFiles(const std::vector<TaskId>& ids) {
  for (TaskId id : ids) {
    std::error_code ec;
    std::filesystem::remove_all(files_.Dir(id), ec);
    if (ec) spdlog::warn("cannot remove {}: {}", files_.Dir(id), ec.message());
  }
}

// Arms the timers for what is next due: delayed tasks (not_before) and the watcher. Their times
// are wall-clock times, so they are wall timers: a task --at 14:30 starts at 14:30 even after the
// clock was stepped, and a clock set re-arms them (Open). Nothing due, no timer: an idle daemon
// sleeps until something happens.
void Daemon::ArmTimers() {
  if (due_timer_) loop_.CancelTimer(due_timer_);
  due_timer_ = 0;
  auto due = store_->NextDue();
  if (!due.ok()) spdlog::error("{}", due.status().message());
  std::optional<WallMs> due_at = due.ok() ? *due : SaturatingAdd(clock_.WallNow(), kNextDueRetryMs);
  if (const std::optional<MonoMs> retry = lookup_holds_.NextRetry()) {
    const WallMs at = clock_.WallNow() + (*retry - clock_.MonoNow());  // held owners: try again
    due_at = due_at ? std::min(*due_at, at) : at;
  }
  if (due_at)
    due_timer_ = loop_.AddWallTimer(*due_at, [this] {
      due_timer_ = 0;
      Dispatch();
    });
  if (watcher_timer_) loop_.CancelTimer(watcher_timer_);
  watcher_timer_ = 0;
  if (const std::optional<WallMs> watch_at = watcher_->NextDue())
    watcher_timer_ = loop_.AddWallTimer(*watch_at, [this] {
      watcher_timer_ = 0;
      watcher_->RunDue();
      ScheduleDispatch();  // dependencies may have failed, queues may have room
    });
}

// SPEC 6: an attempt whose supervisor never started is undone, without using a retry. One that
// was asked to stop meanwhile ends as the stop said; one the store cannot undo is lost.
void Daemon::ReturnToPending(TaskId id, int attempt, AttemptOutcome outcome,
                             const std::optional<StopRequest>& stop) {
  if (stop) {
    outcome.reason = stop->attempt_reason;
  } else if (Status st = store_->UnstartAttempt(id, attempt); st.ok()) {
    spdlog::info("task {} attempt {} never started; the task is pending again", id, attempt);
    events_->Reread({id}, "unstarted");
    ScheduleDispatch();
    return;
  } else {
    spdlog::error("task {} attempt {}: {}", id, attempt, st.message());
  }
  outcome.never_started = false;
  OnAttemptFinished(id, attempt, outcome, stop);
}

}  // namespace tq
