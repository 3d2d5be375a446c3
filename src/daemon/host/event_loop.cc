#include "daemon/host/event_loop.h"

#include "daemon/host/log.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>

namespace tq {

EventLoop::EventLoop(const Clock& clock)
    : clock_(clock),
      epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      waits_epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0 || waits_epoll_fd_ < 0)
    LogCritical("epoll_create1 failed: {}", strerror(errno));
  wall_fd_ = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
  if (wall_fd_ < 0) {
    LogCritical("timerfd_create(CLOCK_REALTIME) failed: {}", strerror(errno));
    return;
  }
  Watch(wall_fd_, EPOLLIN, [this](uint32_t) { OnWallFd(); });
}

EventLoop::~EventLoop() {
  if (wall_fd_ >= 0) close(wall_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (waits_epoll_fd_ >= 0) close(waits_epoll_fd_);
}

namespace {
// What epoll reports for `fd` watched as watch number `watch` (0: the descriptor a wait waits
// for): both, so that an event read before `fd` was closed and its number given again is not
// taken for the new one's.
epoll_event EventFor(int fd, uint32_t events, uint64_t watch) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = watch << 32 | static_cast<uint32_t>(fd);
  return ev;
}
}  // namespace

void EventLoop::Watch(int fd, uint32_t events, FdCallback callback, DuringWaits during) {
  const uint64_t watch = next_watch_++;
  epoll_event ev = EventFor(fd, events, watch);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    LogError("epoll_ctl(ADD, {}) failed: {}", fd, strerror(errno));
  if (during == DuringWaits::kYes && epoll_ctl(waits_epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0)
    during_waits_.insert(fd);
  watched_[fd] = Watched{watch, std::move(callback)};
}

void EventLoop::Modify(int fd, uint32_t events) {
  auto it = watched_.find(fd);
  if (it == watched_.end()) return;
  epoll_event ev = EventFor(fd, events, it->second.watch);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0)
    LogError("epoll_ctl(MOD, {}) failed: {}", fd, strerror(errno));
  if (during_waits_.count(fd) != 0) epoll_ctl(waits_epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
}

void EventLoop::Unwatch(int fd) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  if (during_waits_.erase(fd) != 0) epoll_ctl(waits_epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  watched_.erase(fd);
}

EventLoop::TimerId EventLoop::AddTimer(MonoMs when, Callback callback, DuringWaits during) {
  const TimerId id = next_timer_id_++;
  timers_by_time_.emplace(when, id);
  timers_.emplace(id, Timer{when, false, during, std::move(callback)});
  return id;
}

EventLoop::TimerId EventLoop::AddWallTimer(WallMs when, Callback callback) {
  const TimerId id = next_timer_id_++;
  wall_timers_by_time_.emplace(when, id);
  timers_.emplace(id, Timer{when, true, DuringWaits::kNo, std::move(callback)});
  ArmWallFd();
  return id;
}

void EventLoop::CancelTimer(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  auto& by_time = it->second.wall ? wall_timers_by_time_ : timers_by_time_;
  auto [lo, hi] = by_time.equal_range(it->second.when);
  for (auto t = lo; t != hi; ++t) {
    if (t->second == id) {
      by_time.erase(t);
      break;
    }
  }
  timers_.erase(it);
}

void EventLoop::ArmWallFd() {
  // At least 1 ms: 0 disarms (a timer due at the epoch is long due anyway).
  const WallMs earliest =
      wall_timers_by_time_.empty() ? 0 : std::max<WallMs>(1, wall_timers_by_time_.begin()->first);
  if (wall_fd_ < 0 || earliest == wall_fd_armed_) return;
  itimerspec spec{};
  if (earliest > 0) {
    spec.it_value.tv_sec = earliest / 1000;
    spec.it_value.tv_nsec = earliest % 1000 * 1000000;
  }
  if (timerfd_settime(wall_fd_, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, nullptr) != 0)
    LogError("timerfd_settime failed: {}", strerror(errno));
  wall_fd_armed_ = earliest;
}

void EventLoop::OnWallFd() {
  uint64_t expirations = 0;
  const bool clock_set = read(wall_fd_, &expirations, sizeof expirations) < 0 && errno == ECANCELED;
  wall_fd_armed_ = 0;  // expired or cancelled: arm it again for what is left
  ArmWallFd();
  if (clock_set) {
    LogInfo("the system clock was set: wall-clock timers are computed again");
    if (on_clock_set_) on_clock_set_();
  }
}

void EventLoop::Defer(const void* key, Callback callback) {
  for (const auto& d : deferred_)
    if (key != nullptr && d.first == key) return;
  deferred_.emplace_back(key, std::move(callback));
}

int EventLoop::DuringWaitsTimeoutMs(MonoMs deadline) const {
  MonoMs until = deadline;
  for (const auto& [when, id] : timers_by_time_) {
    if (when >= until) break;
    if (timers_.at(id).during == DuringWaits::kYes) until = when;
  }
  const MonoMs wait = until - clock_.MonoNow();
  if (wait <= 0) return 0;
  return wait > INT_MAX ? INT_MAX : static_cast<int>(wait);
}

int EventLoop::WaitFor(int fd, uint32_t events, int timeout_ms) {
  const MonoMs deadline =
      timeout_ms < 0 ? std::numeric_limits<MonoMs>::max() : clock_.MonoNow() + timeout_ms;
  epoll_event ev = EventFor(fd, events, 0);
  if (waiting_ || waits_epoll_fd_ < 0) {  // a wait inside a wait: for `fd` alone
    pollfd one{fd, static_cast<short>(events), 0};
    const int ready = poll(&one, fd >= 0 ? 1 : 0, timeout_ms);
    return ready < 0 && errno != EINTR ? -1 : ready > 0 ? 1 : 0;
  }
  if (fd >= 0 && epoll_ctl(waits_epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return -1;
  waiting_ = true;
  int result = 0;
  for (;;) {
    constexpr int kMaxEvents = 64;
    epoll_event ready[kMaxEvents];
    const int n = epoll_wait(waits_epoll_fd_, ready, kMaxEvents, DuringWaitsTimeoutMs(deadline));
    if (n < 0 && errno != EINTR) {
      result = -1;
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (ready[i].data.u64 == ev.data.u64) {
        result = 1;
        continue;
      }
      Dispatch(ready[i]);
    }
    RunDueTimers();
    if (result != 0 || clock_.MonoNow() >= deadline) break;
  }
  if (fd >= 0) epoll_ctl(waits_epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  waiting_ = false;
  return result;
}

void EventLoop::Dispatch(const epoll_event& event) {
  const int fd = static_cast<int>(event.data.u64 & 0xffffffffu);
  auto it = watched_.find(fd);
  // Unwatched by an earlier callback of this batch, or closed and its number watched anew (during
  // a wait inside a callback of this batch): the event is not the current watch's.
  if (it == watched_.end() || it->second.watch != event.data.u64 >> 32) return;
  FdCallback cb = it->second.callback;  // a copy: the callback may unwatch itself
  cb(event.events);
}

int EventLoop::WaitTimeoutMs() const {
  if (!deferred_.empty()) return 0;
  if (timers_by_time_.empty()) return -1;
  const MonoMs wait = timers_by_time_.begin()->first - clock_.MonoNow();
  if (wait <= 0) return 0;
  return wait > INT_MAX ? INT_MAX : static_cast<int>(wait);
}

void EventLoop::RunDueTimers() {
  // While waiting, only those that run during waits. One pass over the timers due now and added
  // before it: a timer a callback arms already due (a store that keeps failing re-arms dispatch
  // at a time past) runs after the next wait, so it cannot keep the loop from its descriptors.
  const TimerId added_before = next_timer_id_;
  for (auto* by_time : {&timers_by_time_, &wall_timers_by_time_}) {
    const int64_t now = by_time == &timers_by_time_ ? clock_.MonoNow() : clock_.WallNow();
    std::vector<TimerId> due;
    for (auto t = by_time->begin(); t != by_time->end() && t->first <= now; ++t) {
      const Timer& timer = timers_.at(t->second);
      if (t->second < added_before && (!waiting_ || timer.during == DuringWaits::kYes))
        due.push_back(t->second);
    }
    for (const TimerId id : due) {
      auto it = timers_.find(id);
      if (it == timers_.end()) continue;  // cancelled by an earlier callback of this pass
      Callback cb = std::move(it->second.callback);
      CancelTimer(id);
      cb();
    }
  }
  ArmWallFd();
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
    LogCritical("epoll_wait failed: {}", strerror(errno));
    return false;
  }
  for (int i = 0; i < n; ++i) Dispatch(events[i]);
  RunDueTimers();
  RunDeferred();
  return true;
}

}  // namespace tq
