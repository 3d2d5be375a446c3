#include "core/store/sql/task_rows.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "core/model/saturating.h"
#include "core/store/sql/connection.h"
#include "core/store/sql/stored_bytes.h"

namespace tq::sql {

namespace {

// The request columns, in binding order (BindRequest must follow it).
constexpr const char* kRequestColumns[] = {
    "argv",
    "shell",
    "queue",
    "priority",
    "base_priority",
    "stdin_data",
    "cwd",
    "env_hash",
    "clean_env",
    "not_before",
    "timeout_ms",
    "task_key",
    "version",
    "retries",
    "backoff",
    "backoff_base_ms",
    "backoff_max_ms",
    "jitter",
    "retry_on_exit",
    "no_retry_on_exit",
    "pending_ttl_ms",
    "keep_background",
    "job",
    "job_exclusive",
    "on_failure",
    "on_success",
    "on_finish",
    "mailto",
    "mail_on",
    "uses",
    "stages",
    "shard_group",
    "shard_index",
    "shard_total",
    "run_on",
};

// Column positions of TaskSelect.
// clang-format off
enum TaskCol {
  kId, kOwnerUid, kOwnerGid, kOwnerName, kArgv, kShell, kQueue, kPriority, kStdin, kCwd, kEnv,
  kCleanEnv, kNotBefore, kTimeoutMs, kState, kReason, kAttemptCount, kExitCode, kSignal,
  kCreated, kFinished, kKey, kVersion, kRetries, kBackoff, kBackoffBase, kBackoffMax, kJitter,
  kRetryOnExit, kNoRetryOnExit, kPendingTtl, kKeepBackground, kJob, kJobExclusive, kOnFailure,
  kOnSuccess, kOnFinish, kMailto, kMailOn, kHeld, kUses, kStages, kStage, kShardGroup,
  kShardIndex, kShardTotal, kRunOn, kLabels, kDeps,
};
// clang-format on
static_assert(kDeps + 1 == kTaskSelectColumns);

// TaskSelect's labels, "LENGTH:LABEL" one after the other, into `out`; false when malformed.
bool ReadLabels(const std::string& text, std::vector<std::string>* out) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t colon = text.find(':', at);
    if (colon == std::string::npos || colon == at || colon - at > 9) return false;
    size_t length = 0;
    for (size_t i = at; i < colon; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      length = length * 10 + static_cast<size_t>(text[i] - '0');
    }
    if (length > text.size() - colon - 1) return false;
    out->push_back(text.substr(colon + 1, length));
    at = colon + 1 + length;
  }
  return true;
}

// TaskSelect's dependencies, "ID,ID,...", into `out`; false when malformed.
bool ReadIds(const std::string& text, std::vector<TaskId>* out) {
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    if (comma == at || comma - at > 18) return false;
    TaskId id = 0;
    for (size_t i = at; i < comma; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      id = id * 10 + (text[i] - '0');
    }
    out->push_back(id);
    at = comma + 1;
  }
  return true;
}

}  // namespace

std::string TaskName(TaskId id) {
  return "task " + std::to_string(id);
}

bool DepDone(TaskState s) {
  return s == TaskState::kSucceeded || s == TaskState::kExpired;
}

bool DepFailed(TaskState s) {
  return s == TaskState::kFailed || s == TaskState::kCancelled;
}

Status CheckBytes(const TaskSpec& spec) {
  if (std::optional<size_t> i = FirstWithNul(spec.argv)) {
    return Status::Invalid("argv", "argv[" + std::to_string(*i) + "] contains a NUL byte");
  }
  if (std::optional<size_t> i = FirstWithNul(spec.env)) {
    return Status::Invalid("env", "env entry " + std::to_string(*i) + " contains a NUL byte");
  }
  for (const StageSpec& stage : spec.stages)
    if (std::optional<size_t> i = FirstWithNul(stage.argv))
      return Status::Invalid("stages", "stages: " + stage.name + ": argv[" + std::to_string(*i) +
                                           "] contains a NUL byte");
  if (spec.job) return CheckJobName(*spec.job);
  return Status::Ok();
}

Status CheckJobName(const std::string& job) {
  if (job.empty()) return Status::Invalid("job", "a job name cannot be empty");
  if (job.find('\0') != std::string::npos) {
    return Status::Invalid("job", "job name contains a NUL byte");
  }
  return Status::Ok();
}

std::optional<WallMs> PendingDeadline(const TaskSpec& spec, WallMs now) {
  if (spec.pending_ttl_ms <= 0) return std::nullopt;
  return SaturatingAdd(now, spec.pending_ttl_ms);
}

std::string RequestColumns() {
  std::string out;
  for (const char* column : kRequestColumns) {
    if (!out.empty()) out += ", ";
    out += column;
  }
  return out;
}

int RequestColumnCount() {
  return static_cast<int>(std::size(kRequestColumns));
}

std::string RequestParams() {
  std::string out;
  for (int i = 1; i <= RequestColumnCount(); ++i) {
    if (i > 1) out += ", ";
    out += "$" + std::to_string(i);
  }
  return out;
}

void BindRequest(Query& q, const TaskSpec& spec, const std::string& env_key) {
  const RetryPolicy& r = spec.retry;
  q.BindBlob(EncodeList(spec.argv)).BindOptBlob(spec.shell).BindText(spec.queue);
  q.BindInt(spec.priority).BindInt(spec.priority).BindOptBlob(spec.stdin_data);
  q.BindBlob(spec.cwd).BindText(env_key).BindInt(spec.clean_env ? 1 : 0);
  q.BindInt(spec.not_before).BindInt(spec.timeout_ms).BindOptText(spec.key);
  q.BindInt(spec.version).BindInt(r.retries).BindText(BackoffName(r.backoff));
  q.BindInt(r.base_ms).BindInt(r.max_ms).BindInt(r.jitter ? 1 : 0);
  q.BindText(EncodeInts(r.retry_on_exit)).BindText(EncodeInts(r.no_retry_on_exit));
  q.BindInt(spec.pending_ttl_ms).BindInt(spec.keep_background ? 1 : 0);
  q.BindOptText(spec.job).BindInt(spec.job_exclusive ? 1 : 0);
  const NotifySpec& n = spec.notify;
  q.BindOptBlob(n.on_failure).BindOptBlob(n.on_success).BindOptBlob(n.on_finish);
  q.BindText(n.mailto).BindText(MailOnName(n.mail_on));
  q.BindOptText(spec.use.empty() ? std::nullopt
                                 : std::optional<std::string>(EncodeUnitRequest(spec.use)));
  q.BindInt(static_cast<int64_t>(spec.stages.size()));
  const std::optional<ShardOf>& shard = spec.shard;
  q.BindOptInt(shard ? std::optional<int64_t>(shard->group) : std::nullopt);
  q.BindOptInt(shard ? std::optional<int64_t>(shard->index) : std::nullopt);
  q.BindOptInt(shard ? std::optional<int64_t>(shard->total) : std::nullopt);
  q.BindText(spec.run_on);
}

std::string TaskSelect(Dialect d, bool full) {
  // The labels as "LENGTH:LABEL" one after the other (LENGTH in bytes), in order; the
  // dependencies as "ID,ID,...", in the order given; NULL when there are none (ReadLabels).
  const char* lists =
      d == Dialect::kSqlite
          ? "(SELECT group_concat(x, '') FROM (SELECT length(CAST(label AS BLOB)) || ':' || label "
            "AS x FROM task_labels WHERE task_id = t.id ORDER BY pos)), "
            "(SELECT group_concat(dep_id, ',') FROM (SELECT dep_id FROM task_deps "
            "WHERE task_id = t.id ORDER BY rowid)) "
          : "(SELECT string_agg(convert_to(octet_length(l.label) || ':', 'UTF8') || l.label, "
            "''::bytea ORDER BY l.pos) FROM task_labels AS l WHERE l.task_id = t.id), "
            "(SELECT string_agg(p.dep_id::text, ',' ORDER BY p.rowid) FROM task_deps AS p "
            "WHERE p.task_id = t.id) ";
  return std::string(
             "SELECT t.id, t.owner_uid, t.owner_gid, t.owner_name, t.argv, t.shell, t.queue, "
             "t.base_priority, ") +
         (full ? "t.stdin_data" : "NULL") + ", t.cwd, " + (full ? "e.data" : "NULL") +
         ", t.clean_env, t.not_before, t.timeout_ms, t.state, t.reason, t.attempt_count, "
         "t.exit_code, t.signal, t.created, t.finished, t.task_key, t.version, t.retries, "
         "t.backoff, t.backoff_base_ms, t.backoff_max_ms, t.jitter, t.retry_on_exit, "
         "t.no_retry_on_exit, t.pending_ttl_ms, t.keep_background, t.job, t.job_exclusive, "
         "t.on_failure, t.on_success, t.on_finish, t.mailto, t.mail_on, t.held, t.uses, t.stages, "
         "t.stage, t.shard_group, t.shard_index, t.shard_total, t.run_on, " +
         lists + "FROM tasks AS t ";
}

Result<Task> ReadTask(const Query& q) {
  Task t;
  t.id = q.Int(kId);
  auto corrupt = [&t](const char* what) {
    return StoreError("read " + TaskName(t.id), std::string("corrupt ") + what);
  };
  t.owner.uid = static_cast<uint32_t>(q.Int(kOwnerUid));
  t.owner.gid = static_cast<uint32_t>(q.Int(kOwnerGid));
  t.owner.name = q.Text(kOwnerName);
  if (!DecodeList(q.Blob(kArgv), &t.spec.argv)) return corrupt("argv");
  if (!q.IsNull(kShell)) t.spec.shell = q.Blob(kShell);
  t.spec.queue = q.Text(kQueue);
  t.spec.priority = static_cast<int>(q.Int(kPriority));
  if (!q.IsNull(kStdin)) t.spec.stdin_data = q.Blob(kStdin);
  t.spec.cwd = q.Blob(kCwd);
  if (!DecodeList(q.Blob(kEnv), &t.spec.env)) return corrupt("env");
  t.spec.clean_env = q.Int(kCleanEnv) != 0;
  t.spec.not_before = q.Int(kNotBefore);
  t.spec.timeout_ms = q.Int(kTimeoutMs);
  if (!q.IsNull(kKey)) t.spec.key = q.Text(kKey);
  t.spec.version = q.Int(kVersion);
  RetryPolicy& r = t.spec.retry;
  r.retries = static_cast<int>(q.Int(kRetries));
  std::optional<BackoffKind> backoff = BackoffFromName(q.Text(kBackoff));
  if (!backoff) return corrupt("backoff");
  r.backoff = *backoff;
  r.base_ms = q.Int(kBackoffBase);
  r.max_ms = q.Int(kBackoffMax);
  r.jitter = q.Int(kJitter) != 0;
  if (!DecodeInts(q.Text(kRetryOnExit), &r.retry_on_exit)) return corrupt("retry_on_exit");
  if (!DecodeInts(q.Text(kNoRetryOnExit), &r.no_retry_on_exit)) {
    return corrupt("no_retry_on_exit");
  }
  t.spec.pending_ttl_ms = q.Int(kPendingTtl);
  t.spec.keep_background = q.Int(kKeepBackground) != 0;
  if (!q.IsNull(kJob)) t.spec.job = q.Text(kJob);
  t.spec.job_exclusive = q.Int(kJobExclusive) != 0;
  NotifySpec& n = t.spec.notify;
  for (auto [col, hook] :
       {std::pair{kOnFailure, &n.on_failure}, std::pair{kOnSuccess, &n.on_success},
        std::pair{kOnFinish, &n.on_finish}})
    if (!q.IsNull(col)) *hook = q.Blob(col);
  n.mailto = q.Text(kMailto);
  std::optional<MailOn> mail_on = MailOnFromName(q.Text(kMailOn));
  if (!mail_on) return corrupt("mail_on");
  n.mail_on = *mail_on;
  std::optional<TaskState> state = StateFromName(q.Text(kState));
  if (!state) return corrupt("state");
  t.state = *state;
  std::optional<TaskReason> reason = TaskReasonFromName(q.Text(kReason));
  if (!reason) return corrupt("reason");
  t.reason = *reason;
  t.attempt_count = static_cast<int>(q.Int(kAttemptCount));
  t.exit_code = static_cast<int>(q.Int(kExitCode));
  t.signal = static_cast<int>(q.Int(kSignal));
  t.created = q.Int(kCreated);
  t.finished = q.Int(kFinished);
  t.on_hold = q.Int(kHeld) == kHeldByUser;
  if (!q.IsNull(kUses)) {
    std::optional<UnitRequest> use = DecodeUnitRequest(q.Text(kUses));
    if (!use) return corrupt("uses");
    t.spec.use = std::move(*use);
  }
  const int64_t stages = q.Int(kStages);
  if (stages < 0 || stages > static_cast<int64_t>(kMaxStages)) return corrupt("stages");
  t.spec.stages.resize(static_cast<size_t>(stages));  // their rows are read by LoadStages
  t.stage = static_cast<int>(q.Int(kStage));
  if (!q.IsNull(kShardGroup)) {
    const ShardOf shard{q.Int(kShardGroup), static_cast<int>(q.Int(kShardIndex)),
                        static_cast<int>(q.Int(kShardTotal))};
    if (shard.total < 1 || shard.total > kMaxShards || shard.index < 0 ||
        shard.index >= shard.total)
      return corrupt("shard");
    t.spec.shard = shard;
  }
  t.spec.run_on = q.Text(kRunOn);
  if (!q.IsNull(kLabels) && !ReadLabels(q.Blob(kLabels), &t.spec.labels)) return corrupt("labels");
  if (!q.IsNull(kDeps) && !ReadIds(q.Text(kDeps), &t.spec.after)) return corrupt("dependencies");
  return t;
}

std::string StageSelect() {
  return "SELECT pos, name, argv, shell, timeout_ms, retries, backoff, backoff_base_ms, "
         "backoff_max_ms, jitter, retry_on_exit, no_retry_on_exit FROM task_stages "
         "WHERE task_id = $1 ORDER BY pos";
}

bool ReadStage(const Query& q, StageSpec* out) {
  StageSpec& s = *out;
  s.name = q.Text(1);
  if (!DecodeList(q.Blob(2), &s.argv)) return false;
  if (!q.IsNull(3)) s.shell = q.Blob(3);
  if (!q.IsNull(4)) s.timeout_ms = q.Int(4);
  RetryOverrides& r = s.retry;
  if (!q.IsNull(5)) r.retries = static_cast<int>(q.Int(5));
  if (!q.IsNull(6)) {
    r.backoff = BackoffFromName(q.Text(6));
    if (!r.backoff) return false;
  }
  if (!q.IsNull(7)) r.base_ms = q.Int(7);
  if (!q.IsNull(8)) r.max_ms = q.Int(8);
  if (!q.IsNull(9)) r.jitter = q.Int(9) != 0;
  for (auto [col, codes] : {std::pair{10, &r.retry_on_exit}, std::pair{11, &r.no_retry_on_exit}}) {
    if (q.IsNull(col)) continue;
    codes->emplace();
    if (!DecodeInts(q.Text(col), &**codes)) return false;
  }
  return true;
}

void BindStage(Query& q, TaskId id, size_t pos, const StageSpec& s) {
  const RetryOverrides& r = s.retry;
  q.BindInt(id).BindInt(static_cast<int64_t>(pos)).BindText(s.name);
  q.BindBlob(EncodeList(s.argv)).BindOptBlob(s.shell).BindOptInt(s.timeout_ms);
  q.BindOptInt(r.retries ? std::optional<int64_t>(*r.retries) : std::nullopt);
  q.BindOptText(r.backoff ? std::optional<std::string>(BackoffName(*r.backoff)) : std::nullopt);
  q.BindOptInt(r.base_ms).BindOptInt(r.max_ms);
  q.BindOptInt(r.jitter ? std::optional<int64_t>(*r.jitter ? 1 : 0) : std::nullopt);
  for (const auto* codes : {&r.retry_on_exit, &r.no_retry_on_exit})
    q.BindOptText(*codes ? std::optional<std::string>(EncodeInts(**codes)) : std::nullopt);
}

std::string AttemptSelect(bool last_only) {
  return std::string(
             "SELECT number, started, ended, pid, shim_pid, exit_code, signal, reason, "
             "user_cpu_us, system_cpu_us, max_rss_kb, detail, memory_peak_bytes, units, stage, "
             "host, output_cut FROM attempts WHERE task_id = $1 ") +
         (last_only ? "ORDER BY number DESC LIMIT 1" : "ORDER BY number");
}

std::string AttemptsOfTasksSelect(const std::string& in_list) {
  return "SELECT number, started, ended, pid, shim_pid, exit_code, signal, reason, "
         "user_cpu_us, system_cpu_us, max_rss_kb, detail, memory_peak_bytes, units, stage, "
         "host, output_cut, task_id FROM attempts WHERE task_id " +
         in_list + " ORDER BY task_id, number";
}

bool ReadAttempt(const Query& q, Attempt* out) {
  Attempt& a = *out;
  a.number = static_cast<int>(q.Int(0));
  a.started = q.Int(1);
  a.ended = q.Int(2);
  a.pid = static_cast<int>(q.Int(3));
  a.shim_pid = static_cast<int>(q.Int(4));
  a.exit_code = static_cast<int>(q.Int(5));
  a.signal = static_cast<int>(q.Int(6));
  std::optional<AttemptReason> reason = AttemptReasonFromName(q.Text(7));
  if (!reason) return false;
  a.reason = *reason;
  a.user_cpu_us = q.Int(8);
  a.system_cpu_us = q.Int(9);
  a.max_rss_kb = q.Int(10);
  a.detail = q.Text(11);
  a.memory_peak_bytes = q.Int(12);
  if (!q.IsNull(13)) {
    std::optional<UnitGrant> units = DecodeUnitGrant(q.Text(13));
    if (!units) return false;
    a.units = std::move(*units);
  }
  a.stage = static_cast<int>(q.Int(14));
  a.host = q.Text(15);
  a.output_cuts = DecodeOutputCuts(q.Text(16));
  return true;
}

}  // namespace tq::sql
