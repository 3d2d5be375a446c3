// The daemon's single-threaded event loop: epoll over descriptors, one-shot timers on the
// monotonic clock, and deferred calls run once the current batch of events is handled.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/model/clock.h"

namespace tq {

/// Runs callbacks for ready descriptors and due timers; sleeps until the earliest deadline.
/// Not thread-safe: everything happens on the thread that calls Run.
class EventLoop {
 public:
  /// Called with the epoll event mask of the ready descriptor.
  using FdCallback = std::function<void(uint32_t events)>;
  using Callback = std::function<void()>;
  using TimerId = uint64_t;

  explicit EventLoop(const Clock& clock);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Starts watching `fd` for `events` (EPOLLIN, EPOLLOUT, ...). The loop does not own `fd`.
  void Watch(int fd, uint32_t events, FdCallback callback);
  /// Changes the events watched for `fd`.
  void Modify(int fd, uint32_t events);
  /// Stops watching `fd`; safe to call from inside its own callback.
  void Unwatch(int fd);

  /// Calls `callback` once at monotonic time `when`; returns an id for CancelTimer.
  TimerId AddTimer(MonoMs when, Callback callback);
  /// Forgets a timer; unknown or fired ids are ignored.
  void CancelTimer(TimerId id);

  /// Calls `callback` after the events of the current iteration are handled (a callback
  /// deferred from a deferred callback runs in the next iteration). Several Defer calls with the
  /// same non-null `key` before it runs collapse into one.
  void Defer(const void* key, Callback callback);

  /// Runs until Stop is called.
  void Run();
  /// Handles what is ready or due now without waiting, until no deferred call is left: lets a
  /// test with a fake clock drive the loop.
  void RunReady();
  /// Makes Run return after the current iteration.
  void Stop() { running_ = false; }

 private:
  /// One iteration: waits up to `timeout_ms` for descriptors, then runs due timers and deferred
  /// calls. False when epoll fails.
  bool Turn(int timeout_ms);
  int WaitTimeoutMs() const;
  void RunDueTimers();
  void RunDeferred();

  const Clock& clock_;
  int epoll_fd_;
  bool running_ = false;
  std::unordered_map<int, FdCallback> watched_;
  std::multimap<MonoMs, TimerId> timers_by_time_;
  std::unordered_map<TimerId, std::pair<MonoMs, Callback>> timers_;
  TimerId next_timer_id_ = 1;
  std::vector<std::pair<const void*, Callback>> deferred_;
};

}  // namespace tq
