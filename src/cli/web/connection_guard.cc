#include "cli/web/connection_guard.h"

#include <sys/socket.h>

namespace tq {

ConnectionGuard::ConnectionGuard(const GuardLimits& limits, PeerHasSession has_session)
    : limits_(limits), has_session_(std::move(has_session)), watcher_([this] { Watch(); }) {}

ConnectionGuard::~ConnectionGuard() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

void ConnectionGuard::Refuse(int fd, const std::string& why) {
  const std::string body = why + "\n";
  const std::string answer =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; "
      "charset=utf-8\r\nRetry-After: 10\r\nConnection: close\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  shutdown(fd, SHUT_RDWR);
}

ConnectionGuard::Open* ConnectionGuard::Admit(int fd) {
  auto* open = new Open{fd, IdentifyPeer(fd), std::chrono::steady_clock::now(), false, false};
  // Asked before the lock: it takes the sessions' own lock.
  const bool has_session = has_session_ && has_session_(open->peer);
  std::string why;
  {
    const std::lock_guard lock(mutex_);
    unsigned& mine = per_peer_[open->peer.Key()];
    if (counted_ >= limits_.total)
      why = "the console has " + std::to_string(counted_) + " connections open, its most";
    else if (counted_ >= limits_.total - limits_.reserved && !has_session)
      why = "the console keeps its last " + std::to_string(limits_.reserved) +
            " connections for signed-in users";
    else if (limits_.per_peer > 0 && mine >= limits_.per_peer)
      why = open->peer.Text() + " has " + std::to_string(mine) + " connections open, its most";
    if (why.empty()) {
      ++mine;
      ++counted_;
      open->counted = true;
    } else if (mine == 0) {
      per_peer_.erase(open->peer.Key());
    }
    open_.insert(open);
  }
  if (!why.empty()) {
    refusals_.Note("refused a connection from " + open->peer.Text() + ": " + why);
    Refuse(fd, "tq web: " + why + "; try again later");
  }
  return open;
}

void ConnectionGuard::RequestRead(Open* open) {
  const std::lock_guard lock(mutex_);
  open->in_request = true;
}

void ConnectionGuard::RequestEnded(Open* open) {
  const std::lock_guard lock(mutex_);
  open->in_request = false;
  open->since = std::chrono::steady_clock::now();
}

void ConnectionGuard::Closed(Open* open) {
  {
    const std::lock_guard lock(mutex_);
    open_.erase(open);
    if (open->counted) {
      --counted_;
      const auto it = per_peer_.find(open->peer.Key());
      if (it != per_peer_.end() && --it->second == 0) per_peer_.erase(it);
    }
  }
  delete open;
}

void ConnectionGuard::Watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    const auto now = std::chrono::steady_clock::now();
    for (Open* open : open_) {
      if (open->in_request || open->fd < 0 || now - open->since < limits_.request_deadline)
        continue;
      // The descriptor stays open until Closed has run, which waits for this lock.
      shutdown(open->fd, SHUT_RDWR);
      open->in_request = true;  // cut once
      cuts_.Note("closed a connection from " + open->peer.Text() + ": no whole request in " +
                 std::to_string(limits_.request_deadline.count() / 1000) + " s");
    }
  }
}

}  // namespace tq
