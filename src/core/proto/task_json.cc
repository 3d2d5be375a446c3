#include "core/proto/task_json.h"

#include "core/model/limits.h"
#include "core/model/stage_progress.h"
#include "core/model/wall_time.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

json TimeOrNull(WallMs t) {
  return t == 0 ? json() : json(FormatRfc3339Utc(t));
}

// The stages of `t` as its JSON carries them (SPEC 13): each one's command, own settings, state
// and how many of the attempts the store holds ran it.
json StagesJson(const Task& t) {
  json stages = json::array();
  for (size_t i = 0; i < t.spec.stages.size(); ++i) {
    const StageSpec& s = t.spec.stages[i];
    int attempts = 0;
    int exit_code = -1;
    for (const Attempt& a : t.attempts)
      if (a.stage == static_cast<int>(i)) {
        ++attempts;
        exit_code = a.exit_code;
      }
    const RetryPolicy retry = StageRetry(t.spec, static_cast<int>(i));
    const int64_t timeout = StageTimeout(t.spec, static_cast<int>(i));
    stages.push_back({{"index", i},
                      {"name", s.name},
                      {"state", StageStateName(StageStateOf(t, i))},
                      {"argv", s.shell ? json() : BytesListToJson(s.argv)},
                      {"shell", s.shell ? BytesToJson(*s.shell) : json()},
                      {"timeout_ms", timeout == 0 ? json() : json(timeout)},
                      {"retries", retry.retries},
                      {"backoff", BackoffName(retry.backoff)},
                      {"attempts", attempts},
                      {"exit_code", exit_code < 0 ? json() : json(exit_code)}});
  }
  return stages;
}

// The streams an attempt's supervisor could not write all of: where and why each was cut; null
// when none was.
json OutputCutsJson(const std::vector<OutputCut>& cuts) {
  if (cuts.empty()) return json();
  json out = json::array();
  for (const OutputCut& cut : cuts)
    out.push_back({{"stream", cut.stderr_stream ? "stderr" : "stdout"},
                   {"at", cut.at},
                   {"reason", cut.reason}});
  return out;
}

}  // namespace

json TaskToJson(const Task& t) {
  json attempts = json::array();
  const size_t first = t.attempts.size() > kMaxAttemptLog ? t.attempts.size() - kMaxAttemptLog : 0;
  for (size_t i = first; i < t.attempts.size(); ++i) {
    const Attempt& a = t.attempts[i];
    json ja{
        {"number", a.number},
        {"started", TimeOrNull(a.started)},
        {"ended", TimeOrNull(a.ended)},
        {"pid", a.pid},
        {"exit_code", a.exit_code < 0 ? json() : json(a.exit_code)},
        {"signal", a.signal == 0 ? json() : json(a.signal)},
        {"reason", a.reason == AttemptReason::kNone ? json() : json(AttemptReasonName(a.reason))},
        {"duration_ms", a.ended ? json(a.ended - a.started) : json()},
        {"user_cpu_ms", a.user_cpu_us / 1000},
        {"system_cpu_ms", a.system_cpu_us / 1000},
        {"max_rss_kb", a.max_rss_kb},
        {"memory_peak_bytes", a.memory_peak_bytes},
        {"detail", a.detail.empty() ? json() : json(a.detail)},
        {"units", a.units.empty() ? json() : json(a.units)},
        {"host", a.host.empty() ? json() : json(a.host)},
        {"output_cut", OutputCutsJson(a.output_cuts)}};
    if (!t.spec.stages.empty()) ja["stage"] = StageName(t.spec, a.stage);
    attempts.push_back(std::move(ja));
  }
  json j{{"id", t.id},
         {"state", StateName(t.state)},
         {"reason", t.reason == TaskReason::kNone ? json() : json(TaskReasonName(t.reason))},
         {"exit_code", t.exit_code < 0 ? json() : json(t.exit_code)},
         {"signal", t.signal == 0 ? json() : json(t.signal)},
         {"priority", t.spec.priority},
         {"queue", t.spec.queue},
         {"run_on", t.spec.run_on.empty() ? json() : json(t.spec.run_on)},
         {"held", t.on_hold},
         {"attempts", t.attempt_count},
         {"owner", {{"uid", t.owner.uid}, {"gid", t.owner.gid}, {"name", t.owner.name}}},
         {"argv", BytesListToJson(t.spec.argv)},
         {"shell", t.spec.shell ? BytesToJson(*t.spec.shell) : json()},
         {"cwd", BytesToJson(t.spec.cwd)},
         {"labels", t.spec.labels},
         {"job", t.spec.job ? json(*t.spec.job) : json()},
         {"after", t.spec.after},
         {"created", TimeOrNull(t.created)},
         {"not_before", TimeOrNull(t.spec.not_before)},
         {"finished", TimeOrNull(t.finished)},
         {"timeout_ms", t.spec.timeout_ms == 0 ? json() : json(t.spec.timeout_ms)},
         {"pending_ttl_ms", t.spec.pending_ttl_ms == 0 ? json() : json(t.spec.pending_ttl_ms)},
         {"keep_background", t.spec.keep_background},
         {"key", t.spec.key ? json(*t.spec.key) : json()},
         {"version", t.spec.version},
         {"retry",
          {{"retries", t.spec.retry.retries},
           {"backoff", BackoffName(t.spec.retry.backoff)},
           {"backoff_base_ms", t.spec.retry.base_ms},
           {"backoff_max_ms", t.spec.retry.max_ms},
           {"jitter", t.spec.retry.jitter},
           {"retry_on_exit", t.spec.retry.retry_on_exit},
           {"no_retry_on_exit", t.spec.retry.no_retry_on_exit}}},
         {"attempt_log", std::move(attempts)}};
  const NotifySpec& n = t.spec.notify;
  for (const auto& [name, hook] :
       {std::pair{"on_failure", &n.on_failure}, std::pair{"on_success", &n.on_success},
        std::pair{"on_finish", &n.on_finish}})
    j[name] = *hook ? BytesToJson(**hook) : json();
  j["mailto"] = n.mailto.empty() ? json() : json(n.mailto);
  j["mail_on"] = MailOnName(n.mail_on);
  j["use"] = t.spec.use.empty() ? json() : json(t.spec.use);
  if (!t.spec.stages.empty()) {
    j["stage"] = {{"index", t.stage}, {"name", StageName(t.spec, t.stage)}};
    j["stages"] = StagesJson(t);
  }
  if (t.spec.shard) {
    const ShardOf& shard = *t.spec.shard;
    j["shard"] = {{"group", shard.group}, {"index", shard.index}, {"total", shard.total}};
  }
  return j;
}

json TaskSummaryJson(const Task& t) {
  json j{{"id", t.id},
         {"state", StateName(t.state)},
         {"reason", t.reason == TaskReason::kNone ? json() : json(TaskReasonName(t.reason))},
         {"exit_code", t.exit_code < 0 ? json() : json(t.exit_code)},
         {"signal", t.signal == 0 ? json() : json(t.signal)}};
  if (!t.spec.stages.empty())
    j["stage"] = {{"index", t.stage}, {"name", StageName(t.spec, t.stage)}};
  return j;
}

}  // namespace tq
