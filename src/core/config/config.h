// tqd.toml: the daemon's settings (SPEC 8, 11), their defaults, and the checks that refuse a bad
// file with file:line, the key, the value and what is allowed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/placement.h"
#include "core/model/priority_mix.h"
#include "core/model/queue_name.h"
#include "core/model/resources.h"
#include "core/model/retry_overrides.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/model/unit_use.h"
#include "core/model/user_rules.h"

namespace tq {

/// The number of online CPUs, at least 1: the default for Config::max_running.
int DefaultMaxRunning();

/// Settings of one `[queues.NAME]` table.
struct QueueConfig {
  int concurrency = 0;  ///< tasks of this queue running at once; 0 = no cap of its own
  PriorityMix priority_mix = PriorityMix::kMixed;  ///< how it orders its own ready tasks
  RetryPolicy retry;  ///< defaults for tasks submitted to this queue; flags override them
  int retry_priority_penalty = 0;  ///< how much lower a retried attempt's priority is
  Resources resources;             ///< nice, ionice and limits of its tasks (a job's win)
  QueueUsers users;                ///< who may submit to it (everyone unless restricted)
  QueueHosts hosts;                ///< which hosts sharing the store run its tasks (SPEC 12)
  bool operator==(const QueueConfig&) const = default;
};

/// A user or group name tqd.toml gives, and where: what AccountWarnings looks up.
struct AccountMention {
  std::string key;     ///< the dotted key: admin_group, deny_users, queues.NAME.allow_groups...
  int line = 0;        ///< its line in the file
  std::string name;    ///< the name as given
  bool group = false;  ///< a group name; else a user name
};

/// Everything tqd.toml can set. A default-constructed Config holds the defaults.
struct Config {
  /// Tasks running at once across all queues. Why the CPU count: one task per core is a safe
  /// default for CPU-bound work and leaves I/O-bound users to raise it.
  int max_running = DefaultMaxRunning();
  /// Bytes of output kept per stream (head and tail, the middle is dropped): 8 MiB holds any
  /// useful log while bounding the disk a runaway task can fill.
  int64_t output_max = 8 * 1024 * 1024;
  /// From TERM to KILL when stopping a task: 10 s lets a task flush and clean up.
  int64_t kill_grace_ms = 10000;
  /// The chooser's share of picks for the highest ready priority; the rest keeps lower ones fed.
  double high_share = 0.8;
  /// "full" (fsync every commit; nothing acknowledged is lost) or "normal" (faster).
  bool durability_full = true;
  /// How long a succeeded task keeps its result before it becomes expired: a day covers the
  /// "did last night's run work?" question.
  int64_t success_retention_ms = 24 * 3600 * 1000LL;
  /// How long failed, cancelled and expired tasks stay listed before their rows and output are
  /// purged: a week of history, as a weekly look at failures needs.
  int64_t purge_after_ms = 7 * 24 * 3600 * 1000LL;
  /// Where tasks are kept: "" for SQLite in the state directory (one host), or a PostgreSQL
  /// URI shared by several hosts (SPEC 12). Read at start only.
  std::string store;
  /// This tqd's name in the store (SPEC 12): "" for the machine's hostname. Read at start only.
  std::string host;
  /// With a shared store, how long a host may go without a heartbeat before another host fences
  /// it and rescues its running attempts (SPEC 12); each host beats every third of it.
  int64_t host_lease_ms = 30 * 1000;
  /// Socket path; "" = the mode's default (paths.h).
  std::string socket;
  /// State directory; "" = the mode's default (paths.h).
  std::string state_dir;
  /// The directory of the job files (SPEC 7); "" = the mode's default (paths.h).
  std::string jobs_dir;
  /// Where tasks get a cgroup each: "auto" (tqd's own cgroup when systemd delegated it), "off",
  /// or a delegated cgroup v2 directory. Read at start only.
  std::string cgroup = "auto";
  /// Where tqd writes its metrics for node_exporter's textfile collector (SPEC 11), replaced
  /// atomically every metrics_interval; "" writes none.
  std::string metrics_textfile;
  /// How often metrics_textfile is written: a minute matches a usual scrape interval.
  int64_t metrics_interval_ms = 60 * 1000;
  /// The sendmail that mails `mailto` (SPEC 7a); one that is not there is a logged warning.
  std::string sendmail = "/usr/sbin/sendmail";
  /// How long a hook or a mail may run before it is stopped: a minute is ample for a curl or a
  /// sendmail, and bounds what a hung hook holds.
  int64_t hook_timeout_ms = 60 * 1000;
  /// admin_group, allow_users and deny_users: who may use the system daemon, who administers it.
  UserRules users;
  /// `[user_limits]`: what every user other than root and the daemon's own may hold and do.
  UserLimits user_limits;
  /// `[users.NAME]`: one user's limits, user_limits with the keys the table sets.
  std::map<std::string, UserLimits> user_overrides;
  /// Every user and group name the file gives, in the file's order (no setting of its own: what
  /// AccountWarnings checks).
  std::vector<AccountMention> accounts;
  /// Per-queue settings by queue name; a queue not listed has no cap of its own.
  std::map<std::string, QueueConfig> queues;
  /// `[resources]`: the countable resources tasks ask units of (SPEC 14), by name.
  UnitPools unit_pools;

  /// The settings of `queue`: its own table, or the defaults.
  const QueueConfig& Queue(const std::string& queue) const;
  /// Whether several hosts may share the store: a PostgreSQL store (SPEC 12).
  bool Shared() const { return !store.empty(); }
  /// The retry policy a task submitted to `queue` gets: the queue's defaults with `overrides`.
  RetryPolicy RetryFor(const std::string& queue, const RetryOverrides& overrides) const;
  /// The limits of the user `name`: its `[users.NAME]` table, or user_limits.
  const UserLimits& LimitsFor(const std::string& name) const;
};

/// The daemon's configuration as one immutable snapshot. The daemon holds the one pointer and its
/// parts read through it at each use, so a reload can swap the whole snapshot at once.
using ConfigPtr = std::shared_ptr<const Config>;

/// Reads and checks a tqd.toml. A missing file gives the defaults unless `must_exist`; any other
/// failure is kConfig with "<path>:<line>: <key>: <reason>" (or "<path>: <reason>" for I/O).
Result<Config> LoadConfig(const std::string& path, bool must_exist);

/// Checks tqd.toml text; `source_name` (usually the path) starts every message. Unknown keys,
/// wrong types and out-of-range values are kConfig errors with the dotted key as field and
/// "<source>:<line>: <key>: <reason>" as message; TOML syntax errors likewise (field "").
Result<Config> ParseConfig(std::string_view toml_text, const std::string& source_name);

/// One warning per name of `config.accounts` this host has no account of (a group for
/// admin_group and allow_groups, a user for the others): "<source>:<line>: <key>: no group
/// "NAME" exists (...)". Not an error: the names count as given once the accounts exist. A
/// lookup that fails (a directory service out of reach) warns of nothing.
std::vector<std::string> AccountWarnings(const Config& config, const std::string& source);

/// Parses a byte size: an integer with an optional unit B, KiB, MiB, GiB (or K, M, G, also
/// binary), no space ("512KiB", "8M", "1024"). Refuses negative, unknown units and overflow
/// with kInvalid naming `field` and the text.
Result<int64_t> ParseSize(std::string_view text, const std::string& field);

}  // namespace tq
