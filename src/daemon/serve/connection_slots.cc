#include "daemon/serve/connection_slots.h"

#include <algorithm>
#include <string>

namespace tq {

ConnectionSlots::ConnectionSlots(size_t total, size_t per_uid, size_t owner_reserve,
                                 uint32_t owner_uid)
    : total_(std::max<size_t>(total, 1)),
      per_uid_(per_uid),
      owner_reserve_(std::min(owner_reserve, total_ / 2)),
      owner_uid_(owner_uid) {}

Status ConnectionSlots::Admit(uint32_t uid) {
  const std::string who = "uid " + std::to_string(uid);
  if (open_ >= total_)
    return Status(ErrorCode::kLimit, "connections",
                  "connections: the daemon already serves " + std::to_string(total_) +
                      " clients (at most " + std::to_string(total_) + ")");
  if (!Exempt(uid)) {
    const size_t shared = total_ - owner_reserve_;
    if (open_ >= shared)
      return Status(ErrorCode::kLimit, "connections",
                    "connections: the daemon already serves " + std::to_string(open_) +
                        " clients (at most " + std::to_string(shared) + " for " + who + ")");
    if (OpenBy(uid) >= per_uid_)
      return Status(ErrorCode::kLimit, "connections",
                    "connections: " + who + " already has " + std::to_string(OpenBy(uid)) +
                        " connections open (at most " + std::to_string(per_uid_) + " per user)");
  }
  ++open_;
  ++by_uid_[uid];
  return Status::Ok();
}

void ConnectionSlots::Release(uint32_t uid) {
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  --open_;
  if (--it->second == 0) by_uid_.erase(it);
}

size_t ConnectionSlots::OpenBy(uint32_t uid) const {
  auto it = by_uid_.find(uid);
  return it == by_uid_.end() ? 0 : it->second;
}

}  // namespace tq
