#include "cli/job_render.h"

#include "cli/render.h"
#include "cli/state_colour.h"
#include "core/model/duration.h"
#include "core/model/wall_time.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

// A string member, "" when it is absent or not a string.
std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A byte-string member (plain or {"b64"}), shell-quoted when it needs it; "-" when absent.
std::string Shown(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "-";
  auto bytes = BytesFromJson(*it, key);
  return bytes.ok() ? ShellQuote(*bytes) : "?";
}

// A list of byte strings, each shell-quoted, space-separated; "-" when empty.
std::string ShownList(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->empty()) return "-";
  std::string out;
  for (const json& v : *it) {
    auto bytes = BytesFromJson(v, key);
    out += (out.empty() ? "" : " ") + (bytes.ok() ? ShellQuote(*bytes) : std::string("?"));
  }
  return out;
}

// A duration member in ms as "1h30m"; `none` when null.
std::string Duration(const json& j, const char* key, const char* none) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? FormatDuration(it->get<int64_t>()) : none;
}

// A member as written in JSON ("3", "true", "[1,2]"); `none` when null or absent.
std::string Dumped(const json& j, const char* key, const char* none) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? none : it->dump();
}

// The retry settings a job or a stage gives, "" when it gives none.
std::string RetryParts(const json& retry) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (retry.value("retries", json()).is_number()) add(retry["retries"].dump() + " retries");
  if (retry.value("backoff", json()).is_string())
    add(retry["backoff"].get<std::string>() + " backoff");
  if (retry.value("backoff_base_ms", json()).is_number())
    add("base " + FormatDuration(retry["backoff_base_ms"].get<int64_t>()));
  if (retry.value("backoff_max_ms", json()).is_number())
    add("max " + FormatDuration(retry["backoff_max_ms"].get<int64_t>()));
  if (retry.value("jitter", json()).is_boolean())
    add(retry["jitter"].get<bool>() ? "jitter" : "no jitter");
  if (retry.value("retry_on_exit", json()).is_array())
    add("retry on exit " + retry["retry_on_exit"].dump());
  if (retry.value("no_retry_on_exit", json()).is_array())
    add("no retry on exit " + retry["no_retry_on_exit"].dump());
  return out;
}

// The retry row of a job: the settings it gives, else that the queue's defaults apply.
std::string RetryText(const json& retry) {
  if (!retry.is_object()) return "-";
  const std::string parts = RetryParts(retry);
  return parts.empty() ? "the queue's defaults" : parts;
}

// A stage of a job as `tq jobs show` lists it: "NAME: COMMAND", the command run by the job's
// shell or the argv, then its own timeout and retry settings in parentheses, if it has any.
std::string StageText(const json& stage) {
  std::string out = Str(stage, "name") + ": " +
                    (stage.value("command", json()).is_null() ? ShownList(stage, "argv")
                                                              : Shown(stage, "command"));
  std::string own = Duration(stage, "timeout_ms", "");
  if (!own.empty()) own = "timeout " + own;
  const json retry = stage.value("retry", json());
  const std::string retries = retry.is_object() ? RetryParts(retry) : "";
  if (!retries.empty()) own += (own.empty() ? "" : ", ") + retries;
  return own.empty() ? out : out + " (" + own + ")";
}

}  // namespace

std::string RelativeTime(WallMs t, WallMs now) {
  const int64_t delta = t - now;
  const int64_t s = (delta < 0 ? -delta : delta) / 1000;
  if (s == 0) return "now";
  std::string amount;
  if (s < 60) {
    amount = std::to_string(s) + "s";
  } else if (s < 3600) {
    amount = std::to_string(s / 60) + "m";
  } else if (s < 86400) {  // hours and minutes: "in 1h" for 1h41m read as an hour away
    amount = std::to_string(s / 3600) + "h";
    if (s % 3600 >= 60) amount += std::to_string(s % 3600 / 60) + "m";
  } else {
    amount = std::to_string(s / 86400) + "d";
    if (s % 86400 >= 3600) amount += std::to_string(s % 86400 / 3600) + "h";
  }
  return delta > 0 ? "in " + amount : amount + " ago";
}

std::string JobTime(const std::string& t, WallMs now) {
  if (t.empty()) return "-";
  auto ms = ParseRfc3339(t);
  if (!ms.ok()) return t;
  return FormatLocal(*ms, now) + " (" + RelativeTime(*ms, now) + ")";
}

std::string LastResult(const std::string& state, const std::string& reason,
                       std::optional<int64_t> exit_code) {
  if (state.empty()) return "-";
  if (state == "succeeded" || state == "pending" || state == "running") return state;
  if (exit_code && (reason.empty() || reason == "exit"))
    return state + " (exit " + std::to_string(*exit_code) + ")";
  return reason.empty() ? state : state + " (" + reason + ")";
}

std::string LastResult(const json& job) {
  const json code = job.value("last_exit_code", json());
  return LastResult(
      Str(job, "last_state"), Str(job, "last_reason"),
      code.is_number_integer() ? std::optional<int64_t>(code.get<int64_t>()) : std::nullopt);
}

// The RESULT shown for a job: its latest run's `result`, led by "overdue" when its dead man's
// switch has fired.
std::string ResultText(const std::string& result, bool overdue) {
  return overdue ? "overdue, last " + result : result;
}

namespace {

// When a job fires next: its next time, or for an @reboot job, which has none, at the next boot.
std::string NextText(const std::string& schedule, const std::string& next, WallMs now) {
  if (next.empty() && schedule == "@reboot") return "at the next boot";
  return JobTime(next, now);
}

}  // namespace

std::vector<std::vector<std::string>> JobRows(const std::vector<JobRow>& jobs, WallMs now,
                                              bool colour) {
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "SCHEDULE", "ZONE", "NEXT", "LAST", "RESULT"}};
  rows.reserve(jobs.size() + 1);
  for (const JobRow& j : jobs) {
    rows.push_back({j.name + (j.from_last_good ? "*" : ""), j.schedule,
                    j.timezone.empty() ? "local" : j.timezone,
                    j.disabled || !j.enabled ? "disabled" : NextText(j.schedule, j.next, now),
                    JobTime(j.last_fired, now),
                    PaintState(ResultText(LastResult(j.last_state, j.last_reason, j.last_exit_code),
                                          j.overdue),
                               colour)});
  }
  return rows;
}

std::vector<std::vector<std::string>> JobShowRows(const json& j, WallMs now, bool colour) {
  const std::string zone = Str(j, "timezone");
  std::string state = "enabled";
  if (j.value("disabled", false)) state = "disabled (tq jobs disable)";
  if (!j.value("enabled", true)) state = "disabled (enabled = false in its file)";
  std::string where = Shown(j, "file") + ":" + Dumped(j, "line", "?");
  if (j.value("from_last_good", false))
    where += " (its file failed to load: this is its last good definition)";
  std::vector<std::vector<std::string>> rows = {
      {"name", Str(j, "name")},
      {"file", where},
      {"state", state},
      {"schedule", Str(j, "schedule")},
      {"timezone", zone.empty() ? "local" : zone},
      {"dst", Str(j, "dst")},
      {"next", NextText(Str(j, "schedule"), Str(j, "next"), now)},
      {"last fired", JobTime(Str(j, "last_fired"), now)},
      {"last task", Dumped(j, "last_task", "-") + (j.value("last_host", json()).is_string()
                                                       ? " (on host " + Str(j, "last_host") + ")"
                                                       : "")},
      {"last result", PaintState(ResultText(LastResult(j), j.value("overdue", false)), colour)},
  };
  const json stages = j.value("stages", json::array());
  if (stages.is_array() && !stages.empty()) {
    rows.push_back({"shell", Shown(j, "shell") + " (runs the stages' commands)"});
    for (size_t i = 0; i < stages.size(); ++i)
      rows.push_back({"stage " + std::to_string(i + 1), StageText(stages[i])});
  } else if (j.value("command", json()).is_null()) {
    rows.push_back({"argv", ShownList(j, "argv")});
  } else {
    rows.push_back({"command", Shown(j, "command")});
    rows.push_back({"shell", Shown(j, "shell")});
  }
  rows.push_back({"user", j.value("user", json()).is_string() ? Str(j, "user") : "(the daemon's)"});
  rows.push_back({"cwd", j.value("cwd", json()).is_null() ? "(home)" : Shown(j, "cwd")});
  rows.push_back({"env", ShownList(j, "env")});
  rows.push_back({"stdin", j.value("stdin", json()).is_null() ? "/dev/null" : Shown(j, "stdin")});
  rows.push_back({"queue", Str(j, "queue") + ", priority " + Dumped(j, "priority", "?")});
  rows.push_back({"timeout", Duration(j, "timeout_ms", "none")});
  rows.push_back({"pending ttl", Duration(j, "pending_ttl_ms", "none")});
  rows.push_back({"retry", RetryText(j.value("retry", json()))});
  if (j.value("shards", json()).is_number_integer())
    rows.push_back({"shards", Dumped(j, "shards", "?") + " per run (TQ_SHARD_INDEX 0.." +
                                  std::to_string(j["shards"].get<int64_t>() - 1) + ")"});
  rows.push_back({"overlap", Str(j, "overlap")});
  std::string misfire = Str(j, "misfire");
  if (misfire == "run_all") misfire += ", at most " + Dumped(j, "max_catch_up", "?");
  rows.push_back({"misfire", misfire});
  rows.push_back({"max lateness", Duration(j, "max_lateness_ms", "none")});
  rows.push_back({"random delay", Duration(j, "random_delay_ms", "none")});
  for (const char* hook : {"on_failure", "on_success", "on_finish"})
    if (!j.value(hook, json()).is_null()) rows.push_back({hook, Shown(j, hook)});
  if (j.value("mailto", json()).is_string())
    rows.push_back({"mailto", Str(j, "mailto") + " (on " + Str(j, "mail_on") + ")"});
  rows.push_back({"expect success within", Duration(j, "expect_success_within_ms", "no alert")});
  return rows;
}

std::vector<std::string> LoadErrorLines(const json& answer) {
  std::vector<std::string> lines;
  for (const json& e : answer.value("errors", json::array())) {
    auto message = BytesFromJson(e.value("message", json()), "message");
    // Only a file that loaded before has jobs that stay; a new one has none in force.
    lines.push_back((message.ok() ? *message : "?") + (e.value("kept", false)
                                                           ? " (its last good jobs stay in force)"
                                                           : " (none of its jobs are in force)"));
  }
  const json left_out = answer.value("errors_left_out", json());
  if (left_out.is_number_integer() && left_out.get<int64_t>() > 0)
    lines.push_back("(" + left_out.dump() + " more files failed to load)");
  return lines;
}

}  // namespace tq
