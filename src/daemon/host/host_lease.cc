#include "daemon/host/host_lease.h"

#include "daemon/host/log.h"

#include <map>
#include <utility>

namespace tq {

namespace {
constexpr int64_t kStoreErrorLogMs = 60 * 1000;  // a store that stays down: a line a minute
}  // namespace

HostLease::HostLease(EventLoop& loop, const Clock& clock, Store& store, OpenSession open_session,
                     const ConfigPtr& config, std::string host, Callbacks callbacks,
                     Threading threading)
    : loop_(loop),
      clock_(clock),
      store_(store),
      config_(config),
      host_(std::move(host)),
      callbacks_(std::move(callbacks)),
      store_errors_(clock, kStoreErrorLogMs),
      open_session_(std::move(open_session)) {
  if (threading == Threading::kOwnThread) {
    mailbox_ = std::make_unique<LoopMailbox>(loop_);
    work_ = std::make_unique<BackgroundWork>();
  }
}

HostLease::~HostLease() {
  if (timer_ != 0) loop_.CancelTimer(timer_);
  work_.reset();  // a beat under way ends first; what it posts is dropped with the mailbox
}

void HostLease::Start() {
  Beat();
}

void HostLease::Beat() {
  const MonoMs now = clock_.MonoNow();
  // Also while the loop waits for the store: a beat only hands work to the session's thread.
  timer_ = loop_.AddTimer(
      now + config_->host_lease_ms / 3, [this] { Beat(); }, EventLoop::DuringWaits::kYes);
  if (beating_) return;  // the session still waits for the store: this host stays silent
  beating_ = true;
  const int64_t epoch = store_.HostEpoch();
  const int max_running = config_->max_running;
  const int64_t lease_ms = config_->host_lease_ms;
  const WallMs wall = clock_.WallNow();
  if (!work_) {
    Finish(BeatInSession(epoch, max_running, lease_ms, wall));
    return;
  }
  work_->Post([this, epoch, max_running, lease_ms, wall] {
    BeatOutcome outcome = BeatInSession(epoch, max_running, lease_ms, wall);
    mailbox_->Post([this, outcome = std::move(outcome)] { Finish(outcome); });
  });
}

HostLease::BeatOutcome HostLease::BeatInSession(int64_t epoch, int max_running, int64_t lease_ms,
                                                WallMs now) {
  BeatOutcome out;
  if (!session_) {
    Result<std::unique_ptr<Store>> opened = open_session_();
    if (!opened.ok()) {
      out.errors.push_back("host " + host_ + ": heartbeat not stored: the lease's session: " +
                           opened.status().message());
      return out;
    }
    session_ = std::move(*opened);
    session_epoch_ = 0;
  }
  if (session_epoch_ != epoch) {  // the first beat, or this host joined again
    if (Status s = session_->ActForHost(host_, epoch); !s.ok()) {
      out.errors.push_back("host " + host_ + ": heartbeat not stored: " + s.message());
      return out;
    }
    session_epoch_ = epoch;
  }
  Result<std::optional<WallMs>> beat = session_->Heartbeat(max_running, now);
  if (!beat.ok()) {
    out.errors.push_back("host " + host_ + ": heartbeat not stored: " + beat.status().message());
    return out;
  }
  if (!beat->has_value()) {
    out.fenced_here = true;
    return out;
  }
  watch_.Beat(**beat, lease_ms);
  Result<std::vector<HostRecord>> hosts = session_->Hosts(now);
  if (!hosts.ok()) {
    out.errors.push_back("hosts not read: " + hosts.status().message());
    return out;
  }
  out.looked = true;
  for (const HostRecord& h : *hosts) {
    out.any_fenced = out.any_fenced || h.beats == kFencedBeats;
    // Itself, or fenced until it joins again; one stopped cleanly is fenced past its lease.
    if (h.name == host_ || h.beats == kFencedBeats) continue;
    if (!watch_.MayFence(h.silent_ms, lease_ms)) continue;
    Result<std::optional<std::vector<RunningAttempt>>> taken = session_->FenceHost(h.name, h.beats);
    if (!taken.ok()) {
      out.errors.push_back("host " + h.name + " not fenced: " + taken.status().message());
      continue;
    }
    if (!taken->has_value()) continue;  // it beat meanwhile, or another host fenced it first
    out.fenced.push_back(Fenced{h.name, h.silent_ms, std::move(**taken)});
    out.any_fenced = true;
  }
  return out;
}

void HostLease::Finish(const BeatOutcome& outcome) {
  beating_ = false;
  for (const std::string& error : outcome.errors) store_errors_.Log(LogLevel::kError, error);
  if (outcome.fenced_here) {
    LogError(
        "host {} was fenced by another host (its heartbeats stopped for host_lease): the tasks "
        "it runs were passed on and are killed here; it joins the store again",
        host_);
    callbacks_.fenced();
    return;
  }
  for (const Fenced& f : outcome.fenced) {
    LogWarn(
        "host {} was silent for {} ms by the store's clock (host_lease {} ms): fenced; its {} "
        "running attempt(s) are lost and go on by their retry policy",
        f.host, f.silent_ms, config_->host_lease_ms, f.attempts.size());
    callbacks_.rescued(f.host, f.silent_ms, f.attempts);
  }
  if (!outcome.looked) return;
  TakeLateClaims();
  if (outcome.any_fenced) EndContextLost();
}

void HostLease::EndContextLost() {
  auto ended = store_.EndContextLost(clock_.WallNow());
  if (!ended.ok()) {
    store_errors_.Log(LogLevel::kError,
                      "stages on fenced hosts not ended: " + ended.status().message());
    return;
  }
  if (ended->empty()) return;
  LogWarn(
      "{} task(s) failed (context-lost): the host their next stage had to run on, where their "
      "context is, was fenced",
      ended->size());
  callbacks_.ended(*ended);
}

void HostLease::TakeLateClaims() {
  auto late = store_.TakeFenced();
  if (!late.ok()) {
    store_errors_.Log(LogLevel::kError,
                      "fenced hosts' attempts not taken: " + late.status().message());
    return;
  }
  std::map<std::string, std::vector<RunningAttempt>> by_host;
  for (auto& [holder, attempt] : *late) by_host[holder].push_back(std::move(attempt));
  for (const auto& [holder, attempts] : by_host) {
    LogWarn(
        "host {} was fenced, and {} more of its attempt(s) (started in a claim that committed "
        "after that, or held by its transaction at the fencing) are lost and go on by their "
        "retry policy",
        holder, attempts.size());
    callbacks_.rescued(holder, 0, attempts);  // when it was last heard of is not known
  }
}

}  // namespace tq
