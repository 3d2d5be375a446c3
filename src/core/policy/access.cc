#include "core/policy/access.h"

namespace tq {

bool Access::Sees(uint32_t owner_uid) const {
  return admin || owner_uid == uid;
}

std::optional<uint32_t> Access::OwnerFilter() const {
  return admin ? std::nullopt : std::optional<uint32_t>(uid);
}

Access AccessOf(const Owner& peer, uint32_t daemon_uid) {
  return Access{peer.uid == 0 || peer.uid == daemon_uid, peer.uid};
}

}  // namespace tq
