#include "core/protocol.h"

#include <sstream>

#include "core/bytes.h"
#include "core/config.h"
#include "core/limits.h"
#include "core/quote.h"
#include "core/wall_time.h"

namespace tq {

using nlohmann::json;

namespace {

// The wire name of a request type.
const char* TypeName(const Request& r) {
  struct Visitor {
    const char* operator()(const SubmitRequest&) { return "submit"; }
    const char* operator()(const StatusRequest&) { return "status"; }
    const char* operator()(const ListRequest&) { return "list"; }
    const char* operator()(const WaitRequest&) { return "wait"; }
    const char* operator()(const CancelRequest&) { return "cancel"; }
    const char* operator()(const LogsRequest&) { return "logs"; }
    const char* operator()(const PingRequest&) { return "ping"; }
    const char* operator()(const SubmitBatchRequest&) { return "submit_batch"; }
    const char* operator()(const RetryRequest&) { return "retry"; }
    const char* operator()(const QueueRequest&) { return "queue"; }
  };
  return std::visit(Visitor{}, r);
}

json BytesList(const std::vector<std::string>& items) {
  json out = json::array();
  for (const auto& s : items) out.push_back(BytesToJson(s));
  return out;
}

json TimeOrNull(WallMs t) {
  return t == 0 ? json() : json(FormatRfc3339Utc(t));
}

json SpecToJson(const TaskSpec& s) {
  json j{{"argv", BytesList(s.argv)},     {"queue", s.queue},        {"priority", s.priority},
         {"cwd", BytesToJson(s.cwd)},     {"env", BytesList(s.env)}, {"clean_env", s.clean_env},
         {"not_before_ms", s.not_before}, {"after", s.after},        {"labels", s.labels},
         {"timeout_ms", s.timeout_ms}};
  if (s.shell) j["shell"] = BytesToJson(*s.shell);
  if (s.stdin_data) j["stdin"] = BytesToJson(*s.stdin_data);
  if (s.key) j["key"] = *s.key;
  if (s.version != 0) j["version"] = s.version;
  if (s.pending_ttl_ms != 0) j["pending_ttl_ms"] = s.pending_ttl_ms;
  return j;
}

json SubmitJson(const SubmitRequest& r) {
  json j = SpecToJson(r.spec);
  const RetryOverrides& o = r.retry;
  if (o.retries) j["retries"] = *o.retries;
  if (o.backoff) j["backoff"] = BackoffName(*o.backoff);
  if (o.base_ms) j["backoff_base_ms"] = *o.base_ms;
  if (o.max_ms) j["backoff_max_ms"] = *o.max_ms;
  if (o.jitter) j["jitter"] = *o.jitter;
  if (o.retry_on_exit) j["retry_on_exit"] = *o.retry_on_exit;
  if (o.no_retry_on_exit) j["no_retry_on_exit"] = *o.no_retry_on_exit;
  if (r.supersede_running) j["supersede_running"] = true;
  return j;
}

// Reads optional member `key` of `j` into `out` when present and of the JSON type `T` maps to.
template <typename T>
Status Read(const json& j, const char* key, T& out, const char* what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return Status::Invalid(key, std::string(key) + ": expected " + what);
  }
  return Status::Ok();
}

// Reads optional member `key` into `out` (left unset when absent).
template <typename T>
Status ReadOptional(const json& j, const char* key, std::optional<T>& out, const char* what) {
  if (!j.contains(key) || j[key].is_null()) return Status::Ok();
  T value{};
  Status st = Read(j, key, value, what);
  if (st.ok()) out = std::move(value);
  return st;
}

Status CheckExitCodes(const char* field, const std::optional<std::vector<int>>& codes) {
  if (!codes) return Status::Ok();
  for (int c : *codes)
    if (c < 0 || c > 255)
      return Status::Invalid(
          field, std::string(field) + ": " + std::to_string(c) + " is not an exit code (0..255)");
  return Status::Ok();
}

Result<RetryOverrides> RetryFromJson(const json& j) {
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
  for (auto [name, v] : {std::pair{"backoff_base", o.base_ms}, std::pair{"backoff_max", o.max_ms}})
    if (v && *v < 0) return Status::Invalid(name, std::string(name) + ": must not be negative");
  return o;
}

Result<std::vector<std::string>> ReadBytesList(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::Invalid(key, std::string(key) + ": expected an array");
  for (const auto& item : *it) {
    auto bytes = BytesFromJson(item, key);
    if (!bytes.ok()) return bytes.status();
    if (bytes->find('\0') != std::string::npos)
      return Status::Invalid(key, std::string(key) + ": an element contains a NUL byte");
    out.push_back(std::move(*bytes));
  }
  return out;
}

Status ReadOptionalBytes(const json& j, const char* key, std::optional<std::string>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  auto bytes = BytesFromJson(*it, key);
  if (!bytes.ok()) return bytes.status();
  out = std::move(*bytes);
  return Status::Ok();
}

std::string SizeText(size_t n) {
  return std::to_string(n) + " bytes";
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

// What exec and the wire need of each string: a program name, no string over MAX_ARG_STRLEN,
// and text fields (queue, labels, key) in UTF-8, since they travel as JSON strings.
Status CheckSpecStrings(const TaskSpec& s) {
  if (!s.argv.empty() && s.argv[0].empty())
    return Status::Invalid("argv", "argv: the program name (the first argument) is empty");
  for (size_t i = 0; i < s.argv.size(); ++i)
    if (Status st = CheckExecString("argv", "argument " + std::to_string(i + 1), s.argv[i].size());
        !st.ok())
      return st;
  if (s.shell)
    if (Status st = CheckExecString("shell", "the command", s.shell->size()); !st.ok()) return st;
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

// Checks a decoded spec against the rules of SPEC 2 and the limits.
Status ValidateSpec(const TaskSpec& s) {
  if (Status st = CheckSpecStrings(s); !st.ok()) return st;
  if (s.argv.empty() && !s.shell)
    return Status::Invalid("argv", "argv: a command is required (argv after --, or --shell)");
  if (!s.argv.empty() && s.shell)
    return Status::Invalid("shell", "shell: give either argv or a shell command, not both");
  if (s.argv.size() > kMaxArgvCount)
    return Status(ErrorCode::kLimit, "argv",
                  "argv: " + std::to_string(s.argv.size()) + " arguments exceed the limit of " +
                      std::to_string(kMaxArgvCount));
  if (TotalBytes(s.argv) + (s.shell ? s.shell->size() : 0) > kMaxArgvBytes)
    return Status(ErrorCode::kLimit, "argv",
                  "argv: the command exceeds the limit of " + SizeText(kMaxArgvBytes));
  if (s.shell && s.shell->find('\0') != std::string::npos)
    return Status::Invalid("shell", "shell: the command contains a NUL byte");
  if (TotalBytes(s.env) > kMaxEnvBytes)
    return Status(ErrorCode::kLimit, "env",
                  "env: the environment exceeds the limit of " + SizeText(kMaxEnvBytes));
  if (s.stdin_data && s.stdin_data->size() > kMaxStdinBytes)
    return Status(ErrorCode::kLimit, "stdin",
                  "stdin: a payload of " + SizeText(s.stdin_data->size()) +
                      " exceeds the limit of " + SizeText(kMaxStdinBytes));
  if (s.priority < kMinPriority || s.priority > kMaxPriority)
    return Status::Invalid("priority", "priority: " + std::to_string(s.priority) +
                                           " is out of range 1..5 (1 is highest)");
  if (!ValidQueueName(s.queue))
    return Status::Invalid(
        "queue", "queue: \"" + s.queue + "\" is not a queue name (1-64 of A-Z a-z 0-9 _ . -)");
  if (s.labels.size() > kMaxLabels)
    return Status(ErrorCode::kLimit, "label",
                  "label: " + std::to_string(s.labels.size()) + " labels exceed the limit of " +
                      std::to_string(kMaxLabels));
  for (const auto& l : s.labels)
    if (l.empty() || l.size() > kMaxLabelBytes)
      return Status::Invalid(
          "label", "label: \"" + l + "\" must be 1.." + std::to_string(kMaxLabelBytes) + " bytes");
  if (s.timeout_ms < 0) return Status::Invalid("timeout", "timeout: must not be negative");
  if (s.pending_ttl_ms < 0)
    return Status::Invalid("pending_ttl", "pending_ttl: must not be negative");
  if (s.key && (s.key->empty() || s.key->size() > kMaxLabelBytes))
    return Status::Invalid("key", "key: must be 1.." + std::to_string(kMaxLabelBytes) + " bytes");
  for (TaskId id : s.after)
    if (id <= 0)
      return Status::Invalid("after", "after: " + std::to_string(id) + " is not a task id");
  return Status::Ok();
}

Result<TaskSpec> SpecFromJson(const json& j) {
  TaskSpec s;
  auto argv = ReadBytesList(j, "argv");
  if (!argv.ok()) return argv.status();
  s.argv = std::move(*argv);
  auto env = ReadBytesList(j, "env");
  if (!env.ok()) return env.status();
  s.env = std::move(*env);
  std::optional<std::string> cwd;
  for (Status st :
       {ReadOptionalBytes(j, "shell", s.shell), ReadOptionalBytes(j, "stdin", s.stdin_data),
        ReadOptionalBytes(j, "cwd", cwd), Read(j, "queue", s.queue, "a string"),
        Read(j, "priority", s.priority, "an integer 1..5"),
        Read(j, "clean_env", s.clean_env, "true or false"),
        Read(j, "not_before_ms", s.not_before, "milliseconds since the epoch"),
        Read(j, "after", s.after, "an array of task ids"),
        Read(j, "labels", s.labels, "an array of strings"),
        Read(j, "timeout_ms", s.timeout_ms, "milliseconds"),
        ReadOptional(j, "key", s.key, "a string"), Read(j, "version", s.version, "an integer"),
        Read(j, "pending_ttl_ms", s.pending_ttl_ms, "milliseconds")}) {
    if (!st.ok()) return st;
  }
  if (cwd) s.cwd = *cwd;
  Status valid = ValidateSpec(s);
  if (!valid.ok()) return valid;
  return s;
}

Result<SubmitRequest> SubmitFromJson(const json& j) {
  auto spec = SpecFromJson(j);
  if (!spec.ok()) return spec.status();
  auto retry = RetryFromJson(j);
  if (!retry.ok()) return retry.status();
  SubmitRequest r{std::move(*spec), std::move(*retry), false};
  Status st = Read(j, "supersede_running", r.supersede_running, "true or false");
  if (!st.ok()) return st;
  return r;
}

Result<std::vector<TaskId>> ReadIds(const json& j) {
  std::vector<TaskId> ids;
  Status st = Read(j, "ids", ids, "an array of task ids");
  if (!st.ok()) return st;
  if (ids.empty()) return Status::Invalid("ids", "ids: at least one task id is required");
  if (ids.size() > kMaxWaitIds)
    return Status(ErrorCode::kLimit, "ids", "ids: more than " + std::to_string(kMaxWaitIds));
  return ids;
}

Result<Request> DecodeBody(const std::string& type, const json& j) {
  if (type == "submit") {
    auto r = SubmitFromJson(j);
    if (!r.ok()) return r.status();
    return Request(std::move(*r));
  }
  if (type == "submit_batch") {
    auto common = j.find("common");
    auto tasks = j.find("tasks");
    if (common == j.end() || !common->is_object())
      return Status::Invalid("common", "common: expected an object of submit fields");
    if (tasks == j.end() || !tasks->is_array())
      return Status::Invalid("tasks", "tasks: expected an array of submit fields");
    SubmitBatchRequest b;
    b.common = *common;
    b.tasks = tasks->get<std::vector<json>>();
    auto resolved = ResolveBatch(b.common, b.tasks);
    if (!resolved.ok()) return resolved.status();
    b.resolved = std::move(*resolved);
    return Request(std::move(b));
  }
  if (type == "retry") {
    RetryRequest r;
    std::string queue;
    for (Status st : {Read(j, "ids", r.ids, "an array of task ids"),
                      Read(j, "all_failed", r.all_failed, "true or false"),
                      Read(j, "queue", queue, "a queue name")}) {
      if (!st.ok()) return st;
    }
    if (!queue.empty()) r.queue = queue;
    if (r.ids.empty() == !r.all_failed)
      return Status::Invalid("ids", "ids: give task ids, or all_failed, not both");
    return Request(std::move(r));
  }
  if (type == "queue") {
    QueueRequest r;
    for (Status st : {Read(j, "action", r.action, "list, pause, resume or set"),
                      Read(j, "name", r.name, "a queue name"),
                      ReadOptional(j, "concurrency", r.concurrency, "an integer")}) {
      if (!st.ok()) return st;
    }
    if (r.action != "list" && r.action != "pause" && r.action != "resume" && r.action != "set")
      return Status::Invalid(
          "action", "action: " + Quote(r.action) + " is not one of list, pause, resume, set");
    if (r.action != "list" && !ValidQueueName(r.name))
      return Status::Invalid(
          "name", "name: " + Quote(r.name) + " is not a queue name (1-64 of A-Z a-z 0-9 _ . -)");
    if (r.action == "set" && (!r.concurrency || *r.concurrency < 0))
      return Status::Invalid("concurrency",
                             "concurrency: set needs --concurrency N (N >= 1, or 0 to clear)");
    return Request(std::move(r));
  }
  if (type == "status") {
    StatusRequest r;
    Status st = Read(j, "id", r.id, "a task id");
    if (!st.ok()) return st;
    return Request(r);
  }
  if (type == "list") {
    ListRequest r;
    std::string state, queue, label;
    int limit = r.filter.limit;
    for (Status st : {Read(j, "state", state, "a state name"), Read(j, "queue", queue, "a string"),
                      Read(j, "label", label, "a string"), Read(j, "limit", limit, "an integer")}) {
      if (!st.ok()) return st;
    }
    if (!state.empty()) {
      r.filter.state = StateFromName(state);
      if (!r.filter.state)
        return Status::Invalid("state", "state: \"" + state +
                                            "\" is not one of pending running succeeded failed "
                                            "cancelled expired");
    }
    if (!queue.empty()) r.filter.queue = queue;
    if (!label.empty()) r.filter.label = label;
    if (limit < 1)
      return Status::Invalid("limit", "limit: " + std::to_string(limit) + " must be >= 1");
    r.filter.limit = limit;
    return Request(r);
  }
  if (type == "wait" || type == "cancel") {
    auto ids = ReadIds(j);
    if (!ids.ok()) return ids.status();
    if (type == "wait") return Request(WaitRequest{std::move(*ids)});
    return Request(CancelRequest{std::move(*ids)});
  }
  if (type == "logs") {
    LogsRequest r;
    for (Status st :
         {Read(j, "id", r.id, "a task id"), Read(j, "stderr", r.stderr_stream, "true or false"),
          Read(j, "offset", r.offset, "a byte offset")}) {
      if (!st.ok()) return st;
    }
    if (r.offset < 0) return Status::Invalid("offset", "offset: must not be negative");
    return Request(r);
  }
  if (type == "ping") return Request(PingRequest{});
  return Status::Invalid("type",
                         "type: \"" + type +
                             "\" is not a request (submit submit_batch status list wait cancel "
                             "retry logs queue ping)");
}

}  // namespace

std::string EncodeRequest(const Request& request) {
  json j;
  std::visit(
      [&j](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, SubmitRequest>) {
          j = SubmitJson(r);
        } else if constexpr (std::is_same_v<T, SubmitBatchRequest>) {
          j["common"] = r.common;
          j["tasks"] = r.tasks;
        } else if constexpr (std::is_same_v<T, RetryRequest>) {
          j["ids"] = r.ids;
          j["all_failed"] = r.all_failed;
          if (r.queue) j["queue"] = *r.queue;
        } else if constexpr (std::is_same_v<T, QueueRequest>) {
          j["action"] = r.action;
          j["name"] = r.name;
          if (r.concurrency) j["concurrency"] = *r.concurrency;
        } else if constexpr (std::is_same_v<T, StatusRequest>) {
          j["id"] = r.id;
        } else if constexpr (std::is_same_v<T, ListRequest>) {
          if (r.filter.state) j["state"] = StateName(*r.filter.state);
          if (r.filter.queue) j["queue"] = *r.filter.queue;
          if (r.filter.label) j["label"] = *r.filter.label;
          j["limit"] = r.filter.limit;
        } else if constexpr (std::is_same_v<T, WaitRequest> || std::is_same_v<T, CancelRequest>) {
          j["ids"] = r.ids;
        } else if constexpr (std::is_same_v<T, LogsRequest>) {
          j["id"] = r.id;
          j["stderr"] = r.stderr_stream;
          j["offset"] = r.offset;
        }
      },
      request);
  if (j.is_null()) j = json::object();
  j["proto"] = kProtoVersion;
  j["type"] = TypeName(request);
  return j.dump();
}

Result<Request> DecodeRequest(std::string_view payload) {
  json j = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid("frame", "frame: not a JSON object");
  auto proto = j.find("proto");
  if (proto == j.end() || !proto->is_number_integer())
    return Status(ErrorCode::kProto, "proto", "proto: the request carries no protocol version");
  const auto version = proto->get<int64_t>();
  if (version != kProtoVersion && version != kProtoVersion - 1)
    return Status(ErrorCode::kProto, "proto",
                  "proto: version " + std::to_string(version) + " is not served (this tqd speaks " +
                      std::to_string(kProtoVersion) + " and " + std::to_string(kProtoVersion - 1) +
                      ")");
  auto type = j.find("type");
  if (type == j.end() || !type->is_string())
    return Status::Invalid("type", "type: the request names no type");
  return DecodeBody(type->get<std::string>(), j);
}

json SubmitToJson(const SubmitRequest& request) {
  return SubmitJson(request);
}

Status CheckSubmit(const SubmitRequest& request) {
  auto decoded = SubmitFromJson(SubmitJson(request));
  return decoded.ok() ? Status::Ok() : decoded.status();
}

const std::vector<std::string>& SubmitFields() {
  static const std::vector<std::string> fields = [] {
    // The keys SubmitJson writes.
    std::istringstream in(
        "argv shell stdin cwd env queue priority clean_env not_before_ms after labels timeout_ms"
        " key version pending_ttl_ms retries backoff backoff_base_ms backoff_max_ms jitter"
        " retry_on_exit no_retry_on_exit supersede_running");
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
  }();
  return fields;
}

RetryPolicy ApplyOverrides(RetryPolicy p, const RetryOverrides& o) {
  if (o.retries) p.retries = *o.retries;
  if (o.backoff) p.backoff = *o.backoff;
  if (o.base_ms) p.base_ms = *o.base_ms;
  if (o.max_ms) p.max_ms = *o.max_ms;
  if (o.jitter) p.jitter = *o.jitter;
  if (o.retry_on_exit) p.retry_on_exit = *o.retry_on_exit;
  if (o.no_retry_on_exit) p.no_retry_on_exit = *o.no_retry_on_exit;
  return p;
}

Result<std::vector<SubmitRequest>> ResolveBatch(const json& common,
                                                const std::vector<json>& tasks) {
  std::vector<SubmitRequest> out;
  out.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string where = "tasks[" + std::to_string(i) + "]: ";
    if (!tasks[i].is_object())
      return Status::Invalid("index:" + std::to_string(i), where + "expected an object");
    json merged = common;
    merged.update(tasks[i]);
    auto r = SubmitFromJson(merged);
    if (!r.ok())
      return Status(r.status().code(), "index:" + std::to_string(i), where + r.status().message());
    out.push_back(std::move(*r));
  }
  return out;
}

json OkResponse(json body) {
  body["ok"] = true;
  return body;
}

json ErrorResponse(const Status& status) {
  return json{{"ok", false},
              {"error",
               {{"code", ErrorCodeName(status.code())},
                {"field", status.field()},
                {"message", status.message()}}}};
}

Status ResponseStatus(const json& response) {
  if (!response.is_object()) return Status::Internal("the daemon sent a malformed response");
  if (response.value("ok", false)) return Status::Ok();
  const json err = response.value("error", json::object());
  if (!err.is_object()) return Status::Internal("the daemon sent a malformed error");
  return Status(ErrorCodeFromName(err.value("code", "internal")), err.value("field", ""),
                err.value("message", "unknown error"));
}

json TaskToJson(const Task& t) {
  json attempts = json::array();
  for (const Attempt& a : t.attempts) {
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
        {"max_rss_kb", a.max_rss_kb}};
    attempts.push_back(std::move(ja));
  }
  json j{{"id", t.id},
         {"state", StateName(t.state)},
         {"reason", t.reason == TaskReason::kNone ? json() : json(TaskReasonName(t.reason))},
         {"exit_code", t.exit_code < 0 ? json() : json(t.exit_code)},
         {"signal", t.signal == 0 ? json() : json(t.signal)},
         {"priority", t.spec.priority},
         {"queue", t.spec.queue},
         {"attempts", t.attempt_count},
         {"owner", {{"uid", t.owner.uid}, {"gid", t.owner.gid}, {"name", t.owner.name}}},
         {"argv", BytesList(t.spec.argv)},
         {"shell", t.spec.shell ? BytesToJson(*t.spec.shell) : json()},
         {"cwd", BytesToJson(t.spec.cwd)},
         {"labels", t.spec.labels},
         {"after", t.spec.after},
         {"created", TimeOrNull(t.created)},
         {"not_before", TimeOrNull(t.spec.not_before)},
         {"finished", TimeOrNull(t.finished)},
         {"timeout_ms", t.spec.timeout_ms == 0 ? json() : json(t.spec.timeout_ms)},
         {"pending_ttl_ms", t.spec.pending_ttl_ms == 0 ? json() : json(t.spec.pending_ttl_ms)},
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
  return j;
}

}  // namespace tq
