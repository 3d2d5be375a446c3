// What the cron scheduler needs of the daemon around it: the store and the clock, who may do
// what, the limits on new tasks, and the ways to tell of the tasks it creates and ends.
#pragma once

#include <cstdint>
#include <string>

#include "core/metrics/metrics.h"
#include "core/model/clock.h"
#include "core/model/retry_overrides.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/model/unit_use.h"
#include "core/policy/access.h"
#include "core/store/store.h"

namespace tq {

class EventFeed;
class Spool;

/// The daemon as the scheduler sees it. The Daemon implements it.
class CronHost {
 public:
  virtual ~CronHost() = default;

  virtual Store& store() = 0;
  virtual const Clock& clock() const = 0;
  /// What `peer` may see and do.
  virtual Access AccessFor(const Owner& peer) const = 0;
  /// Whether `peer` may put tasks in `queue`; kPermission naming the queue when not.
  virtual Status CheckQueue(const Owner& peer, const std::string& queue) const = 0;
  /// Refuses a request for units tqd.toml's [resources] cannot meet (CheckUnitRequest).
  virtual Status CheckUnits(const UnitRequest& use) const = 0;
  /// The users' own job files.
  virtual const Spool& spool() const = 0;
  /// What tqd counts since its start.
  virtual DaemonCounters& counters() = 0;
  /// Refuses `count` new tasks of `peer` that their limits forbid.
  virtual Status AdmitSubmits(const Owner& peer, int64_t count) = 0;
  /// The retry policy of a task in `queue`: the queue's defaults with `overrides`.
  virtual RetryPolicy RetryPolicyFor(const std::string& queue,
                                     const RetryOverrides& overrides) const = 0;
  /// The followers of `tq events -f`, told of each task a firing creates.
  virtual EventFeed& events() = 0;
  /// Ends a pending task (a run a newer firing superseded); false when the store refused.
  virtual bool EndPending(TaskId id, TaskState state, TaskReason reason) = 0;
  /// Stops a running task (a run a newer firing superseded).
  virtual void StopRunning(TaskId id, TaskReason reason) = 0;
  /// Runs the chooser once the current batch of events is handled.
  virtual void ScheduleDispatch() = 0;
  /// The jobs in force changed: their dead man's switches are checked again.
  virtual void JobsChanged() = 0;
};

}  // namespace tq
