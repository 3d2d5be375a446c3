// What tqd tells systemd when it runs as a Type=notify service (SPEC 11): that it is ready, a
// status line with its counts, that it reloads or stops, and the watchdog's keep-alive. Outside
// systemd (no NOTIFY_SOCKET) it sends nothing and arms no timer.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/model/clock.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"

namespace tq {

/// The daemon's side of sd_notify. NOTIFY_SOCKET stays in tqd's environment, but no task
/// inherits it: the shim starts with an empty environment.
class ServiceManager {
 public:
  /// The status line now ("2 running, 15 pending"), or nullopt when it cannot be read.
  using StatusLine = std::function<std::optional<std::string>()>;

  /// Reads NOTIFY_SOCKET and the watchdog settings (WATCHDOG_USEC, WATCHDOG_PID) of this
  /// process; `status_line` is called on `loop` when a status is due.
  ServiceManager(EventLoop& loop, const Clock& clock, StatusLine status_line);
  ~ServiceManager();
  ServiceManager(const ServiceManager&) = delete;
  ServiceManager& operator=(const ServiceManager&) = delete;

  /// READY=1 and the first status: the socket accepts requests. Starts the watchdog's
  /// keep-alive (WATCHDOG=1 at half its timeout) when the service has one.
  void Ready();
  /// RELOADING=1, before the job files are read again; Ready() ends the reload.
  void Reloading();
  /// STOPPING=1: the daemon is on its way out and accepts nothing more.
  void Stopping();
  /// Something the status line counts may have changed: a new STATUS is sent within a second,
  /// and only when its text differs. An idle daemon arms no timer.
  void StatusChanged();

 private:
  void Send(const std::string& state);
  void SendStatus();
  void KeepAlive();

  EventLoop& loop_;
  const Clock& clock_;
  StatusLine status_line_;
  bool enabled_ = false;
  std::optional<MonoMs> watchdog_interval_;
  std::string last_status_;
  LogThrottle failures_;  ///< a vanished notification socket is logged once a minute
  EventLoop::TimerId status_timer_ = 0;
  EventLoop::TimerId watchdog_timer_ = 0;
};

/// The status line for `running` attempts and `pending` tasks: "2 running, 15 pending".
std::string ServiceStatusLine(int64_t running, int64_t pending);

}  // namespace tq
