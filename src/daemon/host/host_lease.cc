#include "daemon/host/host_lease.h"

#include <spdlog/spdlog.h>

namespace tq {

namespace {
constexpr int64_t kStoreErrorLogMs = 60 * 1000;  // a store that stays down: a line a minute
}  // namespace

HostLease::HostLease(EventLoop& loop, const Clock& clock, Store& store, const ConfigPtr& config,
                     std::string host, Callbacks callbacks)
    : loop_(loop),
      clock_(clock),
      store_(store),
      config_(config),
      host_(std::move(host)),
      callbacks_(std::move(callbacks)),
      store_errors_(clock, kStoreErrorLogMs) {}

HostLease::~HostLease() {
  if (timer_ != 0) loop_.CancelTimer(timer_);
}

void HostLease::Start() {
  Beat();
}

void HostLease::Beat() {
  const MonoMs now = clock_.MonoNow();
  timer_ = loop_.AddTimer(now + config_->host_lease_ms / 3, [this] { Beat(); });
  Result<bool> current = store_.Heartbeat(config_->max_running, clock_.WallNow());
  if (!current.ok()) {
    store_errors_.Log(spdlog::level::err,
                      "host " + host_ + ": heartbeat not stored: " + current.status().message());
    return;
  }
  if (!*current) {
    spdlog::error(
        "host {} was fenced by another host (its heartbeats stopped for host_lease): the tasks "
        "it runs were passed on and are killed here; it joins the store again",
        host_);
    callbacks_.fenced();
    return;
  }
  // A host whose own beats stopped for a while (its loop, or the store, stalled; perhaps every
  // host's did) judges no one by what it saw before: it watches the others afresh from now.
  if (!last_beat_ || now - *last_beat_ > config_->host_lease_ms / 2) seen_.clear();
  last_beat_ = now;
  RescueSilent(now);
}

void HostLease::RescueSilent(MonoMs now) {
  Result<std::vector<HostRecord>> hosts = store_.Hosts();
  if (!hosts.ok()) {
    store_errors_.Log(spdlog::level::err, "hosts not read: " + hosts.status().message());
    return;
  }
  std::map<std::string, Seen> seen;
  bool any_fenced = false;
  for (const HostRecord& h : *hosts) {
    any_fenced = any_fenced || h.beats == kFencedBeats;
    // Itself, or fenced until it joins again; one stopped cleanly is fenced past its lease.
    if (h.name == host_ || h.beats == kFencedBeats) continue;
    auto before = seen_.find(h.name);
    const Seen s = before != seen_.end() && before->second.beats == h.beats ? before->second
                                                                            : Seen{h.beats, now};
    seen[h.name] = s;
    if (now - s.since < config_->host_lease_ms) continue;
    Result<std::optional<std::vector<RunningAttempt>>> taken = store_.FenceHost(h.name, h.beats);
    if (!taken.ok()) {
      store_errors_.Log(spdlog::level::err,
                        "host " + h.name + " not fenced: " + taken.status().message());
      continue;
    }
    if (!taken->has_value()) continue;  // it beat meanwhile, or another host fenced it first
    spdlog::warn(
        "host {} was silent for {} ms (host_lease {} ms): fenced; its {} running attempt(s) are "
        "lost and go on by their retry policy",
        h.name, now - s.since, config_->host_lease_ms, (*taken)->size());
    seen.erase(h.name);
    callbacks_.rescued(h.name, **taken);
    any_fenced = true;
  }
  seen_ = std::move(seen);
  TakeLateClaims();
  if (any_fenced) EndContextLost();
}

void HostLease::EndContextLost() {
  auto ended = store_.EndContextLost(clock_.WallNow());
  if (!ended.ok()) {
    store_errors_.Log(spdlog::level::err,
                      "stages on fenced hosts not ended: " + ended.status().message());
    return;
  }
  if (ended->empty()) return;
  spdlog::warn(
      "{} task(s) failed (context-lost): the host their next stage had to run on, where their "
      "context is, was fenced",
      ended->size());
  callbacks_.ended(*ended);
}

void HostLease::TakeLateClaims() {
  auto late = store_.TakeFenced();
  if (!late.ok()) {
    store_errors_.Log(spdlog::level::err,
                      "fenced hosts' attempts not taken: " + late.status().message());
    return;
  }
  std::map<std::string, std::vector<RunningAttempt>> by_host;
  for (auto& [holder, attempt] : *late) by_host[holder].push_back(std::move(attempt));
  for (const auto& [holder, attempts] : by_host) {
    spdlog::warn(
        "host {} was fenced, and {} attempt(s) it started in a claim that committed after that "
        "are lost and go on by their retry policy",
        holder, attempts.size());
    callbacks_.rescued(holder, attempts);
  }
}

}  // namespace tq
