// Keeps a crowd of connections from shutting the console's owner out: a deadline for each
// request's head and body, a cap of connections per peer (per local user, or per address), and
// room kept for peers that hold a session. Refusals and cuts are logged at most once per 10 s.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cli/web/http_peer.h"
#include "cli/web/quiet_log.h"

namespace tq {

/// The bounds a ConnectionGuard keeps.
struct GuardLimits {
  unsigned total = 128;    ///< connections at once
  unsigned reserved = 32;  ///< of `total`, kept for peers that hold a session
  unsigned per_peer = 32;  ///< at once from one peer (0: no cap, as behind a proxy)
  std::chrono::milliseconds request_deadline{10000};  ///< to send a request's head and body
};

/// Whether a peer holds a live session (its connections may use the reserved room).
using PeerHasSession = std::function<bool(const HttpPeer&)>;

/// The open connections of one server, shared by its threads.
class ConnectionGuard {
 public:
  /// One admitted connection.
  struct Open {
    int fd = -1;
    HttpPeer peer;
    std::chrono::steady_clock::time_point since;  ///< when its current request may begin
    bool in_request = false;  ///< its request was read whole: the deadline does not apply
    bool counted = false;     ///< admitted (a refused one is only waiting to be closed)
  };

  ConnectionGuard(const GuardLimits& limits, PeerHasSession has_session);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  /// A connection just accepted on `fd`. Over a bound it is answered 503 and shut down (its
  /// server then closes it); either way the Open returned is given back to Closed.
  Open* Admit(int fd);
  /// `open`'s request was read whole: no deadline while it is answered.
  void RequestRead(Open* open);
  /// `open`'s answer ended: its next request has the deadline again.
  void RequestEnded(Open* open);
  /// `open` is closed (its descriptor is still open, closed right after this returns).
  void Closed(Open* open);

 private:
  void Watch();
  /// Answers 503 with `why` and shuts `fd` down.
  static void Refuse(int fd, const std::string& why);

  const GuardLimits limits_;
  const PeerHasSession has_session_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::set<Open*> open_;
  unsigned counted_ = 0;
  std::map<std::string, unsigned> per_peer_;
  QuietLog refusals_, cuts_;
  std::thread watcher_;
};

}  // namespace tq
