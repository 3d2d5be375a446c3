// Membership of callers in a group (tqd.toml's admin_group), from the group database and
// remembered for a while: the socket carries no supplementary groups (SPEC 8), and a lookup
// (NSS may ask LDAP over the network) must not run for every request.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/model/clock.h"
#include "core/model/task.h"

namespace tq {

/// Remembers, per (uid, group), whether the caller is a member, for `ttl_ms`.
class GroupMembers {
 public:
  GroupMembers(const Clock& clock, int64_t ttl_ms) : clock_(clock), ttl_ms_(ttl_ms) {}

  /// True when `peer` is in `group`: its gid from the socket is the group's, or the group
  /// database lists the group among those of peer.name. False for a group that does not exist.
  bool Contains(const Owner& peer, const std::string& group);

 private:
  struct Entry {
    bool member = false;
    MonoMs looked_up = 0;
  };

  const Clock& clock_;
  int64_t ttl_ms_;
  std::map<std::pair<uint32_t, std::string>, Entry> entries_;
};

}  // namespace tq
