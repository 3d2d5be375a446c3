// The daemon's single-threaded event loop: epoll over descriptors, one-shot timers on the
// monotonic clock and on the wall clock, and deferred calls run once the current batch of events
// is handled.
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
  /// Calls `callback` once the wall clock reads `when` or later, however the clock got there: a
  /// timerfd on CLOCK_REALTIME wakes the loop at that absolute time, also after a clock step.
  TimerId AddWallTimer(WallMs when, Callback callback);
  /// Forgets a timer of either kind; unknown or fired ids are ignored.
  void CancelTimer(TimerId id);
  /// Calls `callback` (on the loop) each time the wall clock is set (stepped), so wall-clock
  /// deadlines computed from the old reading can be computed again.
  void OnClockSet(Callback callback) { on_clock_set_ = std::move(callback); }

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
  /// Arms the realtime timerfd for the earliest wall timer (absolute, cancelled on a clock set),
  /// or disarms it; does nothing when it is already so armed.
  void ArmWallFd();
  /// The timerfd expired or the clock was set: re-arms it and tells OnClockSet's callback.
  void OnWallFd();
  void RunDeferred();

  const Clock& clock_;
  int epoll_fd_;
  bool running_ = false;
  std::unordered_map<int, FdCallback> watched_;
  /// A pending timer: when it is due, on which clock, and what it calls.
  struct Timer {
    int64_t when = 0;
    bool wall = false;
    Callback callback;
  };
  std::multimap<MonoMs, TimerId> timers_by_time_;
  std::multimap<WallMs, TimerId> wall_timers_by_time_;
  std::unordered_map<TimerId, Timer> timers_;
  int wall_fd_ = -1;          ///< timerfd on CLOCK_REALTIME
  WallMs wall_fd_armed_ = 0;  ///< the time wall_fd_ is armed for (0: disarmed)
  Callback on_clock_set_;
  TimerId next_timer_id_ = 1;
  std::vector<std::pair<const void*, Callback>> deferred_;
};

}  // namespace tq
