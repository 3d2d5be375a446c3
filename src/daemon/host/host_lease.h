// A host's lease in a shared store (SPEC 12): tqd beats every third of host_lease, and fences a
// host whose last heartbeat is a whole lease old. Heartbeats, the hosts list and fencing go
// through a session of the store of their own, on a thread of their own, so they never wait
// behind this host's other statements (a claim waiting for a row another host holds) nor keep
// the loop waiting. Silence is judged on the store's clock alone (LeaseWatch), so no host's
// clock matters, and only by a host whose own heartbeats were stored without a gap for a lease:
// a host that was stalled itself, or whose store was, fences no one on what it sees first after.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/policy/lease_watch.h"
#include "core/store/store.h"
#include "daemon/host/background_work.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"
#include "daemon/host/loop_mailbox.h"

namespace tq {

/// Keeps this host's lease and watches the other hosts'. Lives on the event loop's thread; its
/// session of the store on a thread of its own.
class HostLease {
 public:
  /// What the lease tells the daemon, on the loop.
  struct Callbacks {
    /// Another host fenced this one: the attempts it runs are no longer its own.
    std::function<void()> fenced;
    /// This host fenced silent host `host`, whose running `attempts` passed to it; `silent_ms`
    /// before now, by the store's clock, was its last heartbeat (0: unknown).
    std::function<void(const std::string& host, int64_t silent_ms,
                       const std::vector<RunningAttempt>& attempts)>
        rescued;
    /// This host ended these tasks: later stages whose context was on a fenced host.
    std::function<void(const std::vector<TaskId>& ids)> ended;
  };
  /// Opens the lease's session: a store of its own, used on the lease's thread only.
  using OpenSession = std::function<Result<std::unique_ptr<Store>>()>;
  /// Where the session's calls run: a thread of their own, or (tests) on the loop, at once.
  enum class Threading { kOwnThread, kInline };

  /// `store` is the daemon's, joined as `host`: the lease's session acts for the same host at
  /// the epoch `store` joined at. Reads host_lease and max_running through `config` (the
  /// daemon's pointer, which must outlive the lease) at each beat.
  HostLease(EventLoop& loop, const Clock& clock, Store& store, OpenSession open_session,
            const ConfigPtr& config, std::string host, Callbacks callbacks,
            Threading threading = Threading::kOwnThread);
  /// Waits for a beat under way on the lease's thread, then stops beating.
  ~HostLease();
  HostLease(const HostLease&) = delete;
  HostLease& operator=(const HostLease&) = delete;

  /// Beats now and every third of host_lease after.
  void Start();

 private:
  /// A silent host this host fenced, as the session's thread found it.
  struct Fenced {
    std::string host;
    int64_t silent_ms = 0;
    std::vector<RunningAttempt> attempts;
  };
  /// What one beat on the session's thread found.
  struct BeatOutcome {
    std::vector<std::string> errors;  ///< what failed, each to log
    bool looked = false;              ///< the heartbeat was stored and the hosts read
    bool fenced_here = false;         ///< another host fenced this one
    std::vector<Fenced> fenced;       ///< the hosts this one fenced
    bool any_fenced = false;          ///< some host of the store is fenced
  };

  /// On the loop: sends a beat to the session's thread, unless the last one is still under way.
  void Beat();
  /// On the session's thread: the heartbeat, the hosts list and the fencing of silent hosts.
  BeatOutcome BeatInSession(int64_t epoch, int max_running, int64_t lease_ms, WallMs now);
  /// On the loop: logs what the beat found and acts on it.
  void Finish(const BeatOutcome& outcome);
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
  LogThrottle store_errors_;
  EventLoop::TimerId timer_ = 0;
  bool beating_ = false;  ///< a beat is under way on the session's thread

  // The session's thread's own: used by BeatInSession only.
  OpenSession open_session_;
  std::unique_ptr<Store> session_;
  int64_t session_epoch_ = 0;  ///< the epoch the session acts for
  LeaseWatch watch_;

  // Declared last: destroyed first, so the thread ends before what its beats use.
  std::unique_ptr<LoopMailbox> mailbox_;  ///< null: Threading::kInline
  std::unique_ptr<BackgroundWork> work_;  ///< null: Threading::kInline
};

}  // namespace tq
