// A host's lease in a shared store (SPEC 12): tqd beats every third of host_lease, and fences a
// host whose beats have not moved for a whole lease, taking its running attempts to end as lost.
// Silence is measured on this host's monotonic clock, so no host's wall clock matters, and only
// while this host's own heartbeats are stored on time: a host that was stalled itself fences no
// one on what it saw before the stall.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/store/store.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"

namespace tq {

/// Keeps this host's lease and watches the other hosts'. Lives on the event loop's thread.
class HostLease {
 public:
  /// What the lease tells the daemon.
  struct Callbacks {
    /// Another host fenced this one: the attempts it runs are no longer its own.
    std::function<void()> fenced;
    /// This host fenced silent host `host`, whose running `attempts` passed to it.
    std::function<void(const std::string& host, const std::vector<RunningAttempt>& attempts)>
        rescued;
    /// This host ended these tasks: later stages whose context was on a fenced host.
    std::function<void(const std::vector<TaskId>& ids)> ended;
  };

  /// `host` is the name this tqd joined the store as. Reads host_lease and max_running through
  /// `config` (the daemon's pointer, which must outlive the lease) at each beat.
  HostLease(EventLoop& loop, const Clock& clock, Store& store, const ConfigPtr& config,
            std::string host, Callbacks callbacks);
  ~HostLease();
  HostLease(const HostLease&) = delete;
  HostLease& operator=(const HostLease&) = delete;

  /// Beats now and every third of host_lease after.
  void Start();

 private:
  /// A host's beats as this host last saw them change.
  struct Seen {
    int64_t beats = 0;
    MonoMs since = 0;  ///< when this host first saw that count
  };

  void Beat();
  /// Fences each other host whose beats have not moved for host_lease by `now`.
  void RescueSilent(MonoMs now);
  /// Takes the attempts fenced hosts started in claims that committed after their fencing
  /// (Store::TakeFenced), to end as lost as a fencing's are.
  void TakeLateClaims();
  /// Fails the later stages whose context was on a fenced host (Store::EndContextLost).
  void EndContextLost();

  EventLoop& loop_;
  const Clock& clock_;
  Store& store_;
  const ConfigPtr& config_;
  std::string host_;
  Callbacks callbacks_;
  std::map<std::string, Seen> seen_;
  std::optional<MonoMs> last_beat_;  ///< when this host's last heartbeat was stored
  LogThrottle store_errors_;
  EventLoop::TimerId timer_ = 0;
};

}  // namespace tq
