// Wake-ups between the hosts of a shared PostgreSQL store (SPEC 12): after each commit this host
// sends a NOTIFY, and a NOTIFY from another host makes it look at the store at once instead of at
// its next poll. A lost notification, or a connection that is down, only delays a host until its
// poll (the fallback): nothing depends on a notification arriving.
#pragma once

#include <functional>
#include <string>

#include "core/model/clock.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"

struct pg_conn;  // libpq's connection (PGconn), kept out of the daemon's headers

namespace tq {

/// A connection of its own that LISTENs for the other hosts' changes and announces this host's.
/// Lives on the event loop's thread.
class StoreWakeups {
 public:
  /// Connects to libpq's `conninfo` (the store's) at Start; calls `on_change` on the loop, once
  /// for any number of notifications that arrive together, when another host committed a change,
  /// and once each time a connection starts listening (for what changed while none listened).
  StoreWakeups(EventLoop& loop, const Clock& clock, std::string conninfo,
               std::function<void()> on_change);
  ~StoreWakeups();
  StoreWakeups(const StoreWakeups&) = delete;
  StoreWakeups& operator=(const StoreWakeups&) = delete;

  /// Connects and listens; while the server cannot be reached, tries again after a pause that
  /// grows from 5 s to a minute.
  void Start();
  /// This host committed a change: one NOTIFY, after the current turn of the loop, tells the
  /// other hosts of every change announced until then.
  void Announce();

 private:
  void Connect();
  /// Drops the connection after `why` and tries again later.
  void Drop(const std::string& why);
  /// Reads what the server sent: ends of our NOTIFYs, and other hosts' notifications.
  void OnReadable();
  /// Sends the announced NOTIFY when the connection is free for it.
  void Flush();

  EventLoop& loop_;
  const Clock& clock_;
  const std::string conninfo_;
  std::function<void()> on_change_;
  pg_conn* conn_ = nullptr;
  int fd_ = -1;                   ///< the connection's socket, watched by the loop
  bool announced_ = false;        ///< a change waits to be announced
  bool listening_ = false;        ///< the LISTEN of this connection took effect
  bool in_flight_ = false;        ///< a LISTEN or NOTIFY was sent, its result still to come
  EventLoop::TimerId retry_ = 0;  ///< the next connection attempt, while down
  int64_t retry_ms_ = 0;          ///< the pause before it, doubled while attempts fail; 0: up
  LogThrottle errors_;
};

}  // namespace tq
