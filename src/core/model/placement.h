// Where a task may run when several hosts share the store (SPEC 12): by default on the host it
// was submitted on (its cwd, user and files are that host's); a queue's `hosts` lets its tasks run
// on any host, or on the hosts it names; `tq submit --host` asks for one host.
#pragma once

#include <string>
#include <vector>

#include "core/model/status.h"

namespace tq {

/// A queue's `hosts` in tqd.toml: which hosts may run its tasks.
struct QueueHosts {
  bool any = false;                ///< `hosts = "any"`: every host
  std::vector<std::string> names;  ///< `hosts = [...]`: these hosts (empty: the submitting one)
  bool operator==(const QueueHosts&) const = default;
};

/// The host a task submitted on `self` to a queue with `hosts` must run on, or "" for any host
/// the queue lets take it (TaskSpec::run_on). `requested` is `tq submit --host` ("" when not
/// given); a host the queue does not allow is refused, naming it and the queue's hosts. With a
/// store only one host uses (`shared` false) every task runs on it, and `requested` may name only
/// `self`.
Result<std::string> PlaceTask(const QueueHosts& hosts, const std::string& queue,
                              const std::string& self, const std::string& requested, bool shared);

/// Whether host `self` takes the tasks of a queue with `hosts` that were placed on no host: a
/// queue that names hosts keeps them to those; otherwise any host takes them (a queue without
/// `hosts` places each task on its own host, so only tasks from before placement are unplaced).
bool TakesUnplaced(const QueueHosts& hosts, const std::string& self);

}  // namespace tq
