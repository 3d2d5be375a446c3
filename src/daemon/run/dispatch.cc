#include "daemon/run/dispatch.h"

#include <unistd.h>

#include <algorithm>
#include <string_view>

#include "core/model/saturating.h"
#include "core/model/shard_spread.h"
#include "core/model/stage_progress.h"
#include "core/policy/attempt_end.h"
#include "core/policy/context_env.h"
#include "core/policy/task_env.h"
#include "daemon/host/context_dirs.h"
#include "daemon/host/host_state.h"
#include "daemon/host/log.h"
#include "daemon/host/private_files.h"
#include "daemon/run/attempt_output.h"
#include "daemon/run/turn_ready.h"
#include "daemon/users/accounts.h"

namespace tq {

namespace {

// When the store cannot say what is due next, dispatch looks again this much later.
constexpr MonoMs kNextDueRetryMs = 5 * 60 * 1000;
// Delayed tasks made ready per turn of the loop; more wait for the next turn.
constexpr int kPromoteBatch = 1000;
// How long a host leaves a shard to the other hosts at most (LeavesShardNow): enough for a host
// told by a NOTIFY, or at its next poll, to take it.
constexpr MonoMs kLeaveShardMs = 5000;
// How soon a host looks again at capped queues whose rows another host's claim held (with a
// shared store): that claim lasts one turn.
constexpr MonoMs kHeldQueueRetryMs = 100;

// The ready tasks of `queue` that host `host` may take (SPEC 12): with one host's store every
// task; with a shared one those placed on it, and those placed on none if the queue lets it.
ReadyPlaces ReadyPlacesOf(const Config& config, const std::string& host, const std::string& queue) {
  if (!config.Shared()) return ReadyPlaces();
  return ReadyPlaces{host, TakesUnplaced(config.Queue(queue).hosts, host)};
}

// True when some user has a max_running of their own ([user_limits] or [users.NAME]).
bool AnyUserCap(const Config& config) {
  if (config.user_limits.max_running > 0) return true;
  for (const auto& [name, limits] : config.user_overrides)
    if (limits.max_running > 0) return true;
  return false;
}

// A unit request of ready tasks: as stored, and as read (nullopt when it does not read).
using ReadyRequest = std::pair<std::string, std::optional<UnitRequest>>;

// Of the ready tasks' unit `requests`, the stored spellings of those that `held` leaves too few
// units for (or that do not read).
std::vector<std::string> UnfitRequests(const std::vector<ReadyRequest>& requests,
                                       const UnitPools& pools, const UnitsHeld& held) {
  std::vector<std::string> unfit;
  for (const auto& [text, request] : requests)
    if (!request || !ShortResource(*request, pools, held).empty()) unfit.push_back(text);
  return unfit;
}

}  // namespace

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

int QueueCap(const QueueState& queue, const Config& config) {
  return queue.concurrency ? *queue.concurrency : config.Queue(queue.name).concurrency;
}

PriorityMix QueueMix(const QueueState& queue, const Config& config) {
  return queue.priority_mix ? *queue.priority_mix : config.Queue(queue.name).priority_mix;
}

Dispatcher::Dispatcher(DispatchParts parts, DispatchEvents events, const MakeRunner& make_runner)
    : parts_(std::move(parts)),
      events_(std::move(events)),
      runner_(make_runner(
          Runner::Callbacks{[this](TaskId id, int attempt, const AttemptOutcome& outcome,
                                   const std::optional<StopRequest>& stop) {
                              if (outcome.never_started)
                                return ReturnToPending(id, attempt, outcome, stop);
                              OnAttemptFinished(id, attempt, outcome, stop);
                            },
                            [this](TaskId id, int attempt, const StopRequest& stop) {
                              RecordStop(id, attempt, stop);
                            }})),
      unstored_ends_(parts_.loop, parts_.clock,
                     [this](AttemptEnd& end) {
                       News news;
                       Status st = StoreEnd(end, news);
                       if (st.ok()) {
                         Tell(news);
                         Schedule();  // its slot is free
                       } else if (st.fault() == StoreFault::kNone) {
                         EndRefused(end, st);
                       }
                       return st;
                     }),
      faults_(parts_.clock, "the store takes writes again"),
      start_faults_(parts_.clock, "attempts start again"),
      watcher_(
          parts_.store, parts_.clock, parts_.config,
          [this](const std::vector<TaskId>& ids) { events_.ended(ids, {}); },
          [this](const std::vector<TaskId>& ids) { RemoveTaskFiles(ids); }),
      rng_(std::random_device{}()) {}

Dispatcher::~Dispatcher() {
  if (due_timer_) parts_.loop.CancelTimer(due_timer_);
  if (watcher_timer_) parts_.loop.CancelTimer(watcher_timer_);
}

void Dispatcher::Schedule() {
  parts_.loop.Defer(this, [this] { Turn(); });
}

void Dispatcher::JoinNextTurn(std::function<void()> in_turn,
                              std::function<void(const Status&)> after) {
  guests_.emplace_back(std::move(in_turn), std::move(after));
  Schedule();
}

// One turn: what joined it (the loop turn's submits), the attempts that ended since the last
// one are stored, due tasks made ready and free slots filled, all in one transaction and one
// sync; what it did is told and the claimed tasks are launched only once it is committed (the
// store's AfterCommit). With a shared store the claims pass over the rows other hosts' claims
// hold, and wait for none.
void Dispatcher::Turn() {
  events_.turn();
  std::vector<AttemptEnd> ends = std::move(ends_);
  ends_.clear();
  auto guests = std::move(guests_);
  guests_.clear();
  News news;
  std::vector<Claim> claims;
  std::vector<AttemptEnd> unstored;
  std::vector<std::pair<TaskId, int>> stored;   // ends whose records a restart no longer needs
  std::vector<std::pair<TaskId, int>> settled;  // ends stored or refused for good
  bool more_due = false;
  std::optional<WallMs> next_due;  // read with the promotion, kept once the turn commits
  bool promoted_ok = false;
  // While a full disk keeps attempts from starting, none is claimed until the pause is over.
  std::optional<MonoMs> starts_wait = start_faults_.PausedUntil();
  if (starts_wait && *starts_wait <= parts_.clock.MonoNow()) starts_wait.reset();
  const bool choose = !starts_wait;
  const auto turn = [&] {
    for (auto& [in_turn, after] : guests) in_turn();
    for (AttemptEnd& end : ends) {
      Status st = StoreEnd(end, news);
      if (st.ok() && end.outcome.reason != AttemptReason::kLost)
        stored.emplace_back(end.id, end.attempt);
      if (st.fault() == StoreFault::kNone) settled.emplace_back(end.id, end.attempt);
      if (st.ok()) continue;
      if (st.fault() == StoreFault::kNone) {
        EndRefused(end, st);
        continue;
      }
      // The store still says running: keep the end and store it later, so it is never lost.
      StoreFailed(fmt::format("task {} attempt {}: its end is not stored yet, trying again: {}",
                              end.id, end.attempt, st.message()));
      unstored.push_back(end);
    }
    auto promoted = parts_.store.PromoteDue(parts_.clock.WallNow(), kPromoteBatch, &next_due);
    if (!promoted.ok()) StoreFailed(promoted.status().message());
    more_due = promoted.ok() && *promoted == kPromoteBatch;  // the rest next turn
    promoted_ok = promoted.ok();
    if (choose) Choose(claims, news);
    // Run before WriteTogether returns, while the turn's locals live; never if it rolls back.
    parts_.store.AfterCommit([&] {
      for (const auto& [id, attempt] : stored) runner_->EndStored(id, attempt);
      for (const auto& key : settled) started_.erase(key);
      for (auto& [in_turn, after] : guests) after(Status::Ok());
      if (!guests.empty() || !ends.empty()) events_.shared();
      Tell(news);
      for (Claim& claim : claims) Start(claim);
    });
    return Status::Ok();
  };
  Status committed = parts_.store.WriteTogether(turn, TurnSync(guests.empty(), ends));
  if (!committed.ok()) {
    // Nothing of the turn is stored: every end is kept for later, no claimed task starts.
    StoreFailed(fmt::format("a turn of dispatch is not stored ({} end(s) kept to try again): {}",
                            ends.size(), committed.message()));
    unstored = std::move(ends);
    for (auto& [in_turn, after] : guests) after(committed);
  }
  for (AttemptEnd& end : unstored) unstored_ends_.Add(std::move(end));
  if (committed.ok() && more_due) Schedule();
  // The next due time the turn read, once it is committed; else as the store says it now.
  ArmTimers(starts_wait, committed.ok() && promoted_ok ? Result<std::optional<WallMs>>(next_due)
                                                       : parts_.store.NextDue());
  faults_.EndRound();
}

CommitSync Dispatcher::TurnSync(bool no_submits, const std::vector<AttemptEnd>& ends) {
  // A submit was promised durable; a cancel's end must not come back as a retry after a power
  // cut. Claims and the other ends run again after one at worst, as their records would.
  const bool cancelled = std::any_of(ends.begin(), ends.end(), [](const AttemptEnd& end) {
    return end.outcome.reason == AttemptReason::kCancelled;
  });
  return no_submits && !cancelled ? CommitSync::kLater : CommitSync::kNow;
}

void Dispatcher::Tell(const News& news) {
  for (const double seconds : news.run_seconds) parts_.counters.run_time.Observe(seconds);
  for (const int priority : news.picks) ++parts_.counters.picks[priority];
  for (const auto& [task, attempt, outcome] : news.retrying)
    events_.retrying(task, attempt, outcome);
  for (const auto& [task, attempt, outcome] : news.advanced)
    events_.advanced(task, attempt, outcome);
  for (const TaskId id : news.ended) not_started_.erase(id);
  if (!news.ended.empty()) events_.ended(news.ended, news.finished);
}

void Dispatcher::Choose(std::vector<Claim>& claims, News& news) {
  // Only the queues that hold a ready task: the picks below never walk idle queues.
  auto queues = parts_.store.ReadyQueues();
  if (!queues.ok()) {
    StoreFailed(queues.status().message());
    return;
  }
  // The different unit requests of the ready tasks (SPEC 14), read once; most daemons have none.
  auto stored = parts_.store.ReadyUnitRequests();
  if (!stored.ok()) {
    StoreFailed(stored.status().message());
    return;
  }
  std::vector<ReadyRequest> requests;
  for (std::string& text : *stored) {
    std::optional<UnitRequest> request = DecodeUnitRequest(text);
    requests.emplace_back(std::move(text), std::move(request));
  }
  if (parts_.config->Shared()) {
    // A queue's concurrency, and a user's max_running, count every host's attempts: claims in
    // a capped queue (in every queue, while some user has a cap) take turns across the hosts,
    // each counting the others' (read below, after the hold). A capped queue another host's
    // claim holds is passed over this turn, and looked at again shortly: hosts never wait for
    // each other's claims.
    const bool users_capped = AnyUserCap(*parts_.config);
    std::vector<std::string> capped;
    for (const QueueState& q : *queues)
      if (users_capped || QueueCap(q, *parts_.config) > 0) capped.push_back(q.name);
    auto held_queues = parts_.store.HoldQueues(capped);
    if (!held_queues.ok()) {
      StoreFailed(held_queues.status().message());
      return;
    }
    std::set<std::string> passed(capped.begin(), capped.end());
    for (const std::string& name : *held_queues) passed.erase(name);
    if (!passed.empty()) {
      queue_retry_at_ = parts_.clock.MonoNow() + kHeldQueueRetryMs;
      std::erase_if(*queues, [&](const QueueState& q) { return passed.count(q.name) > 0; });
    }
  }
  // A shard left long ago was taken elsewhere, or went away.
  std::erase_if(leaving_, [now = parts_.clock.MonoNow()](const auto& entry) {
    return now - entry.second > 12 * kLeaveShardMs;
  });
  std::set<uint32_t> passing;  // owners whose shard was left to another host: passed over now
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const UniformSource uniform = [this, &dist] { return dist(rng_); };
  // The caps are counted where the attempts are, in the store: read once, then kept up to date
  // with this turn's claims (nothing else starts an attempt while the turn's transaction holds
  // the queues). With a shared store they are the cluster's counts.
  auto tally = parts_.store.Running();
  if (!tally.ok()) return StoreFailed(tally.status().message());
  std::map<std::string, int>& running = tally->by_queue;
  // Tasks whose units are not all free are passed over: the chooser weighs only the others.
  Result<std::vector<UnitHolder>> holders =
      requests.empty() ? Result<std::vector<UnitHolder>>(std::vector<UnitHolder>())
                       : parts_.store.HeldUnits();
  if (!holders.ok()) return StoreFailed(holders.status().message());
  UnitsHeld held = UnitsHeldBy(*holders);
  std::map<uint32_t, bool> over_output;  // owners whose kept output holds their tasks back
  TurnReadySource ready(
      parts_.store, UnfitRequests(requests, parts_.config->unit_pools, held),
      std::move(tally->by_owner), served_,
      [this, &passing, &over_output](uint32_t owner, int running) {
        if (parts_.holds.Held(owner) || passing.count(owner) > 0) return true;
        const UserLimits* limits = parts_.limits.Of(owner);
        if (limits == nullptr) return false;
        if (limits->max_running > 0 && running >= limits->max_running) return true;
        // Output kept past output_bytes holds the user's tasks back too.
        auto [it, added] = over_output.emplace(owner, false);
        if (added) {
          auto kept = parts_.store.OutputOf(owner);
          it->second = kept.ok() && *kept >= limits->output_bytes;
        }
        return it->second;
      },
      [this](const std::string& message) { StoreFailed(message); });
  for (;;) {
    // max_running is this host's: with a shared store, the store's counts are the cluster's.
    const int here = parts_.config->Shared()
                         ? runner_->RunningHere() + static_cast<int>(claims.size())
                         : RunningCount(running, std::nullopt);
    if (here >= parts_.config->max_running) break;
    std::vector<OpenQueue> open;
    for (const QueueState& q : *queues) {
      const int cap = QueueCap(q, *parts_.config);
      if (!q.paused && (cap == 0 || RunningCount(running, q.name) < cap))
        open.push_back({q.name, QueueMix(q, *parts_.config),
                        ReadyPlacesOf(*parts_.config, parts_.host, q.name)});
    }
    ready.Open(std::move(open));
    auto pick = PickNext(ready, parts_.config->high_share, uniform);
    if (!pick) break;
    news.picks.push_back(pick->priority);
    served_.Served(pick->owner_uid);
    const size_t claimed = claims.size();
    if (!ClaimTask(*pick, held, claims, news, passing)) break;
    const bool started = claims.size() > claimed;
    ready.Picked(pick->owner_uid, started);
    if (!started) continue;
    const Claim& claim = claims.back();
    if (claim.task.ok()) ++running[claim.task->spec.queue];
    if (claim.units.empty()) continue;
    for (const auto& [resource, units] : claim.units)
      held[resource].insert(units.begin(), units.end());
    ready.Unfit(UnfitRequests(requests, parts_.config->unit_pools, held));
  }
}

Resources Dispatcher::ResourcesOf(const Task& task) const {
  // A queue closed to the owner since the submit (a reload) lends it nothing any more.
  Resources res = parts_.access.CheckQueue(task.owner, task.spec.queue).ok()
                      ? parts_.config->Queue(task.spec.queue).resources
                      : Resources();
  const JobDef* def = task.spec.job ? events_.job(*task.spec.job) : nullptr;
  if (def == nullptr) return res;
  // A user's own job (USER/NAME) gets what is stricter of its own and its queue's.
  return def->name.find('/') == std::string::npos ? res.With(def->resources)
                                                  : res.Narrowed(def->resources);
}

bool Dispatcher::ClaimTask(const Candidate& pick, const UnitsHeld& held, std::vector<Claim>& claims,
                           News& news, std::set<uint32_t>& passing) {
  const TaskId id = pick.id;
  // The task is read before its start where the start depends on more than the chooser read:
  // its units, or a shard this host may leave to another.
  std::optional<Result<Task>> task;
  if (pick.uses_units || (parts_.config->Shared() && pick.unplaced_shard))
    task = parts_.store.Get(id);
  const bool read = task && task->ok();
  const Owner owner = read ? (*task)->owner : Owner{pick.owner_uid, 0, pick.owner_name};
  std::optional<Result<Account>> account;
  if ((!task || read) && parts_.run_as.owner) account = AccountOf(owner);
  if (account && account->status().code() == ErrorCode::kNotFound) {
    LogWarn("task {} fails user-gone: {}", id, account->status().message());
    auto ended = parts_.store.EndPending(id, TaskState::kFailed, TaskReason::kUserGone,
                                         parts_.clock.WallNow());
    if (!ended.ok()) {
      // Not stored: stop choosing for now (the task would be picked again at once).
      StoreFailed(ended.status().message());
      return false;
    }
    news.ended.insert(news.ended.end(), ended->begin(), ended->end());
    return true;
  }
  if (account && account->status().code() == ErrorCode::kInternal) {
    // The lookup itself failed: the task waits untouched, and its owner is passed over.
    parts_.holds.Hold(id, owner.uid, account->status());
    return true;
  }
  if (account) parts_.holds.Release(owner.uid);
  if (read && LeavesShardNow(**task)) {
    passing.insert(owner.uid);
    return true;
  }
  UnitGrant units;
  if (read && !(*task)->spec.use.empty()) {
    std::optional<UnitGrant> grant = GrantUnits((*task)->spec.use, parts_.config->unit_pools, held);
    if (!grant) {  // the chooser passed over what does not fit: never here
      LogError("task {}: its units are not free", id);
      return false;
    }
    units = std::move(*grant);
  }
  const WallMs now = parts_.clock.WallNow();
  // The task read above is started; else it is started and read in one step.
  Result<std::optional<StartedAttempt>> started =
      task ? parts_.store.StartRead(id, std::move(*task), now, units)
           : parts_.store.StartAndRead(id, now, units);
  if (!started.ok()) {
    StoreFailed(started.status().message());
    return false;
  }
  if (!started->has_value()) return true;  // no longer ready; choose again
  StartedAttempt& claimed = **started;
  claims.push_back(
      Claim{id, claimed.number, std::move(claimed.task), std::move(account), std::move(units)});
  return true;
}

bool Dispatcher::LeavesShardNow(const Task& task) {
  if (!parts_.config->Shared() || !task.spec.shard || !task.spec.run_on.empty()) return false;
  const MonoMs now = parts_.clock.MonoNow();
  const auto since = leaving_.emplace(task.id, now).first;  // the first time it was left
  if (now - since->second >= kLeaveShardMs) {
    leaving_.erase(since);
    return false;
  }
  auto shards = parts_.store.ShardsOf(task.spec.shard->group);
  const WallMs wall = parts_.clock.WallNow();
  auto hosts = parts_.store.Hosts(wall);
  if (!shards.ok() || !hosts.ok()) {
    leaving_.erase(since);
    return false;  // the store says why at the claim
  }
  const QueueHosts& allowed = parts_.config->Queue(task.spec.queue).hosts;
  std::vector<ShardHost> weighed;
  for (const HostRecord& h : *hosts) {
    ShardHost s{h.name, 0, false};
    for (const ShardState& shard : *shards)
      if (shard.state == TaskState::kRunning && shard.host == h.name) ++s.shards;
    const std::string_view state =
        HostStateName(h, parts_.host, true, HeartbeatAgeMs(h), parts_.config->host_lease_ms);
    s.open = state == "live" && TakesUnplaced(allowed, h.name) && h.running < h.max_running;
    weighed.push_back(std::move(s));
  }
  const bool leaves = LeavesShard(parts_.host, weighed);
  if (!leaves) leaving_.erase(since);
  return leaves;
}

void Dispatcher::Start(Claim& claim) {
  const TaskId id = claim.id;
  const int n = claim.attempt;
  const Result<Task>& task = claim.task;
  const WallMs now = parts_.clock.WallNow();
  not_started_.erase(id);
  if (task.ok()) {
    Task& kept = started_[{id, n}] = *task;
    kept.spec.stdin_data.reset();  // launched from the claim; an end needs none of its 8 MiB
    events_.started(*task, n);
    // Waiting since it was due: submitted, its --at or delay, or its retry.
    WallMs due = std::max(task->created, task->spec.not_before);
    const size_t before = task->attempts.size() - 1;  // the attempt before this one, if any
    if (before > 0) due = std::max(due, task->attempts[before - 1].ended);
    parts_.counters.queue_wait.Observe(static_cast<double>(std::max<WallMs>(0, now - due)) /
                                       1000.0);
  }
  std::string note;
  Result<Launch> launch = LaunchOf(claim, &note);
  Result<int> shim = launch.ok() ? runner_->Start(*launch) : Result<int>(launch.status());
  if (!shim.ok() && NoRoomIn(parts_.files.Dir(id))) {
    // Its files could not be made for want of space: nothing ran (SPEC 6).
    AttemptOutcome outcome;
    outcome.ended = parts_.clock.WallNow();
    outcome.exit_code = 127;  // should it not be undone: as below
    outcome.reason = AttemptReason::kSpawnFailed;
    outcome.never_started = true;
    outcome.detail = std::string(kNoSpaceDetail) + " (" + shim.status().message() + ")";
    ReturnToPending(id, n, outcome, std::nullopt);
    return;
  }
  if (!shim.ok()) {
    LogError("task {} attempt {} could not start: {}", id, n, shim.status().message());
    AttemptOutcome outcome;
    outcome.ended = parts_.clock.WallNow();
    outcome.exit_code = 127;  // as the shim records a task it could not start
    outcome.reason = AttemptReason::kSpawnFailed;
    outcome.detail = shim.status().message();
    OnAttemptFinished(id, n, outcome, std::nullopt);
    return;
  }
  LogDebug("task {} attempt {} started (shim pid {})", id, n, *shim);
  if (note.empty()) return;
  if (Status st = parts_.store.NoteAttempt(id, n, note); !st.ok()) {
    LogError("task {} attempt {}: its note is not stored: {}", id, n, st.message());
    return;
  }
  if (auto it = started_.find({id, n}); it != started_.end())
    it->second.attempts.back().detail = note;
}

Result<Launch> Dispatcher::LaunchOf(const Claim& claim, std::string* note) const {
  const Result<Task>& task = claim.task;
  const std::optional<Result<Account>>& account = claim.account;
  if (!task.ok()) return task.status();
  if (Status st = parts_.files.MakeDirFor(claim.id); !st.ok()) return st;
  if (account && !account->ok()) return account->status();  // an entry too large
  if (task->spec.stdin_data)
    if (Status st = WritePrivateFile(parts_.files.Stdin(claim.id), *task->spec.stdin_data);
        !st.ok())
      return st;
  Launch launch;
  launch.id = claim.id;
  launch.attempt = claim.attempt;
  launch.argv = StageCommand(task->spec, task->stage);
  if (account) launch.account = **account;
  if (account) launch.pam_service = parts_.run_as.pam_service;
  if (account) launch.pam_dir = parts_.run_as.pam_dir;
  const Account* runs_as = launch.account ? &*launch.account : nullptr;
  Result<StageEnvironment> stage_env = StageEnvironmentOf(*task, runs_as);
  if (!stage_env.ok()) return stage_env.status();
  for (const std::string& why : stage_env->left_out)
    *note += (note->empty() ? "not passed on from $TQ_CONTEXT/env: " : "; ") + why;
  launch.env = AttemptEnvironment(*task, claim.attempt, runs_as, claim.units, *stage_env);
  launch.cwd = task->spec.cwd;
  // A job that names no cwd starts in its user's home, or in / when that is missing (cron).
  const JobDef* def = task->spec.job ? events_.job(*task->spec.job) : nullptr;
  if (def != nullptr && def->cwd.empty()) launch.cwd_fallback = "/";
  launch.has_stdin = task->spec.stdin_data.has_value();
  launch.timeout_ms = StageTimeout(task->spec, task->stage);
  launch.keep_background = task->spec.keep_background;
  launch.resources = ResourcesOf(*task);
  return launch;
}

Result<StageEnvironment> Dispatcher::StageEnvironmentOf(const Task& task,
                                                        const Account* account) const {
  StageEnvironment env;
  if (task.spec.stages.empty()) return env;
  std::optional<std::pair<uint32_t, uint32_t>> owner;
  if (account != nullptr) owner.emplace(account->uid, account->gid);
  Result<std::string> dir = MakeContextDir(parts_.files.ContextRoot(), task.id, owner);
  if (!dir.ok()) return dir.status();
  env.context_dir = *dir;
  Result<ContextEnv> passed =
      ReadContextEnvFile(parts_.files.ContextRoot(), task.id, account ? account->uid : geteuid());
  if (!passed.ok()) return passed.status();
  env.left_out = std::move(passed->refused);
  for (std::string& entry : passed->entries) {
    const std::string name = entry.substr(0, entry.find('='));
    if (IsUnsafeVariable(name)) {  // what steers loaders and shells is never passed on
      env.left_out.push_back(name + " steers loaders or shells");
      continue;
    }
    env.passed_on.push_back(std::move(entry));
  }
  for (const std::string& why : env.left_out)
    LogWarn("task {} stage {}: {}/env: not passed on: {}", task.id,
            StageName(task.spec, task.stage), *dir, why);
  return env;
}

void Dispatcher::EndRefused(const AttemptEnd& end, const Status& refusal) {
  // The store no longer holds the attempt as running here: expected of a copy killed after it
  // passed to another host (a fenced host's), not a fault of this one.
  if (refusal.field() == "attempt")
    LogWarn(
        "task {} attempt {}: its end here is not recorded: {} (another host took it over, or it "
        "was ended meanwhile)",
        end.id, end.attempt, refusal.message());
  else
    LogError("task {} attempt {}: its end cannot be stored: {}", end.id, end.attempt,
             refusal.message());
  ends_refused_.insert({end.id, end.attempt});
}

void Dispatcher::EndRescued(const std::string& host, int64_t silent_ms,
                            const std::vector<RunningAttempt>& attempts) {
  const WallMs last_heard = parts_.clock.WallNow() - std::max<int64_t>(silent_ms, 0);
  for (const RunningAttempt& a : attempts) {
    AttemptOutcome outcome;
    outcome.ended = std::max(a.started, last_heard);
    outcome.reason = AttemptReason::kLost;
    outcome.detail = "lost with host " + host + ", silent past host_lease";
    LogWarn("task {} attempt {}: lost with host {}, silent past host_lease", a.task_id, a.number,
            host);
    OnAttemptFinished(a.task_id, a.number, outcome, a.stop);
  }
}

void Dispatcher::OnAttemptFinished(TaskId id, int attempt, const AttemptOutcome& outcome,
                                   const std::optional<StopRequest>& stop) {
  if (!outcome.never_started) start_faults_.EndRound();  // an attempt ran: starts work again
  ends_.push_back(AttemptEnd{id, attempt, outcome, stop});
  Schedule();
}

Status Dispatcher::StoreEnd(AttemptEnd& end, News& news) {
  const TaskId id = end.id;
  const int attempt = end.attempt;
  const AttemptOutcome& outcome = end.outcome;
  // Its output for every host (SPEC 12), kept with its end (in the same transaction): whoever
  // sees it ended finds its output in the store. Its files stay here too.
  std::optional<StoredOutput> output;
  if (parts_.config->Shared()) output = AttemptOutput(parts_.files, id, attempt).Whole();
  // Before a retry or the next stage, which end no task.
  const auto save_output = [&]() -> Status {
    if (!output) return Status::Ok();
    Status saved = parts_.store.SaveOutput(id, attempt, *output);
    if (saved.fault() != StoreFault::kNone) return saved;
    if (!saved.ok()) LogError("task {} attempt {}: {}", id, attempt, saved.message());
    return Status::Ok();
  };
  const auto kept = started_.find({id, attempt});
  Result<Task> task = kept != started_.end() ? Result<Task>(kept->second) : parts_.store.Get(id);
  if (!task.ok()) return task.status();
  for (const Attempt& a : task->attempts)
    if (a.number == attempt)
      news.run_seconds.push_back(
          static_cast<double>(std::max<WallMs>(0, outcome.ended - a.started)) / 1000.0);
  std::optional<int> failed;
  if (MayRetry(outcome)) {
    auto count = parts_.store.FailedSinceQueued(id);
    if (count.ok()) {
      failed = *count;
    } else if (count.status().fault() != StoreFault::kNone) {
      return count.status();
    } else {
      LogError("task {} attempt {}: {}", id, attempt, count.status().message());
    }
  }
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const AttemptEndDecision decision =
      DecideAttemptEnd(*task, outcome, end.stop, failed,
                       parts_.config->Queue(task->spec.queue).retry_priority_penalty,
                       parts_.clock.WallNow(), [&] { return dist(rng_); });
  TaskState state = decision.next;
  const TaskReason reason = decision.reason;
  if (decision.event == TaskEvent::kAdvance) {
    if (Status saved = save_output(); !saved.ok()) return saved;
    Status st = parts_.store.AdvanceStage(id, attempt, outcome);
    if (st.ok()) {
      LogInfo("task {} attempt {}: stage {} succeeded; next: {}", id, attempt,
              StageName(task->spec, task->stage), StageName(task->spec, task->stage + 1));
      news.advanced.emplace_back(std::move(*task), attempt, outcome);
      return Status::Ok();
    }
    if (st.fault() != StoreFault::kNone) return st;
    LogError("task {} attempt {}: {}", id, attempt, st.message());
    state = TaskState::kFailed;
  }
  if (decision.event == TaskEvent::kRetry) {
    if (Status saved = save_output(); !saved.ok()) return saved;
    Status st =
        parts_.store.RetryLater(id, attempt, outcome, decision.retry_at, decision.retry_priority);
    if (st.ok()) {
      LogInfo("task {} attempt {} failed ({}); retry {}/{} in {} ms", id, attempt,
              AttemptReasonName(outcome.reason), *failed,
              StageRetry(task->spec, task->stage).retries, decision.delay_ms);
      news.retrying.emplace_back(std::move(*task), attempt, outcome);
      return Status::Ok();
    }
    if (st.fault() != StoreFault::kNone) return st;
    LogError("task {} attempt {}: {}", id, attempt, st.message());
    state = TaskState::kFailed;
  }
  auto ended =
      parts_.store.FinishAttempt(id, attempt, outcome, state, reason, output ? &*output : nullptr);
  if (!ended.ok()) return ended.status();
  LogInfo("task {} attempt {} ended: {} ({})", id, attempt, StateName(state),
          TaskReasonName(reason));
  news.ended.push_back(id);
  news.ended.insert(news.ended.end(), ended->begin(), ended->end());
  news.finished.push_back(FinishedTask(std::move(*task), attempt, outcome, state, reason));
  return Status::Ok();
}

bool Dispatcher::EndPending(const std::vector<TaskId>& ids, TaskState state, TaskReason reason) {
  constexpr size_t kBatch = 1000;  // one sync for each, however many a selector named
  bool all = true;
  for (size_t at = 0; at < ids.size(); at += kBatch) {
    const auto first = ids.begin() + static_cast<std::ptrdiff_t>(at);
    const std::vector<TaskId> batch(
        first, first + static_cast<std::ptrdiff_t>(std::min(kBatch, ids.size() - at)));
    auto ended = parts_.store.EndPendingAll(batch, state, reason, parts_.clock.WallNow());
    if (!ended.ok()) {
      LogError("{}", ended.status().message());
      for (TaskId id : batch) events_.end_failed(id, ended.status());  // a cancel must not hang
      all = false;
      continue;
    }
    parts_.store.AfterCommit([this, ended = std::move(*ended)] {
      for (const TaskId id : ended) not_started_.erase(id);
      events_.ended(ended, {});
    });
  }
  return all;
}

void Dispatcher::RecordStop(TaskId id, int attempt, const StopRequest& stop) {
  if (parts_.loop.waiting()) {
    parts_.loop.Defer(nullptr, [this, id, attempt, stop] { RecordStop(id, attempt, stop); });
    return;
  }
  if (Status st = parts_.store.RecordStop(id, attempt, stop); !st.ok())
    LogError("task {} attempt {}: {}", id, attempt, st.message());
}

void Dispatcher::StopRunning(TaskId id, TaskReason reason, const StopSignal& how) {
  // Inside a transaction (a firing that replaces its job's run) only once it commits.
  parts_.store.AfterCommit([this, id, reason, how] { StopNow(id, reason, how); });
}

void Dispatcher::StopNow(TaskId id, TaskReason reason, const StopSignal& how) {
  if (runner_->Terminate(id, AttemptReason::kCancelled, reason, how)) return;
  if (!parts_.config->Shared()) return;
  // Running on another host, which acts on the stop the store keeps.
  auto task = parts_.store.Get(id);
  if (!task.ok() || task->state != TaskState::kRunning) return;
  const StopRequest stop{AttemptReason::kCancelled, reason, parts_.clock.WallNow()};
  if (Status st = parts_.store.RecordStop(id, task->attempt_count, stop); !st.ok()) {
    LogError("task {}: the stop for its host is not stored: {}", id, st.message());
    return;
  }
  events_.shared();
}

void Dispatcher::CheckRunning() {
  auto running = parts_.store.RunningAttempts();
  if (!running.ok()) return;  // the next poll tries again
  std::set<std::pair<TaskId, int>> asked, refused;
  for (const RunningAttempt& a : *running) {
    if (ends_refused_.count({a.task_id, a.number}) != 0) refused.insert({a.task_id, a.number});
    // One taken from a fenced host is ended as lost by its rescue (HostLease), which may be told
    // to this loop a little after the store holds it here.
    if (!Knows(a.task_id, a.number) && a.host == parts_.host) {
      AttemptOutcome never;
      never.never_started = true;
      never.reason = AttemptReason::kLost;
      LogWarn(
          "task {} attempt {} is running in the store but was never started here (a commit whose "
          "answer never came): it is pending again",
          a.task_id, a.number);
      ReturnToPending(a.task_id, a.number, never, a.stop);  // a stop asked of it ends the task
      continue;
    }
    if (!a.stop) continue;
    asked.insert({a.task_id, a.number});
    if (stops_acted_.count({a.task_id, a.number}) == 0)
      runner_->Terminate(a.task_id, a.stop->attempt_reason, a.stop->task_reason, StopSignal{});
  }
  stops_acted_ = std::move(asked);
  ends_refused_ = std::move(refused);  // those the store still holds as running
}

bool Dispatcher::Knows(TaskId id, int attempt) const {
  if (runner_->Runs(id, attempt) || unstored_ends_.Holds(id, attempt)) return true;
  if (ends_refused_.count({id, attempt}) != 0) return true;
  return std::any_of(ends_.begin(), ends_.end(),
                     [&](const AttemptEnd& end) { return end.id == id && end.attempt == attempt; });
}

void Dispatcher::RemoveTaskFiles(const std::vector<TaskId>& ids) {
  if (ids.empty()) return;
  // May block (a context tree of 300,000 files took 5.7 s): off the loop. The store no longer
  // holds these tasks and their ids are never given again, so nothing on the loop uses the files.
  removals_.Post([&files = parts_.files, ids] {
    for (const std::string& why : files.Remove(ids)) LogWarn("cannot remove {}", why);
  });
}

void Dispatcher::RemoveFilesOfGoneTasks() {
  if (!parts_.config->Shared()) return;
  constexpr size_t kAsked = 1000;  // ids asked about in one read
  const std::vector<TaskId> ids = parts_.files.Ids();
  std::vector<TaskId> gone;
  for (size_t at = 0; at < ids.size(); at += kAsked) {
    const std::vector<TaskId> some(
        ids.begin() + static_cast<std::ptrdiff_t>(at),
        ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + kAsked)));
    // Most have ended and are held still: one read says so. Each other one is looked up.
    auto ended = parts_.store.EndedAmong(some);
    if (!ended.ok()) {
      LogError("the tasks of this host's files cannot be read: {}", ended.status().message());
      return;
    }
    const std::set<TaskId> held(ended->begin(), ended->end());
    for (TaskId id : some) {
      if (held.count(id) > 0) continue;
      auto task = parts_.store.GetSummary(id);
      if (task.status().code() == ErrorCode::kNotFound) gone.push_back(id);
    }
  }
  if (gone.empty()) return;
  LogInfo("removing the files of {} task(s) the store no longer holds", gone.size());
  RemoveTaskFiles(gone);
}

// Arms the timers for what is next due: delayed tasks (not_before) and the watcher. Their times
// are wall-clock times, so they are wall timers: a task --at 14:30 starts at 14:30 even after the
// clock was stepped, and a clock set re-arms them (Schedule). Nothing due, no timer: an idle daemon
// sleeps until something happens.
WallMs Dispatcher::WallAt(MonoMs mono) const {
  return parts_.clock.WallNow() + std::max<MonoMs>(0, mono - parts_.clock.MonoNow());
}

void Dispatcher::ArmTimers(std::optional<MonoMs> starts_wait,
                           const Result<std::optional<WallMs>>& due) {
  if (due_timer_) parts_.loop.CancelTimer(due_timer_);
  due_timer_ = 0;
  if (!due.ok()) StoreFailed(due.status().message());
  std::optional<WallMs> due_at =
      due.ok() ? *due : SaturatingAdd(parts_.clock.WallNow(), kNextDueRetryMs);
  for (const std::optional<MonoMs>& retry : {parts_.holds.NextRetry(), queue_retry_at_}) {
    if (!retry) continue;
    const WallMs at = WallAt(*retry);  // held owners, queues another host held: try again
    due_at = due_at ? std::min(*due_at, at) : at;
  }
  queue_retry_at_.reset();
  // A store that failed the last turn is given its pause: what is due waits, not spins.
  std::optional<WallMs> pause_end;
  if (const std::optional<MonoMs> until = faults_.PausedUntil()) pause_end = WallAt(*until);
  if (due_at && pause_end) due_at = std::max(*due_at, *pause_end);
  // Starts a full disk paused are tried again when the pause is over: a millisecond late, as the
  // wall clock's and the monotonic clock's milliseconds may differ.
  if (starts_wait) {
    const WallMs at = WallAt(*starts_wait) + 1;
    due_at = due_at ? std::min(*due_at, at) : at;
  }
  if (due_at)
    due_timer_ = parts_.loop.AddWallTimer(*due_at, [this] {
      due_timer_ = 0;
      Turn();
    });
  if (watcher_timer_) parts_.loop.CancelTimer(watcher_timer_);
  watcher_timer_ = 0;
  if (std::optional<WallMs> watch_at = watcher_.NextDue()) {
    if (pause_end) watch_at = std::max(*watch_at, *pause_end);
    watcher_timer_ = parts_.loop.AddWallTimer(*watch_at, [this] {
      watcher_timer_ = 0;
      if (Status st = watcher_.RunDue(); !st.ok()) StoreFailed("watcher: " + st.message());
      Schedule();  // dependencies may have failed, queues may have room
    });
  }
}

// SPEC 6: an attempt whose supervisor never started is undone, without using a retry. One that
// was asked to stop meanwhile ends as the stop said; one the store cannot undo is lost. One that
// this host could not start (a full disk: it says why in `detail`) waits a growing pause, so a
// full disk is not a loop of forks, and says why it waits.
void Dispatcher::ReturnToPending(TaskId id, int attempt, AttemptOutcome outcome,
                                 const std::optional<StopRequest>& stop) {
  WallMs not_before = 0;
  if (!outcome.detail.empty()) {
    start_faults_.Failed(fmt::format("task {} attempt {} was not started: {}; it is pending again",
                                     id, attempt, outcome.detail));
    start_faults_.EndRound();
    not_before = parts_.clock.WallNow() + start_faults_.pause_ms();
  }
  if (stop) {
    outcome.reason = stop->attempt_reason;
  } else if (Status st = parts_.store.UnstartAttempt(id, attempt, not_before); st.ok()) {
    started_.erase({id, attempt});
    if (outcome.detail.empty())
      LogInfo("task {} attempt {} never started; the task is pending again", id, attempt);
    else
      not_started_.insert_or_assign(id, outcome.detail);
    events_.unstarted(id);
    Schedule();
    return;
  } else {
    LogError("task {} attempt {}: {}", id, attempt, st.message());
  }
  outcome.never_started = false;
  OnAttemptFinished(id, attempt, outcome, stop);
}

std::optional<std::string> Dispatcher::NotStartedWhy(TaskId id) const {
  auto it = not_started_.find(id);
  if (it == not_started_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tq
