#include "daemon/event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include <spdlog/spdlog.h>

namespace tq {

EventLoop::EventLoop(const Clock& clock) : clock_(clock), epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) spdlog::critical("epoll_create1 failed: {}", strerror(errno));
}

EventLoop::~EventLoop() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

void EventLoop::Watch(int fd, uint32_t events, FdCallback callback) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    spdlog::error("epoll_ctl(ADD, {}) failed: {}", fd, strerror(errno));
  watched_[fd] = std::move(callback);
}

void EventLoop::Modify(int fd, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0)
    spdlog::error("epoll_ctl(MOD, {}) failed: {}", fd, strerror(errno));
}

void EventLoop::Unwatch(int fd) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  watched_.erase(fd);
}

EventLoop::TimerId EventLoop::AddTimer(MonoMs when, Callback callback) {
  const TimerId id = next_timer_id_++;
  timers_by_time_.emplace(when, id);
  timers_.emplace(id, std::make_pair(when, std::move(callback)));
  return id;
}

void EventLoop::CancelTimer(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  auto [lo, hi] = timers_by_time_.equal_range(it->second.first);
  for (auto t = lo; t != hi; ++t) {
    if (t->second == id) {
      timers_by_time_.erase(t);
      break;
    }
  }
  timers_.erase(it);
}

void EventLoop::Defer(const void* key, Callback callback) {
  for (const auto& d : deferred_)
    if (key != nullptr && d.first == key) return;
  deferred_.emplace_back(key, std::move(callback));
}

int EventLoop::WaitTimeoutMs() const {
  if (!deferred_.empty()) return 0;
  if (timers_by_time_.empty()) return -1;
  const MonoMs wait = timers_by_time_.begin()->first - clock_.MonoNow();
  if (wait <= 0) return 0;
  return wait > INT_MAX ? INT_MAX : static_cast<int>(wait);
}

void EventLoop::RunDueTimers() {
  const MonoMs now = clock_.MonoNow();
  while (!timers_by_time_.empty() && timers_by_time_.begin()->first <= now) {
    const TimerId id = timers_by_time_.begin()->second;
    timers_by_time_.erase(timers_by_time_.begin());
    auto it = timers_.find(id);
    Callback cb = std::move(it->second.second);
    timers_.erase(it);
    cb();
  }
}

void EventLoop::RunDeferred() {
  // One pass: what these callbacks defer runs after the next wait, so a callback that keeps
  // deferring itself cannot starve the descriptors.
  auto batch = std::move(deferred_);
  deferred_.clear();
  for (auto& [key, cb] : batch) cb();
}

void EventLoop::Run() {
  running_ = true;
  while (running_ && Turn(WaitTimeoutMs())) {
  }
}

void EventLoop::RunReady() {
  do {
    if (!Turn(0)) return;
  } while (!deferred_.empty());
}

bool EventLoop::Turn(int timeout_ms) {
  constexpr int kMaxEvents = 64;
  epoll_event events[kMaxEvents];
  const int n = epoll_wait(epoll_fd_, events, kMaxEvents, timeout_ms);
  if (n < 0 && errno != EINTR) {
    spdlog::critical("epoll_wait failed: {}", strerror(errno));
    return false;
  }
  for (int i = 0; i < n; ++i) {
    auto it = watched_.find(events[i].data.fd);
    if (it == watched_.end()) continue;  // unwatched by an earlier callback of this batch
    FdCallback cb = it->second;          // a copy: the callback may unwatch itself
    cb(events[i].events);
  }
  RunDueTimers();
  RunDeferred();
  return true;
}

}  // namespace tq
