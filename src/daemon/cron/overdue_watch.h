// Watches the dead man's switches of the jobs (SPEC 7a): at each job's deadline, and whenever a
// run of a job ends, checks which jobs have not succeeded within their expect_success_within and
// raises each stretch's alert once (a log line, the job's on_failure hook and mail, a metric).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/model/clock.h"
#include "core/store/store.h"
#include "daemon/cron/scheduler.h"
#include "daemon/host/event_loop.h"
#include "daemon/notify/notifier.h"

namespace tq {

/// The daemon's watch over the jobs' switches; lives on its event loop.
class OverdueWatch {
 public:
  /// Counts each alert in `alerts` (the daemon's counter, which must outlive the watch).
  OverdueWatch(EventLoop& loop, const Clock& clock, Store& store, Scheduler& scheduler,
               Notifier& notifier, uint64_t& alerts);
  ~OverdueWatch();
  OverdueWatch(const OverdueWatch&) = delete;
  OverdueWatch& operator=(const OverdueWatch&) = delete;

  /// Checks every switched job now, alerts where due, and arms the timer for the next deadline.
  void Check();
  /// Each switched job and whether it is overdue, as of the last check (for the metrics).
  const std::map<std::string, bool>& overdue() const { return overdue_; }

 private:
  /// Runs Check() again at `when`.
  void Arm(WallMs when);

  EventLoop& loop_;
  const Clock& clock_;
  Store& store_;
  Scheduler& scheduler_;
  Notifier& notifier_;
  uint64_t& alerts_;
  std::map<std::string, bool> overdue_;
  EventLoop::TimerId timer_ = 0;
};

}  // namespace tq
