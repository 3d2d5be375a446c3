// What a request handler may use of the daemon: the store, the caller's access, the server that
// answers, the waiters and the events feed, the scheduler, dispatch, the daemon's counts and
// the name it joined the store as. The daemon makes one once its parts are open; handlers see
// nothing else of it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/config_diff.h"
#include "core/metrics/metrics.h"
#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/store/store.h"
#include "daemon/cron/scheduler.h"
#include "daemon/host/event_loop.h"
#include "daemon/run/dispatch.h"
#include "daemon/run/task_files.h"
#include "daemon/serve/event_feed.h"
#include "daemon/serve/group_commit.h"
#include "daemon/serve/server.h"
#include "daemon/serve/waiters.h"
#include "daemon/users/access_rules.h"
#include "daemon/users/spool.h"
#include "daemon/users/user_limits_gate.h"

namespace tq {

/// The parts of the daemon a request may reach; each outlives every request.
struct RequestContext {
  Store& store;
  const Clock& clock;
  EventLoop& loop;          ///< where work over many tasks goes on a page per pass (WalkSelected)
  const ConfigPtr& config;  ///< the daemon's pointer, read at each use
  Server& server;           ///< answers on the caller's connection
  Waiters& waiters;         ///< `tq wait` and `tq cancel`, answered when the tasks end
  EventFeed& events;        ///< `tq events -f`, and what it is told of each change
  Scheduler& scheduler;     ///< the jobs: read, run now, enable, reload
  const TaskFiles& files;
  const AccessRules& access;
  Dispatcher& dispatch;    ///< a dispatch after a change, and ending or stopping tasks
  GroupCommit& submits;    ///< this turn's submits, committed together
  UserLimitsGate& limits;  ///< the rate of changes to a user's own job file
  const Spool& spool;      ///< the users' own job files
  DaemonCounters& counters;
  /// Tells the waiters, the followers of events and the tasks' hooks that `ids` ended.
  std::function<void(const std::vector<TaskId>& ids)> ended;
  /// Reads tqd.toml again (`tq reload`): what changed and what needs a restart.
  std::function<Result<ConfigDiff>()> reload_config;
  /// The store's counts now with the daemon's counters: `tq stats`.
  std::function<Result<MetricsSnapshot>()> metrics;
  /// The name this tqd joined the store as (SPEC 12): the host `tq hosts` marks as answering.
  std::string host;
};

}  // namespace tq
