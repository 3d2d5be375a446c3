#include "core/proto/job_json.h"

#include "core/model/wall_time.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

json TimeOrNull(const std::optional<WallMs>& t) {
  return t ? json(FormatRfc3339Utc(*t)) : json();
}

json RetryJson(const RetryOverrides& r) {
  return {{"retries", OrNull(r.retries)},
          {"backoff", r.backoff ? json(BackoffName(*r.backoff)) : json()},
          {"backoff_base_ms", OrNull(r.base_ms)},
          {"backoff_max_ms", OrNull(r.max_ms)},
          {"jitter", OrNull(r.jitter)},
          {"retry_on_exit", OrNull(r.retry_on_exit)},
          {"no_retry_on_exit", OrNull(r.no_retry_on_exit)}};
}

}  // namespace

json JobInfoToJson(const JobInfo& info) {
  const JobDef& d = info.def;
  return {{"name", d.name},
          {"file", BytesToJson(d.file)},
          {"line", d.line},
          {"schedule", d.schedule.text},
          {"timezone", d.timezone.empty() ? json() : json(d.timezone)},
          {"dst", DstPolicyName(d.dst)},
          {"command", d.command ? BytesToJson(*d.command) : json()},
          {"shell", BytesToJson(d.shell)},
          {"argv", BytesListToJson(d.argv)},
          {"user", d.user.empty() ? json() : json(d.user)},
          {"cwd", d.cwd.empty() ? json() : BytesToJson(d.cwd)},
          {"env", BytesListToJson(d.env)},
          {"stdin", d.stdin_data ? BytesToJson(*d.stdin_data) : json()},
          {"queue", d.queue},
          {"priority", d.priority},
          {"timeout_ms", d.timeout_ms == 0 ? json() : json(d.timeout_ms)},
          {"pending_ttl_ms", d.pending_ttl_ms == 0 ? json() : json(d.pending_ttl_ms)},
          {"retry", RetryJson(d.retry)},
          {"overlap", OverlapName(d.overlap)},
          {"misfire", MisfireName(d.misfire)},
          {"max_catch_up", d.max_catch_up},
          {"max_lateness_ms", d.max_lateness_ms == 0 ? json() : json(d.max_lateness_ms)},
          {"random_delay_ms", d.random_delay_ms == 0 ? json() : json(d.random_delay_ms)},
          {"enabled", d.enabled},
          {"disabled", info.disabled},
          {"from_last_good", info.from_last_good},
          {"next", TimeOrNull(info.next)},
          {"last_fired", TimeOrNull(info.last_fired)},
          {"last_task", OrNull(info.last_task)},
          {"last_state", info.last_state ? json(StateName(*info.last_state)) : json()},
          {"last_reason",
           info.last_reason == TaskReason::kNone ? json() : json(TaskReasonName(info.last_reason))},
          {"last_exit_code", info.last_exit_code < 0 ? json() : json(info.last_exit_code)}};
}

json JobLoadErrorToJson(const JobLoadError& e) {
  return {{"file", BytesToJson(e.file)},
          {"line", e.line > 0 ? json(e.line) : json()},
          {"message", BytesToJson(e.message)}};
}

json JobLoadErrorsToJson(const std::vector<JobLoadError>& errors) {
  json out = json::array();
  for (const JobLoadError& e : errors) out.push_back(JobLoadErrorToJson(e));
  return out;
}

json ReloadReportToJson(const ReloadReport& r) {
  return {{"files", r.files},     {"jobs", r.jobs},
          {"added", r.added},     {"removed", r.removed},
          {"changed", r.changed}, {"errors", JobLoadErrorsToJson(r.errors)}};
}

}  // namespace tq
