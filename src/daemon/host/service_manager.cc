#include "daemon/host/service_manager.h"

#include "daemon/host/log.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdlib>
#include <cstring>

namespace tq {

namespace {

// How long a change waits before its status is sent: a burst of submits sends one line.
constexpr MonoMs kStatusDelayMs = 1000;

}  // namespace

ServiceManager::ServiceManager(EventLoop& loop, const Clock& clock, StatusLine status_line)
    : loop_(loop), clock_(clock), status_line_(std::move(status_line)), failures_(clock, 60000) {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  if (enabled_ && sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0 && usec > 0)
    watchdog_interval_ = std::max<MonoMs>(1, static_cast<MonoMs>(usec / 2000));
}

ServiceManager::~ServiceManager() {
  loop_.CancelTimer(status_timer_);
  loop_.CancelTimer(watchdog_timer_);
}

void ServiceManager::Send(const std::string& state) {
  const int rc = sd_notify(/*unset_environment=*/0, state.c_str());
  if (rc < 0)
    failures_.Log(LogLevel::kWarn,
                  "sd_notify " + state.substr(0, state.find('=')) + ": " + strerror(-rc));
}

void ServiceManager::Ready() {
  if (!enabled_) return;
  Send("READY=1");
  SendStatus();
  if (watchdog_interval_ && watchdog_timer_ == 0) KeepAlive();
}

void ServiceManager::Reloading() {
  if (!enabled_) return;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const uint64_t usec =
      static_cast<uint64_t>(now.tv_sec) * 1000000 + static_cast<uint64_t>(now.tv_nsec) / 1000;
  Send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
}

void ServiceManager::Stopping() {
  if (enabled_) Send("STOPPING=1");
}

void ServiceManager::StatusChanged() {
  if (!enabled_ || status_timer_ != 0) return;
  status_timer_ = loop_.AddTimer(clock_.MonoNow() + kStatusDelayMs, [this] {
    status_timer_ = 0;
    SendStatus();
  });
}

void ServiceManager::SendStatus() {
  const std::optional<std::string> text = status_line_();
  if (!text || *text == last_status_) return;
  last_status_ = *text;
  Send("STATUS=" + *text);
}

void ServiceManager::KeepAlive() {
  Send("WATCHDOG=1");
  // Also while a call waits for the store: a store that does not answer is no hung daemon.
  watchdog_timer_ = loop_.AddTimer(
      clock_.MonoNow() + *watchdog_interval_, [this] { KeepAlive(); },
      EventLoop::DuringWaits::kYes);
}

std::string ServiceStatusLine(int64_t running, int64_t pending) {
  return std::to_string(running) + " running, " + std::to_string(pending) + " pending";
}

}  // namespace tq
