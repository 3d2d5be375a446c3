// The daemon's single-threaded event loop: epoll over descriptors, one-shot timers on the
// monotonic clock and on the wall clock, and deferred calls run once the current batch of events
// is handled. A call that waits for a network store's answer waits on the loop (WaitFor), which
// meanwhile runs the callbacks marked as needing no store: answering a ping, feeding systemd's
// watchdog, signalling a task whose time is up.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/model/clock.h"

struct epoll_event;

namespace tq {

/// Runs callbacks for ready descriptors and due timers; sleeps until the earliest deadline.
/// Not thread-safe: everything happens on the thread that calls Run.
class EventLoop {
 public:
  /// Called with the epoll event mask of the ready descriptor.
  using FdCallback = std::function<void(uint32_t events)>;
  using Callback = std::function<void()>;
  using TimerId = uint64_t;
  /// Whether a timer's callback also runs while a call waits on the loop (WaitFor): only one
  /// that touches no store may, since the store is the one waited on.
  enum class DuringWaits { kNo, kYes };

  explicit EventLoop(const Clock& clock);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Starts watching `fd` for `events` (EPOLLIN, EPOLLOUT, ...). The loop does not own `fd`.
  /// `during` kYes: its callback also runs while a call waits on the loop, so it touches no
  /// store, or holds back what would (the server keeps such requests until after).
  void Watch(int fd, uint32_t events, FdCallback callback, DuringWaits during = DuringWaits::kNo);
  /// Changes the events watched for `fd`.
  void Modify(int fd, uint32_t events);
  /// Stops watching `fd`; safe to call from inside its own callback.
  void Unwatch(int fd);

  /// Calls `callback` once at monotonic time `when`; returns an id for CancelTimer.
  TimerId AddTimer(MonoMs when, Callback callback, DuringWaits during = DuringWaits::kNo);
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

  /// Waits up to `timeout_ms` (-1: no bound) for `fd` to be ready for `events` (EPOLLIN,
  /// EPOLLOUT; fd -1: for the time only), running meanwhile the descriptors and timers marked
  /// to run during waits, and nothing else: no deferred call, no other timer. 1 when `fd` is
  /// ready, 0 when the time ran out, -1 when it cannot be waited for. A wait inside a wait
  /// waits for `fd` alone.
  int WaitFor(int fd, uint32_t events, int timeout_ms);
  /// True while a call waits on the loop (WaitFor): what needs the store must wait until after.
  bool waiting() const { return waiting_; }

 private:
  /// One iteration: waits up to `timeout_ms` for descriptors, then runs due timers and deferred
  /// calls. False when epoll fails.
  bool Turn(int timeout_ms);
  int WaitTimeoutMs() const;
  /// How long a wait (WaitFor) may sleep before a timer that runs during waits is due.
  int DuringWaitsTimeoutMs(MonoMs deadline) const;
  /// Runs the timers due now (while waiting: only those that run during waits).
  void RunDueTimers();
  /// Arms the realtime timerfd for the earliest wall timer (absolute, cancelled on a clock set),
  /// or disarms it; does nothing when it is already so armed.
  void ArmWallFd();
  /// The timerfd expired or the clock was set: re-arms it and tells OnClockSet's callback.
  void OnWallFd();
  void RunDeferred();
  /// Runs the callback of the descriptor `event` is for, if it is still the watch it was for.
  void Dispatch(const epoll_event& event);

  const Clock& clock_;
  int epoll_fd_;
  int waits_epoll_fd_;  ///< the descriptors watched during waits, and the one waited for
  bool running_ = false;
  bool waiting_ = false;  ///< inside WaitFor
  /// A watched descriptor's callback, and the number of its watch (unique in the loop).
  struct Watched {
    uint64_t watch = 0;
    FdCallback callback;
  };
  std::unordered_map<int, Watched> watched_;
  uint64_t next_watch_ = 1;
  std::unordered_set<int> during_waits_;  ///< watched descriptors also in waits_epoll_fd_
  /// A pending timer: when it is due, on which clock, and what it calls.
  struct Timer {
    int64_t when = 0;
    bool wall = false;
    DuringWaits during = DuringWaits::kNo;
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
