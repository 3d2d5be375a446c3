#include "core/protocol.h"

#include "core/bytes.h"
#include "core/config.h"
#include "core/limits.h"
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

// Checks a decoded spec against the rules of SPEC 2 and the limits.
Status ValidateSpec(const TaskSpec& s) {
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
        Read(j, "timeout_ms", s.timeout_ms, "milliseconds")}) {
    if (!st.ok()) return st;
  }
  if (cwd) s.cwd = *cwd;
  Status valid = ValidateSpec(s);
  if (!valid.ok()) return valid;
  return s;
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
    auto spec = SpecFromJson(j);
    if (!spec.ok()) return spec.status();
    return Request(SubmitRequest{std::move(*spec)});
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
  return Status::Invalid(
      "type", "type: \"" + type + "\" is not a request (submit status list wait cancel logs ping)");
}

}  // namespace

std::string EncodeRequest(const Request& request) {
  json j;
  std::visit(
      [&j](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, SubmitRequest>) {
          j = SpecToJson(r.spec);
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
         {"attempt_log", std::move(attempts)}};
  return j;
}

}  // namespace tq
