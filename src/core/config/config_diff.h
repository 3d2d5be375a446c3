// What a reload of tqd.toml changes (`tq reload`, SIGHUP): the keys whose values differ, and
// which of them a running tqd cannot take.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"

namespace tq {

/// The keys of tqd.toml a reload changes ("max_running", "queues.gpu", "users.alice"), in the
/// order tqd.toml(5) lists them, and among them those that need a restart.
struct ConfigDiff {
  std::vector<std::string> changed;        ///< in force once the reload is done
  std::vector<std::string> needs_restart;  ///< read, but the running tqd keeps its own
};

/// How `read` differs from `running`.
ConfigDiff DiffConfig(const Config& running, const Config& read);

/// What a reload puts in force: `read`, with the keys a running tqd cannot change (the socket,
/// the state and job directories, durability, cgroup and the metrics textfile) as `running` has
/// them.
Config InForce(const Config& running, const Config& read);

}  // namespace tq
