#include "daemon/users/lookup_holds.h"

#include "daemon/host/log.h"

namespace tq {

bool LookupHolds::Held(uint32_t owner) const {
  const auto it = waits_.find(owner);
  return it != waits_.end() && clock_.MonoNow() < it->second.until;
}

void LookupHolds::Hold(TaskId task, uint32_t owner, const Status& why) {
  Wait& wait = waits_[owner];
  wait.until = clock_.MonoNow() + kRetryMs;
  if (wait.logged.insert(task).second)
    LogWarn("task {} waits, with no attempt used: {} (tried again every {} s)", task, why.message(),
            kRetryMs / 1000);
}

void LookupHolds::Release(uint32_t owner) {
  if (waits_.erase(owner))
    LogInfo("the account of uid {} is looked up again: its tasks start", owner);
}

std::optional<MonoMs> LookupHolds::NextRetry() const {
  const MonoMs now = clock_.MonoNow();
  std::optional<MonoMs> next;
  for (const auto& [owner, wait] : waits_)
    if (wait.until > now && (!next || wait.until < *next)) next = wait.until;
  return next;
}

}  // namespace tq
