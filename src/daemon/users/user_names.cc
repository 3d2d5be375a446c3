#include "daemon/users/user_names.h"

#include <pwd.h>

namespace tq {

namespace {
// More distinct uids than this and the expired entries are dropped, so the map stays small.
constexpr size_t kPruneAbove = 4096;
}  // namespace

std::string LookUpUserName(uint32_t uid) {
  passwd pw{};
  passwd* result = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &result) == 0 && result) return pw.pw_name;
  return std::to_string(uid);
}

const std::string& UserNameCache::Name(uint32_t uid) {
  const MonoMs now = clock_.MonoNow();
  auto it = entries_.find(uid);
  if (it != entries_.end() && now - it->second.looked_up < ttl_ms_) return it->second.name;
  if (it == entries_.end() && entries_.size() >= kPruneAbove)
    std::erase_if(entries_, [&](const auto& e) { return now - e.second.looked_up >= ttl_ms_; });
  Entry& e = entries_[uid];
  e.name = resolve_(uid);
  e.looked_up = now;
  return e.name;
}

}  // namespace tq
