// Ends of attempts the store could not take (busy past its timeout, a full disk, an I/O error):
// kept here and applied again on a growing delay until stored, so no end is lost and no waiter
// hangs on a task the store still calls running. Until then the store counts it as running.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/store/store.h"
#include "daemon/host/event_loop.h"

namespace tq {

/// An attempt's end, as the executor reported it.
struct AttemptEnd {
  TaskId id = 0;
  int attempt = 0;
  AttemptOutcome outcome;
  std::optional<StopRequest> stop;
};

/// The ends not yet stored, tried again with exponential backoff.
class UnstoredEnds {
 public:
  /// Stores one end: ok when done, else why not (a refusal, with no store fault, is for good:
  /// it tells why itself, and the end is dropped).
  using Apply = std::function<Status(AttemptEnd&)>;

  UnstoredEnds(EventLoop& loop, const Clock& clock, Apply apply);
  ~UnstoredEnds();
  UnstoredEnds(const UnstoredEnds&) = delete;
  UnstoredEnds& operator=(const UnstoredEnds&) = delete;

  /// Keeps `end`, whose storing just failed, and arms the next try.
  void Add(AttemptEnd end);
  /// True when the end of attempt `attempt` of `id` is kept here.
  bool Holds(TaskId id, int attempt) const {
    auto it = ends_.find(id);
    return it != ends_.end() && it->second.attempt == attempt;
  }

 private:
  /// Arms the next try after the current delay, unless one is armed.
  void Arm();
  /// Tries every kept end once; doubles the delay while some stay (up to a bound).
  void TryAll();

  EventLoop& loop_;
  const Clock& clock_;
  Apply apply_;
  std::map<TaskId, AttemptEnd> ends_;
  int64_t delay_ms_;
  EventLoop::TimerId timer_ = 0;
};

}  // namespace tq
