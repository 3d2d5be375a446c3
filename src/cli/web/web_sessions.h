// The console's sessions: one per sign-in, each with its own CSRF token, bound to the peer that
// signed in (a local user, or "another machine") and ending at its expiry or its sign-out.
// Kept in memory only: a restart of the console signs everyone out.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "cli/web/http_peer.h"
#include "core/model/status.h"

namespace tq {

/// What a request's session cookie stands for.
struct WebSession {
  std::string id;    ///< the cookie's value
  std::string csrf;  ///< what its changes must carry
  HttpPeer peer;     ///< who signed in: only the same local user (or a remote peer) may use it
  std::chrono::steady_clock::time_point expires;
};

/// Every live session of one console, shared by its threads.
class WebSessions {
 public:
  using Clock = std::chrono::steady_clock;
  /// Sessions last `lifetime` from their sign-in; at most `most` live at once (the oldest
  /// sign-in ends first).
  explicit WebSessions(std::chrono::seconds lifetime = std::chrono::hours(12), size_t most = 256)
      : lifetime_(lifetime), most_(most) {}

  /// A new session for `peer`, signed in at `now`.
  Result<WebSession> Create(const HttpPeer& peer, Clock::time_point now);
  /// The session `id` names, when it is live at `now` and `peer` may use it: the local user who
  /// signed in, or any peer of another machine for a session made from another machine.
  std::optional<WebSession> Find(const std::string& id, const HttpPeer& peer,
                                 Clock::time_point now);
  /// Ends the session `id` (sign-out); nothing when there is none.
  void End(const std::string& id);
  /// Whether `peer` holds a live session at `now`.
  bool Holds(const HttpPeer& peer, Clock::time_point now);

 private:
  /// Whether a session made for `owner` may serve a request from `peer`.
  static bool SamePeer(const HttpPeer& owner, const HttpPeer& peer);
  void DropExpired(Clock::time_point now);

  const std::chrono::seconds lifetime_;
  const size_t most_;
  std::mutex mutex_;
  std::map<std::string, WebSession> by_id_;
};

}  // namespace tq
