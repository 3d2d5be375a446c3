#include "cli/web/web_sessions.h"

#include <algorithm>

#include "cli/web/web_access.h"

namespace tq {

bool WebSessions::SamePeer(const HttpPeer& owner, const HttpPeer& peer) {
  if (owner.local != peer.local) return false;
  return !owner.local || owner.uid == peer.uid;
}

void WebSessions::DropExpired(Clock::time_point now) {
  std::erase_if(by_id_, [now](const auto& entry) { return entry.second.expires <= now; });
}

Result<WebSession> WebSessions::Create(const HttpPeer& peer, Clock::time_point now) {
  auto id = WebAccess::RandomToken();
  if (!id.ok()) return id.status();
  auto csrf = WebAccess::RandomToken();
  if (!csrf.ok()) return csrf.status();
  WebSession session{*id, *csrf, peer, now + lifetime_};
  const std::lock_guard lock(mutex_);
  DropExpired(now);
  while (by_id_.size() >= most_) {
    const auto oldest = std::min_element(by_id_.begin(), by_id_.end(), [](auto& a, auto& b) {
      return a.second.expires < b.second.expires;
    });
    by_id_.erase(oldest);
  }
  by_id_.emplace(session.id, session);
  return session;
}

std::optional<WebSession> WebSessions::Find(const std::string& id, const HttpPeer& peer,
                                            Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  // Every session compared whole, in constant time: a map's search would stop at the first byte
  // that differs, and its time would tell a guesser how much of a live id it had right.
  auto it = by_id_.end();
  for (auto candidate = by_id_.begin(); candidate != by_id_.end(); ++candidate)
    if (SameSecret(candidate->second.id, id)) it = candidate;
  if (it == by_id_.end()) return std::nullopt;
  if (it->second.expires <= now) {
    by_id_.erase(it);
    return std::nullopt;
  }
  if (!SamePeer(it->second.peer, peer)) return std::nullopt;
  return it->second;
}

void WebSessions::End(const std::string& id) {
  const std::lock_guard lock(mutex_);
  by_id_.erase(id);
}

bool WebSessions::Holds(const HttpPeer& peer, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  return std::any_of(by_id_.begin(), by_id_.end(), [&](const auto& entry) {
    return entry.second.expires > now && SamePeer(entry.second.peer, peer);
  });
}

}  // namespace tq
