#include "daemon/run/watcher.h"

#include <algorithm>

#include "core/model/saturating.h"
#include "daemon/host/log.h"

namespace tq {

namespace {
// The earlier of two optional times.
std::optional<WallMs> Earliest(std::optional<WallMs> a, std::optional<WallMs> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The value of `r`, or nullopt after logging its error.
template <typename T>
std::optional<T> Logged(Result<T> r) {
  if (r.ok()) return std::move(*r);
  LogError("watcher: {}", r.status().message());
  return std::nullopt;
}
}  // namespace

Watcher::Watcher(Store& store, const Clock& clock, const ConfigPtr& config, IdsCallback on_ended,
                 IdsCallback on_purged, int batch)
    : store_(store),
      clock_(clock),
      config_(config),
      batch_(batch),
      on_ended_(std::move(on_ended)),
      on_purged_(std::move(on_purged)) {}

Status Watcher::RunDue() {
  read_at_.reset();  // what is due next is read again after this
  const WallMs now = clock_.WallNow();
  Status first = Status::Ok();  // every step runs: one that fails does not hold back the others
  auto failed = [&first](const Status& st) {
    if (first.ok()) first = st;
  };
  if (auto ended = store_.ExpirePendingTtl(now, batch_); !ended.ok()) {
    failed(ended.status());
  } else if (!ended->empty()) {
    LogInfo("watcher: {} task(s) failed: pending past their pending_ttl", ended->size());
    on_ended_(*ended);
  }
  if (auto expired = store_.ExpireSucceeded(now - config_->success_retention_ms, batch_);
      !expired.ok()) {
    failed(expired.status());
  } else if (!expired->empty()) {
    LogDebug("watcher: {} task(s) expired", expired->size());
    on_ended_(*expired);
  }
  if (auto purged = store_.PurgeEnded(now - config_->purge_after_ms, batch_); !purged.ok()) {
    failed(purged.status());
  } else if (!purged->empty()) {
    LogDebug("watcher: {} task(s) purged", purged->size());
    on_purged_(*purged);
  }
  return first;
}

std::optional<WallMs> Watcher::NextDue() {
  constexpr MonoMs kRereadMs = 1000;
  const MonoMs now = clock_.MonoNow();
  if (!read_at_ || now - *read_at_ >= kRereadMs) {
    read_due_ = ReadNextDue();
    read_at_ = now;
    return read_due_;
  }
  return Earliest(read_due_, SaturatingAdd(clock_.WallNow(), *read_at_ + kRereadMs - now));
}

std::optional<WallMs> Watcher::ReadNextDue() {
  std::optional<WallMs> next;
  if (auto ttl = Logged(store_.NextPendingTtl())) next = Earliest(next, *ttl);
  if (auto oldest = Logged(store_.OldestSucceeded()); oldest && *oldest)
    next = Earliest(next, SaturatingAdd(**oldest, config_->success_retention_ms));
  if (auto oldest = Logged(store_.OldestEnded()); oldest && *oldest)
    next = Earliest(next, SaturatingAdd(**oldest, config_->purge_after_ms));
  return next;
}

}  // namespace tq
