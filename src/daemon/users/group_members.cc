#include "daemon/users/group_members.h"

#include <grp.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "daemon/users/accounts.h"

namespace tq {

namespace {
// More entries than this and the expired ones are dropped, so the map stays small.
constexpr size_t kPruneAbove = 4096;

// Whether `peer` is in the group named `group`, asked of the group database now.
bool LookUpMember(const Owner& peer, const std::string& group) {
  std::vector<char> buf(16384);
  struct group gr {};
  struct group* found = nullptr;
  int rc = 0;
  while ((rc = getgrnam_r(group.c_str(), &gr, buf.data(), buf.size(), &found)) == ERANGE &&
         buf.size() < (size_t{64} << 20))  // a directory's big groups list every member
    buf.resize(buf.size() * 2);
  if (rc != 0 || !found) return false;
  if (peer.gid == gr.gr_gid) return true;
  const std::vector<uint32_t> groups = GroupsOf(peer.name, peer.gid);
  return std::find(groups.begin(), groups.end(), gr.gr_gid) != groups.end();
}
}  // namespace

bool GroupMembers::Contains(const Owner& peer, const std::string& group) {
  const MonoMs now = clock_.MonoNow();
  const auto key = std::make_pair(peer.uid, group);
  auto it = entries_.find(key);
  if (it != entries_.end() && now - it->second.looked_up < ttl_ms_) return it->second.member;
  if (it == entries_.end() && entries_.size() >= kPruneAbove)
    std::erase_if(entries_, [&](const auto& e) { return now - e.second.looked_up >= ttl_ms_; });
  Entry& e = entries_[key];
  e.member = LookUpMember(peer, group);
  e.looked_up = now;
  return e.member;
}

}  // namespace tq
