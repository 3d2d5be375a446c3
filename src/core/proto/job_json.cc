#include "core/proto/job_json.h"

#include "core/model/wall_time.h"
#include "core/proto/response.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

// True when `s` is written in JSON as it is between quotes: printable ASCII, no quote or
// backslash.
bool PlainJsonString(std::string_view s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
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

// A job's stages: each with its name, its command (run by the job's shell) or argv, its own
// timeout and retry settings (null: the job's).
json StagesJson(const std::vector<StageSpec>& stages) {
  json out = json::array();
  for (const StageSpec& s : stages)
    out.push_back({{"name", s.name},
                   {"command", s.shell ? BytesToJson(*s.shell) : json()},
                   {"argv", BytesListToJson(s.argv)},
                   {"timeout_ms", OrNull(s.timeout_ms)},
                   {"retry", RetryJson(s.retry)}});
  return out;
}

}  // namespace

std::string JobSummaryText(const JobInfo& info) {
  const JobDef& d = info.def;
  std::string out;
  out.reserve(320);
  // Members are written straight as text: `tq jobs` lists 10,000 of these in one answer.
  auto member = [&](const char* key) {
    out += out.empty() ? "{\"" : ",\"";
    out += key;
    out += "\":";
  };
  // A string member; `as_bytes`: a string that is not UTF-8 goes as BytesToJson sends it.
  auto quoted = [&](const char* key, std::string_view v, bool as_bytes = false) {
    member(key);
    if (!PlainJsonString(v)) {
      out += WireText(as_bytes ? BytesToJson(v) : json(v));
      return;
    }
    out += '"';
    out += v;
    out += '"';
  };
  auto literal = [&](const char* key, const std::string& v) {
    member(key);
    out += v;
  };
  auto time = [&](const char* key, const std::optional<WallMs>& t) {
    if (t) return quoted(key, FormatRfc3339Utc(*t));
    literal(key, "null");
  };
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  quoted("name", d.name);
  quoted("file", d.file, /*as_bytes=*/true);
  literal("line", std::to_string(d.line));
  quoted("schedule", d.schedule.text);
  if (d.timezone.empty()) {
    literal("timezone", "null");
  } else {
    quoted("timezone", d.timezone);
  }
  literal("enabled", flag(d.enabled));
  literal("disabled", flag(info.disabled));
  literal("from_last_good", flag(info.from_last_good));
  time("next", info.next);
  time("last_fired", info.last_fired);
  literal("last_task", info.last_task ? std::to_string(*info.last_task) : "null");
  if (info.last_state) {
    quoted("last_state", StateName(*info.last_state));
  } else {
    literal("last_state", "null");
  }
  if (info.last_reason == TaskReason::kNone) {
    literal("last_reason", "null");
  } else {
    quoted("last_reason", TaskReasonName(info.last_reason));
  }
  literal("last_exit_code", info.last_exit_code < 0 ? "null" : std::to_string(info.last_exit_code));
  literal("overdue", flag(info.overdue));
  out += '}';
  return out;
}

json JobInfoToJson(const JobInfo& info) {
  const JobDef& d = info.def;
  json j = json::parse(JobSummaryText(info));
  j.update(json{{"dst", DstPolicyName(d.dst)},
                {"command", d.command ? BytesToJson(*d.command) : json()},
                {"shell", BytesToJson(d.shell)},
                {"argv", BytesListToJson(d.argv)},
                {"stages", StagesJson(d.stages)},
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
                {"shards", d.shards == 0 ? json() : json(d.shards)},
                {"max_lateness_ms", d.max_lateness_ms == 0 ? json() : json(d.max_lateness_ms)},
                {"random_delay_ms", d.random_delay_ms == 0 ? json() : json(d.random_delay_ms)},
                {"on_failure", d.notify.on_failure ? BytesToJson(*d.notify.on_failure) : json()},
                {"on_success", d.notify.on_success ? BytesToJson(*d.notify.on_success) : json()},
                {"on_finish", d.notify.on_finish ? BytesToJson(*d.notify.on_finish) : json()},
                {"mailto", d.notify.mailto.empty() ? json() : json(d.notify.mailto)},
                {"mail_on", MailOnName(d.notify.mail_on)},
                {"expect_success_within_ms",
                 d.expect_success_within_ms == 0 ? json() : json(d.expect_success_within_ms)}});
  return j;
}

json JobLoadErrorToJson(const JobLoadError& e) {
  return {{"file", BytesToJson(e.file)},
          {"line", e.line > 0 ? json(e.line) : json()},
          {"message", BytesToJson(e.message)},
          {"kept", e.kept}};
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
