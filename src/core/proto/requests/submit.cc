#include "core/proto/requests/submit.h"

#include <sstream>

#include "core/proto/submit_spec.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

// The retry settings `o` sets, as members of `j`.
void RetryToJson(const RetryOverrides& o, json& j) {
  if (o.retries) j["retries"] = *o.retries;
  if (o.backoff) j["backoff"] = BackoffName(*o.backoff);
  if (o.base_ms) j["backoff_base_ms"] = *o.base_ms;
  if (o.max_ms) j["backoff_max_ms"] = *o.max_ms;
  if (o.jitter) j["jitter"] = *o.jitter;
  if (o.retry_on_exit) j["retry_on_exit"] = *o.retry_on_exit;
  if (o.no_retry_on_exit) j["no_retry_on_exit"] = *o.no_retry_on_exit;
}

// The wire form of a task's stages (SPEC 13).
json StagesToJson(const std::vector<StageSpec>& stages) {
  json out = json::array();
  for (const StageSpec& stage : stages) {
    json j{{"name", stage.name}};
    if (stage.shell) {
      j["shell"] = BytesToJson(*stage.shell);
    } else {
      j["argv"] = BytesListToJson(stage.argv);
    }
    if (stage.timeout_ms) j["timeout_ms"] = *stage.timeout_ms;
    RetryToJson(stage.retry, j);
    out.push_back(std::move(j));
  }
  return out;
}

json SpecToJson(const TaskSpec& s) {
  json j{{"argv", BytesListToJson(s.argv)},
         {"queue", s.queue},
         {"priority", s.priority},
         {"cwd", BytesToJson(s.cwd)},
         {"env", BytesListToJson(s.env)},
         {"clean_env", s.clean_env},
         {"not_before_ms", s.not_before},
         {"after", s.after},
         {"labels", s.labels},
         {"timeout_ms", s.timeout_ms}};
  if (s.shell) j["shell"] = BytesToJson(*s.shell);
  if (s.stdin_data) j["stdin"] = BytesToJson(*s.stdin_data);
  if (s.key) j["key"] = *s.key;
  if (s.version != 0) j["version"] = s.version;
  if (s.pending_ttl_ms != 0) j["pending_ttl_ms"] = s.pending_ttl_ms;
  if (s.keep_background) j["keep_background"] = true;
  if (s.notify.on_failure) j["on_failure"] = BytesToJson(*s.notify.on_failure);
  if (s.notify.on_success) j["on_success"] = BytesToJson(*s.notify.on_success);
  if (s.notify.on_finish) j["on_finish"] = BytesToJson(*s.notify.on_finish);
  if (!s.notify.mailto.empty()) j["mailto"] = s.notify.mailto;
  if (s.notify.mail_on != MailOn::kFailure) j["mail_on"] = MailOnName(s.notify.mail_on);
  if (!s.use.empty()) j["use"] = s.use;
  if (!s.stages.empty()) j["stages"] = StagesToJson(s.stages);
  if (!s.run_on.empty()) j["host"] = s.run_on;
  return j;
}

}  // namespace

Result<SubmitRequest> DecodeSubmit(const json& j) {
  return SubmitFromJson(j);
}

json SubmitToJson(const SubmitRequest& r) {
  json j = SpecToJson(r.spec);
  RetryToJson(r.retry, j);
  if (r.supersede_running) j["supersede_running"] = true;
  if (r.shards != 0) j["shards"] = r.shards;
  return j;
}

const std::vector<std::string>& SubmitFields() {
  static const std::vector<std::string> fields = [] {
    // The keys SubmitToJson writes.
    std::istringstream in(
        "argv shell stdin cwd env queue priority clean_env not_before_ms after labels timeout_ms"
        " key version pending_ttl_ms retries backoff backoff_base_ms backoff_max_ms jitter"
        " retry_on_exit no_retry_on_exit supersede_running keep_background on_failure on_success"
        " on_finish mailto mail_on use stages shards host");
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
  }();
  return fields;
}

}  // namespace tq
