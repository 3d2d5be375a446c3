// The daemon's descriptor budget: raise the soft RLIMIT_NOFILE as far as allowed, keep a reserve
// for the store and for running tasks, and give clients what is left.
#pragma once

#include <cstddef>

namespace tq {

/// Descriptors the daemon keeps for itself (store, log, epoll, signals, listening socket, ...).
constexpr size_t kFdsForDaemon = 64;
/// Descriptors one running task may need at once (its pidfd, its status record while it starts,
/// the spawn of its shim, a follower of its output).
constexpr size_t kFdsPerRunningTask = 4;
/// The most clients served at once however high the limit is.
constexpr size_t kMaxConnectionsCap = 1024;
/// The fewest clients served, even under a limit too low for the reserve.
constexpr size_t kMinConnections = 8;

/// The soft RLIMIT_NOFILE in force now (0 when unknown or infinite): read before RaiseFdLimit,
/// it is what tasks get back, since many programs misbehave with a very high limit.
size_t SoftFdLimit();

/// Raises the soft RLIMIT_NOFILE to the hard limit and returns the soft limit now in force.
size_t RaiseFdLimit();

/// How many clients may be connected at once under `fd_limit` with up to `max_running` tasks:
/// the limit minus the daemon's reserve and kFdsPerRunningTask per task, between
/// kMinConnections and kMaxConnectionsCap.
size_t ConnectionBudget(size_t fd_limit, int max_running);

}  // namespace tq
