#include "core/proto/submit_spec.h"

#include <optional>
#include <utility>
#include <vector>

#include "core/config/config.h"
#include "core/model/bytes.h"
#include "core/model/host_name.h"
#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/wall_time.h"

namespace tq {

namespace {

Status CheckExitCodes(const char* field, const std::optional<std::vector<int>>& codes) {
  if (!codes) return Status::Ok();
  for (int c : *codes)
    if (c < 0 || c > 255)
      return Status::Invalid(
          field, std::string(field) + ": " + std::to_string(c) + " is not an exit code (0..255)");
  return Status::Ok();
}

// A duration field within 0..kMaxDurationMs.
Status CheckDuration(const char* field, int64_t ms) {
  if (ms >= 0 && ms <= kMaxDurationMs) return Status::Ok();
  return Status::Invalid(field, std::string(field) + ": " + std::to_string(ms) +
                                    " is out of range 0.." + std::to_string(kMaxDurationMs) +
                                    " (milliseconds, up to 100 years)");
}

// A time field within 0..kMaxWallMs.
Status CheckTime(const char* field, int64_t ms) {
  if (ms >= 0 && ms <= kMaxWallMs) return Status::Ok();
  return Status::Invalid(field, std::string(field) + ": " + std::to_string(ms) +
                                    " is out of range 0.." + std::to_string(kMaxWallMs) +
                                    " (milliseconds since the epoch, 1970-01-01T00:00:00Z to " +
                                    FormatRfc3339Utc(kMaxWallMs) + ")");
}

Result<RetryOverrides> RetryFromJson(const Fields& j) {
  RetryOverrides o;
  std::optional<std::string> backoff;
  for (Status st :
       {ReadOptional(j, "retries", o.retries, "an integer 0..1000"),
        ReadOptional(j, "backoff", backoff, "fixed, exponential or progressive"),
        ReadOptional(j, "backoff_base_ms", o.base_ms, "milliseconds"),
        ReadOptional(j, "backoff_max_ms", o.max_ms, "milliseconds"),
        ReadOptional(j, "jitter", o.jitter, "true or false"),
        ReadOptional(j, "retry_on_exit", o.retry_on_exit, "an array of exit codes"),
        ReadOptional(j, "no_retry_on_exit", o.no_retry_on_exit, "an array of exit codes"),
        CheckExitCodes("retry_on_exit", o.retry_on_exit),
        CheckExitCodes("no_retry_on_exit", o.no_retry_on_exit)}) {
    if (!st.ok()) return st;
  }
  if (backoff) {
    o.backoff = BackoffFromName(*backoff);
    if (!o.backoff)
      return Status::Invalid("backoff", "backoff: " + Quote(*backoff) +
                                            " is not one of fixed, exponential, progressive");
  }
  if (o.retries && (*o.retries < 0 || *o.retries > 1000))
    return Status::Invalid("retries",
                           "retries: " + std::to_string(*o.retries) + " is out of range 0..1000");
  for (auto [name, v] :
       {std::pair{"backoff_base_ms", o.base_ms}, std::pair{"backoff_max_ms", o.max_ms}}) {
    if (v)
      if (Status st = CheckDuration(name, *v); !st.ok()) return st;
  }
  return o;
}

size_t TotalBytes(const std::vector<std::string>& v) {
  size_t n = 0;
  for (const auto& s : v) n += s.size() + 1;
  return n;
}

// One string execve(2) takes (an argument, the shell command, an environment entry) is refused
// when the kernel would refuse it: longer than MAX_ARG_STRLEN with its NUL.
Status CheckExecString(const char* field, const std::string& what, size_t bytes) {
  if (bytes + 1 <= kMaxArgStrlen) return Status::Ok();
  return Status(ErrorCode::kLimit, field,
                std::string(field) + ": " + what + " is " + SizeText(bytes) +
                    "; the kernel runs no argument or environment entry over " +
                    SizeText(kMaxArgStrlen - 1) + " (MAX_ARG_STRLEN)");
}

// What exec and the wire need of each string: no environment entry over MAX_ARG_STRLEN, and text
// fields (queue, labels, key) in UTF-8, since they travel as JSON strings.
Status CheckSpecStrings(const TaskSpec& s) {
  for (const auto& e : s.env)  // names only: values may be secrets
    if (Status st = CheckExecString("env", Quote(e.substr(0, e.find('='))), e.size()); !st.ok())
      return st;
  std::vector<std::pair<const char*, const std::string*>> text = {{"queue", &s.queue}};
  for (const auto& l : s.labels) text.emplace_back("label", &l);
  if (s.key) text.emplace_back("key", &*s.key);
  for (auto [field, value] : text)
    if (!IsValidUtf8(*value))
      return Status::Invalid(field, std::string(field) + ": " + Quote(*value) +
                                        " is not valid UTF-8 (names, labels and keys are text)");
  return Status::Ok();
}

// Member "mail_on" into `out` (left as it is when absent).
Status ReadMailOn(const Fields& j, MailOn& out) {
  std::optional<std::string> name;
  Status st = ReadOptional(j, "mail_on", name, "\"failure\", \"always\" or \"output\"");
  if (!st.ok() || !name) return st;
  auto m = MailOnFromName(*name);
  if (!m)
    return Status::Invalid("mail_on",
                           "mail_on: " + Quote(*name) + " is not one of failure, always, output");
  out = *m;
  return Status::Ok();
}

// Member "use" (SPEC 14), an object of resource names and unit counts, into `out`.
Status ReadUse(const Fields& j, UnitRequest& out) {
  const nlohmann::json* v = j.Find("use");
  if (v == nullptr || v->is_null()) return Status::Ok();
  const char* what = "use: an object of resource names and counts, e.g. {\"gpu\": 2}";
  if (!v->is_object()) return Status::Invalid("use", what);
  if (v->size() > static_cast<size_t>(kMaxResources))
    return Status::Invalid("use", "use: " + std::to_string(v->size()) +
                                      " resources exceed the limit of " +
                                      std::to_string(kMaxResources));
  for (const auto& [name, count] : v->items()) {
    if (!ValidResourceName(name))
      return Status::Invalid(
          "use", "use: " + Quote(name) + " is not a resource name (" + kResourceNameHelp + ")");
    int n = 0;
    if (!Convert(count, n) || n < 1 || n > kMaxUnitsPerResource)
      return Status::Invalid("use", "use: " + name + "=" + count.dump() +
                                        " is not a count of units (use 1 to " +
                                        std::to_string(kMaxUnitsPerResource) + ")");
    out[name] = n;
  }
  return Status::Ok();
}

// The hooks and mail of SPEC 7a: commands within their limit, addresses that are addresses.
Status CheckNotify(const NotifySpec& n) {
  for (auto [field, hook] :
       {std::pair{"on_failure", &n.on_failure}, std::pair{"on_success", &n.on_success},
        std::pair{"on_finish", &n.on_finish}})
    if (*hook)
      if (Status st = CheckHook(field, **hook); !st.ok()) return st;
  return CheckMailto("mailto", n.mailto);
}

// The limits of one command (a task's or a stage's): argv or a shell command, within the limits.
Status CheckCommand(const std::vector<std::string>& argv, const std::optional<std::string>& shell) {
  if (argv.empty() && !shell)
    return Status::Invalid("argv", "argv: a command is required (argv after --, or --shell)");
  if (!argv.empty() && shell)
    return Status::Invalid("shell", "shell: give either argv or a shell command, not both");
  if (argv.size() > kMaxArgvCount)
    return Status(ErrorCode::kLimit, "argv",
                  "argv: " + std::to_string(argv.size()) + " arguments exceed the limit of " +
                      std::to_string(kMaxArgvCount));
  if (TotalBytes(argv) + (shell ? shell->size() : 0) > kMaxArgvBytes)
    return Status(ErrorCode::kLimit, "argv",
                  "argv: the command exceeds the limit of " + SizeText(kMaxArgvBytes));
  if (shell && shell->find('\0') != std::string::npos)
    return Status::Invalid("shell", "shell: the command contains a NUL byte");
  if (!argv.empty() && argv[0].empty())
    return Status::Invalid("argv", "argv: the program name (the first argument) is empty");
  for (size_t i = 0; i < argv.size(); ++i)
    if (Status st = CheckExecString("argv", "argument " + std::to_string(i + 1), argv[i].size());
        !st.ok())
      return st;
  if (shell)
    if (Status st = CheckExecString("shell", "the command", shell->size()); !st.ok()) return st;
  return Status::Ok();
}

// `st`, a refusal of a field of stage `index`, as a refusal of field "stages" that says which.
Status InStage(size_t index, const std::string& name, const Status& st) {
  const std::string which =
      "stages[" + std::to_string(index) + "]" + (name.empty() ? "" : " (" + name + ")");
  return Status(st.code(), "stages", which + ": " + st.message());
}

// The stages of SPEC 13 (ReadStages counted them): each with a unique name and a command of its
// own, and no command of the task's own beside them.
Status CheckStages(const TaskSpec& s) {
  if (s.stages.empty()) return Status::Ok();
  if (!s.argv.empty() || s.shell)
    return Status::Invalid("stages",
                           "stages: a task with stages runs its stages' commands; give no argv or "
                           "shell of the task's own");
  size_t total = 0;
  for (size_t i = 0; i < s.stages.size(); ++i) {
    const StageSpec& stage = s.stages[i];
    if (!ValidStageName(stage.name))
      return Status::Invalid("stages", "stages[" + std::to_string(i) + "]: name " +
                                           Quote(stage.name) + " is not a stage name (" +
                                           kStageNameHelp + ")");
    for (size_t j = 0; j < i; ++j)
      if (s.stages[j].name == stage.name)
        return Status::Invalid("stages", "stages[" + std::to_string(i) + "]: name " +
                                             Quote(stage.name) + " is taken by stages[" +
                                             std::to_string(j) + "] (names are unique in a task)");
    if (Status st = CheckCommand(stage.argv, stage.shell); !st.ok())
      return InStage(i, stage.name, st);
    if (stage.timeout_ms)
      if (Status st = CheckDuration("timeout_ms", *stage.timeout_ms); !st.ok())
        return InStage(i, stage.name, st);
    total += TotalBytes(stage.argv) + (stage.shell ? stage.shell->size() : 0);
  }
  if (total > kMaxArgvBytes)
    return Status(
        ErrorCode::kLimit, "stages",
        "stages: the stages' commands together exceed the limit of " + SizeText(kMaxArgvBytes));
  return Status::Ok();
}

// Checks a decoded spec against the rules of SPEC 2 and the limits.
Status ValidateSpec(const TaskSpec& s) {
  if (Status st = CheckSpecStrings(s); !st.ok()) return st;
  if (s.stages.empty()) {
    if (Status st = CheckCommand(s.argv, s.shell); !st.ok()) return st;
  } else if (Status st = CheckStages(s); !st.ok()) {
    return st;
  }
  if (TotalBytes(s.env) > kMaxEnvBytes)
    return Status(ErrorCode::kLimit, "env",
                  "env: the environment exceeds the limit of " + SizeText(kMaxEnvBytes));
  if (s.stdin_data && s.stdin_data->size() > kMaxStdinBytes)
    return Status(ErrorCode::kLimit, "stdin",
                  "stdin: a payload of " + SizeText(s.stdin_data->size()) +
                      " exceeds the limit of " + SizeText(kMaxStdinBytes));
  if (s.cwd.size() > kMaxCwdBytes)
    return Status(ErrorCode::kLimit, "cwd",
                  "cwd: a directory name of " + SizeText(s.cwd.size()) + " exceeds the limit of " +
                      SizeText(kMaxCwdBytes));
  if (s.priority < kMinPriority || s.priority > kMaxPriority)
    return Status::Invalid("priority", "priority: " + std::to_string(s.priority) +
                                           " is out of range 1..5 (1 is highest)");
  if (!ValidQueueRef(s.queue)) return QueueRefRefused("queue", s.queue);
  if (!s.run_on.empty())
    if (Status st = CheckHostName("host", s.run_on); !st.ok()) return st;
  if (s.labels.size() > kMaxLabels)
    return Status(ErrorCode::kLimit, "label",
                  "label: " + std::to_string(s.labels.size()) + " labels exceed the limit of " +
                      std::to_string(kMaxLabels));
  for (const auto& l : s.labels) {
    if (l.empty() || l.size() > kMaxLabelBytes)
      return Status::Invalid("label", "label: " + Quote(l) + " must be 1.." +
                                          std::to_string(kMaxLabelBytes) + " bytes");
    // The scheduler marks each run of a cron job so; a user's task so labelled would pass for one.
    if (l.starts_with(kJobLabelPrefix))
      return Status::Invalid("label", "label: " + Quote(l) + ": labels that begin with \"" +
                                          kJobLabelPrefix +
                                          "\" are the scheduler's, the runs of cron jobs (tq "
                                          "list --label job:NAME finds them); choose another");
  }
  for (Status st : {CheckDuration("timeout_ms", s.timeout_ms),
                    CheckDuration("pending_ttl_ms", s.pending_ttl_ms),
                    CheckTime("not_before_ms", s.not_before)}) {
    if (!st.ok()) return st;
  }
  if (s.key && (s.key->empty() || s.key->size() > kMaxLabelBytes))
    return Status::Invalid("key", "key: must be 1.." + std::to_string(kMaxLabelBytes) + " bytes");
  for (TaskId id : s.after)
    if (id <= 0)
      return Status::Invalid("after", "after: " + std::to_string(id) + " is not a task id");
  return CheckNotify(s.notify);
}

// The fields a stage's wire object may have.
constexpr const char* kStageFields[] = {
    "name",
    "argv",
    "shell",
    "timeout_ms",
    "retries",
    "backoff",
    "backoff_base_ms",
    "backoff_max_ms",
    "jitter",
    "retry_on_exit",
    "no_retry_on_exit",
};

// One element of member "stages": a stage's name, command and own settings.
Result<StageSpec> StageFromJson(const nlohmann::json& v) {
  if (!v.is_object())
    return Status::Invalid("stages",
                           "expected an object with name and argv or shell, got " + Shown(v));
  for (const auto& [key, value] : v.items()) {
    bool known = false;
    for (const char* field : kStageFields) known = known || key == field;
    if (!known)
      return Status::Invalid("stages", Quote(key) +
                                           " is not a field of a stage (name, argv, "
                                           "shell, timeout_ms and the retry settings)");
  }
  const Fields f(v);
  StageSpec stage;
  if (Status st = Read(f, "name", stage.name, "a string"); !st.ok()) return st;
  auto argv = ReadBytesList(f, "argv");
  if (!argv.ok()) return argv.status();
  stage.argv = std::move(*argv);
  for (Status st : {ReadOptionalBytes(f, "shell", stage.shell),
                    ReadOptional(f, "timeout_ms", stage.timeout_ms, "milliseconds")}) {
    if (!st.ok()) return st;
  }
  auto retry = RetryFromJson(f);
  if (!retry.ok()) return retry.status();
  stage.retry = std::move(*retry);
  return stage;
}

// Member "stages" (SPEC 13) into `out`.
Status ReadStages(const Fields& j, std::vector<StageSpec>& out) {
  const nlohmann::json* v = j.Find("stages");
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!v->is_array())
    return Status::Invalid("stages", "stages: expected an array of stages, got " + Shown(*v));
  if (v->size() > kMaxStages)
    return Status(ErrorCode::kLimit, "stages",
                  "stages: " + std::to_string(v->size()) + " stages exceed the limit of " +
                      std::to_string(kMaxStages));
  for (size_t i = 0; i < v->size(); ++i) {
    auto stage = StageFromJson((*v)[i]);
    if (!stage.ok()) return InStage(i, "", stage.status());
    out.push_back(std::move(*stage));
  }
  return Status::Ok();
}

Result<TaskSpec> SpecFromJson(const Fields& j) {
  TaskSpec s;
  auto argv = ReadBytesList(j, "argv");
  if (!argv.ok()) return argv.status();
  s.argv = std::move(*argv);
  auto env = ReadBytesList(j, "env");
  if (!env.ok()) return env.status();
  s.env = std::move(*env);
  std::optional<std::string> cwd;
  for (Status st : {ReadOptionalBytes(j, "shell", s.shell),
                    ReadOptionalBytes(j, "stdin", s.stdin_data),
                    ReadOptionalBytes(j, "cwd", cwd),
                    Read(j, "queue", s.queue, "a string"),
                    Read(j, "priority", s.priority, "an integer 1..5"),
                    Read(j, "clean_env", s.clean_env, "true or false"),
                    Read(j, "not_before_ms", s.not_before, "milliseconds since the epoch"),
                    Read(j, "after", s.after, "an array of task ids"),
                    Read(j, "labels", s.labels, "an array of strings"),
                    Read(j, "timeout_ms", s.timeout_ms, "milliseconds"),
                    ReadOptional(j, "key", s.key, "a string"),
                    Read(j, "version", s.version, "an integer"),
                    Read(j, "pending_ttl_ms", s.pending_ttl_ms, "milliseconds"),
                    Read(j, "keep_background", s.keep_background, "true or false"),
                    ReadOptionalBytes(j, "on_failure", s.notify.on_failure),
                    ReadOptionalBytes(j, "on_success", s.notify.on_success),
                    ReadOptionalBytes(j, "on_finish", s.notify.on_finish),
                    Read(j, "mailto", s.notify.mailto, "a string"),
                    ReadMailOn(j, s.notify.mail_on),
                    ReadUse(j, s.use),
                    ReadStages(j, s.stages),
                    Read(j, "host", s.run_on, "a host name")}) {
    if (!st.ok()) return st;
  }
  if (cwd) s.cwd = *cwd;
  Status valid = ValidateSpec(s);
  if (!valid.ok()) return valid;
  return s;
}

}  // namespace

Result<SubmitRequest> SubmitFromJson(const Fields& j) {
  auto spec = SpecFromJson(j);
  if (!spec.ok()) return spec.status();
  auto retry = RetryFromJson(j);
  if (!retry.ok()) return retry.status();
  SubmitRequest r{std::move(*spec), std::move(*retry), false, 0};
  Status st = Read(j, "supersede_running", r.supersede_running, "true or false");
  if (!st.ok()) return st;
  std::optional<int64_t> shards;
  if (st = ReadOptional(j, "shards", shards, "an integer 1..1000"); !st.ok()) return st;
  if (shards) {
    if (st = CheckShardCount("shards", *shards); !st.ok()) return st;
    if (r.spec.key)
      return Status::Invalid(
          "shards", "shards: sharded work cannot carry a key (key " + Quote(*r.spec.key) + ")");
    r.shards = static_cast<int>(*shards);
    // Each shard stores its own copy of the command and stdin: as much as a batch may bring.
    const size_t total = SubmitPayloadBytes(r) * static_cast<size_t>(r.shards);
    if (total > kMaxBatchBytes)
      return Status(ErrorCode::kLimit, "shards",
                    "shards: " + std::to_string(r.shards) + " shards of " +
                        SizeText(SubmitPayloadBytes(r)) + " each (command, environment and " +
                        "stdin) come to " + SizeText(total) + ", over the limit of " +
                        SizeText(kMaxBatchBytes) + " per request");
  }
  return r;
}

Status CheckSubmit(const SubmitRequest& request) {
  auto decoded = SubmitFromJson(SubmitToJson(request));
  return decoded.ok() ? Status::Ok() : decoded.status();
}

size_t SubmitPayloadBytes(const SubmitRequest& r) {
  const TaskSpec& s = r.spec;
  size_t n = TotalBytes(s.argv) + TotalBytes(s.env) + (s.shell ? s.shell->size() : 0) +
             (s.stdin_data ? s.stdin_data->size() : 0);
  for (const StageSpec& stage : s.stages)
    n += TotalBytes(stage.argv) + (stage.shell ? stage.shell->size() : 0);
  return n;
}

std::string SizeText(size_t n) {
  return std::to_string(n) + " bytes";
}

}  // namespace tq
