// A cron job as a job file defines it (SPEC 7): its schedule, its command and the settings each of
// its firings' tasks gets, plus the overlap and misfire policies the scheduler applies.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cron/cron_expr.h"
#include "core/cron/cron_next.h"
#include "core/model/notify.h"
#include "core/model/resources.h"
#include "core/model/retry_overrides.h"
#include "core/model/stage.h"
#include "core/model/status.h"
#include "core/model/unit_use.h"

namespace tq {

/// What a firing does while another run of the same job is pending or running (SPEC 7).
enum class Overlap {
  kSkip,     ///< default: no new run while one is pending or running
  kQueue,    ///< at most one run waits behind the running one; later firings coalesce into it
  kAllow,    ///< every firing runs, alongside the others
  kReplace,  ///< cancel the old run; the new one starts once the old one's processes are gone
};

/// What the scheduler does with firings it missed (daemon down, host off, clock jumped).
enum class Misfire {
  kSkip,     ///< drop them; fire at the next scheduled time
  kRunOnce,  ///< default: one catch-up run for all of them (systemd Persistent=true, anacron)
  kRunAll,   ///< one run per missed firing, at most max_catch_up (the latest ones)
};

const char* OverlapName(Overlap o);
const char* MisfireName(Misfire m);
/// Parse the spellings above ("skip", "run_once", ...); nullopt for anything else.
std::optional<Overlap> OverlapFromName(std::string_view name);
std::optional<Misfire> MisfireFromName(std::string_view name);

/// One `[[job]]` of a job file, with its file's `[defaults]` applied and every value checked.
struct JobDef {
  std::string name;  ///< unique in the daemon: [A-Za-z0-9_.-], 1..64 characters
  std::string file;  ///< the job file it comes from
  int line = 0;      ///< the line of its `[[job]]` header
  /// The line of each key it was given, by key name: its own, or its file's [defaults]'.
  std::map<std::string, int, std::less<>> key_lines;

  CronExpr schedule;
  std::string timezone;  ///< IANA name; "" = the daemon's local zone
  DstPolicy dst = DstPolicy::kCron;

  std::optional<std::string> command;  ///< run by `shell` with -c; else `argv` is run directly
  std::string shell = "/bin/sh";
  std::vector<std::string> argv;
  /// Its steps (SPEC 13), given instead of command and argv: a stage's `shell` holds its
  /// `command`, run by the job's `shell` with -c; a stage without one runs its argv directly.
  std::vector<StageSpec> stages;
  std::string user;  ///< "" = the daemon's own user (only a system daemon may name another)
  std::string cwd;   ///< "" = the user's home directory
  std::vector<std::string> env;           ///< "NAME=VALUE", applied over cron's environment
  std::optional<std::string> stdin_data;  ///< fed to the task's stdin; otherwise /dev/null

  std::string queue = "default";
  int priority = 3;
  int64_t timeout_ms = 0;      ///< 0: no limit
  int64_t pending_ttl_ms = 0;  ///< 0: never expires while pending
  RetryOverrides retry;        ///< unset fields come from the queue's defaults

  Overlap overlap = Overlap::kSkip;
  Misfire misfire = Misfire::kRunOnce;
  int max_catch_up = 10;        ///< run_all: at most this many catch-up runs (1..1000)
  int64_t max_lateness_ms = 0;  ///< a catch-up later than this after its time is dropped; 0: none
  int64_t random_delay_ms = 0;  ///< each firing waits a uniform random 0..this before it is ready
  Resources resources;          ///< nice, ionice and limits, over its queue's
  UnitRequest use;              ///< units of tqd.toml's [resources] each run holds (SPEC 14)
  int shards = 0;               ///< each run is a group of this many shards (SPEC 12); 0: a task
  NotifySpec notify;            ///< hooks and mail at the end of each of its runs (SPEC 7a)
  /// The dead man's switch: an alert when no run has succeeded for this long; 0: none.
  int64_t expect_success_within_ms = 0;
  bool enabled = true;  ///< `enabled = false` in the file; `tq jobs disable` is separate
};

/// "FILE:LINE: " where a problem with `key` of `job` is reported: the line that gives the key
/// (in the job or its file's [defaults]), else the job's `[[job]]` header.
std::string JobWhere(const JobDef& job, std::string_view key);

/// Whether a job name is acceptable: 1 to 64 characters from [A-Za-z0-9_.-].
bool ValidJobName(std::string_view name);

/// Whether `ref` names a job: a name of the job files (ValidJobName), or USER/NAME for a job of
/// USER's own job file (`tq jobs install`; USER passes ValidAccountName).
bool ValidJobRef(std::string_view ref);

}  // namespace tq
