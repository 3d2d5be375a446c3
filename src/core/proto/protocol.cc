#include "core/proto/protocol.h"

#include <algorithm>
#include <concepts>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/config/config.h"
#include "core/model/bytes.h"
#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/wall_time.h"
#include "core/proto/bounded_json.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

namespace {

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
  if (s.keep_background) j["keep_background"] = true;
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

// The members of a request, or of one batch element laid over the batch's common part: a key
// `top` has (even as null) hides the same key of `base`. Nothing is copied.
class Fields {
 public:
  Fields(const json& j) : top_(j) {}  // implicit: a request object is its own fields
  Fields(const json& top, const json& base) : top_(top), base_(&base) {}
  // The member `key`, or nullptr.
  const json* Find(const char* key) const {
    if (auto it = top_.find(key); it != top_.end()) return &*it;
    if (base_ == nullptr) return nullptr;
    auto it = base_->find(key);
    return it == base_->end() ? nullptr : &*it;
  }

 private:
  const json& top_;
  const json* base_ = nullptr;
};

// Strict conversions from a JSON value: the JSON type must match, and an integer must be a JSON
// integer (not 3.7, not 1e300) that fits the C++ type.
bool Convert(const json& v, bool& out) {
  if (!v.is_boolean()) return false;
  out = v.get<bool>();
  return true;
}
bool Convert(const json& v, std::string& out) {
  if (!v.is_string()) return false;
  out = v.get_ref<const std::string&>();
  return true;
}
template <std::integral T>
requires(!std::same_as<T, bool>) bool Convert(const json& v, T& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (!std::in_range<T>(u)) return false;
    out = static_cast<T>(u);
    return true;
  }
  if (!v.is_number_integer()) return false;
  const auto i = v.get<int64_t>();
  if (!std::in_range<T>(i)) return false;
  out = static_cast<T>(i);
  return true;
}
template <typename T>
bool Convert(const json& v, std::vector<T>& out) {
  if (!v.is_array()) return false;
  std::vector<T> items(v.size());
  for (size_t i = 0; i < items.size(); ++i)
    if (!Convert(v[i], items[i])) return false;
  out = std::move(items);
  return true;
}

// What a refused value was, short: a number or a boolean as written, else its JSON type.
std::string Shown(const json& v) {
  if (v.is_number() || v.is_boolean()) return v.dump();
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "a string";
}

// Reads optional member `key` into `out` when present and of the JSON type `T` maps to.
template <typename T>
Status Read(const Fields& f, const char* key, T& out, const char* what) {
  const json* v = f.Find(key);
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!Convert(*v, out))
    return Status::Invalid(key, std::string(key) + ": expected " + what + ", got " + Shown(*v));
  return Status::Ok();
}

// Reads optional member `key` into `out` (left unset when absent).
template <typename T>
Status ReadOptional(const Fields& f, const char* key, std::optional<T>& out, const char* what) {
  const json* v = f.Find(key);
  if (v == nullptr || v->is_null()) return Status::Ok();
  T value{};
  Status st = Read(f, key, value, what);
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

Result<std::vector<std::string>> ReadBytesList(const Fields& j, const char* key) {
  std::vector<std::string> out;
  const json* it = j.Find(key);
  if (it == nullptr || it->is_null()) return out;
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

Status ReadOptionalBytes(const Fields& j, const char* key, std::optional<std::string>& out) {
  const json* it = j.Find(key);
  if (it == nullptr || it->is_null()) return Status::Ok();
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

// The bytes a wire byte string stands for (see bytes.h), without decoding it; 0 for anything
// else, which SpecFromJson refuses later.
size_t WireBytes(const json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().size();
  if (!v.is_object()) return 0;
  auto b64 = v.find("b64");
  if (b64 == v.end() || !b64->is_string()) return 0;
  const auto& text = b64->get_ref<const std::string&>();
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  return text.size() / 4 * 3 - std::min(pad, text.size() / 4 * 3);
}

// SubmitPayloadBytes of a submit still in its wire form.
size_t WirePayloadBytes(const Fields& f) {
  size_t n = 0;
  for (const char* list : {"argv", "env"}) {
    const json* v = f.Find(list);
    if (v == nullptr || !v->is_array()) continue;
    for (const json& item : *v) n += WireBytes(item) + 1;
  }
  for (const char* one : {"shell", "stdin"})
    if (const json* v = f.Find(one)) n += WireBytes(*v);
  return n;
}

// The limits of one submit_batch request, checked on its wire form before any task is
// decoded: a small element over a large common part must not multiply it past them.
Status CheckBatchLimits(const json& common, const std::vector<json>& tasks) {
  if (tasks.size() > kMaxBatchTasks)
    return Status(ErrorCode::kLimit, "tasks",
                  "tasks: " + std::to_string(tasks.size()) + " tasks exceed the limit of " +
                      std::to_string(kMaxBatchTasks) + " per request");
  size_t total = 0;
  for (const json& task : tasks) total += WirePayloadBytes(Fields(task, common));
  if (total > kMaxBatchBytes)
    return Status(ErrorCode::kLimit, "tasks",
                  "tasks: the batch's commands, environments and stdin come to " + SizeText(total) +
                      ", over the limit of " + SizeText(kMaxBatchBytes) + " per request");
  return Status::Ok();
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
  if (s.cwd.size() > kMaxCwdBytes)
    return Status(ErrorCode::kLimit, "cwd",
                  "cwd: a directory name of " + SizeText(s.cwd.size()) + " exceeds the limit of " +
                      SizeText(kMaxCwdBytes));
  if (s.priority < kMinPriority || s.priority > kMaxPriority)
    return Status::Invalid("priority", "priority: " + std::to_string(s.priority) +
                                           " is out of range 1..5 (1 is highest)");
  if (!ValidQueueName(s.queue))
    return Status::Invalid(
        "queue", "queue: " + Quote(s.queue) + " is not a queue name (1-64 of A-Z a-z 0-9 _ . -)");
  if (s.labels.size() > kMaxLabels)
    return Status(ErrorCode::kLimit, "label",
                  "label: " + std::to_string(s.labels.size()) + " labels exceed the limit of " +
                      std::to_string(kMaxLabels));
  for (const auto& l : s.labels)
    if (l.empty() || l.size() > kMaxLabelBytes)
      return Status::Invalid("label", "label: " + Quote(l) + " must be 1.." +
                                          std::to_string(kMaxLabelBytes) + " bytes");
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
        Read(j, "pending_ttl_ms", s.pending_ttl_ms, "milliseconds"),
        Read(j, "keep_background", s.keep_background, "true or false")}) {
    if (!st.ok()) return st;
  }
  if (cwd) s.cwd = *cwd;
  Status valid = ValidateSpec(s);
  if (!valid.ok()) return valid;
  return s;
}

Result<SubmitRequest> SubmitFromJson(const Fields& j) {
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

// Each request's body read from its frame, every field checked; and written back.

Result<SubmitRequest> DecodeSubmit(const json& j) {
  return SubmitFromJson(j);
}
json EncodeSubmit(const SubmitRequest& r) {
  return SubmitJson(r);
}

Result<SubmitBatchRequest> DecodeSubmitBatch(const json& j) {
  auto common = j.find("common");
  auto tasks = j.find("tasks");
  if (common == j.end() || !common->is_object())
    return Status::Invalid("common", "common: expected an object of submit fields");
  if (tasks == j.end() || !tasks->is_array())
    return Status::Invalid("tasks", "tasks: expected an array of submit fields");
  const auto& elements = tasks->get_ref<const json::array_t&>();
  if (Status st = CheckBatchLimits(*common, elements); !st.ok()) return st;
  auto resolved = ResolveBatch(*common, elements);
  if (!resolved.ok()) return resolved.status();
  SubmitBatchRequest b;
  b.resolved = std::move(*resolved);
  return b;
}
json EncodeSubmitBatch(const SubmitBatchRequest& r) {
  return json{{"common", r.common}, {"tasks", r.tasks}};
}

Result<RetryRequest> DecodeRetry(const json& j) {
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
  return r;
}
json EncodeRetry(const RetryRequest& r) {
  json j{{"ids", r.ids}, {"all_failed", r.all_failed}};
  if (r.queue) j["queue"] = *r.queue;
  return j;
}

Result<QueueRequest> DecodeQueue(const json& j) {
  QueueRequest r;
  for (Status st : {Read(j, "action", r.action, "list, pause, resume, set or delete"),
                    Read(j, "name", r.name, "a queue name"),
                    ReadOptional(j, "concurrency", r.concurrency, "an integer")}) {
    if (!st.ok()) return st;
  }
  if (r.action != "list" && r.action != "pause" && r.action != "resume" && r.action != "set" &&
      r.action != "delete")
    return Status::Invalid(
        "action", "action: " + Quote(r.action) + " is not one of list, pause, resume, set, delete");
  if (r.action != "list" && !ValidQueueName(r.name))
    return Status::Invalid(
        "name", "name: " + Quote(r.name) + " is not a queue name (1-64 of A-Z a-z 0-9 _ . -)");
  if (r.action == "set" && (!r.concurrency || *r.concurrency < 0))
    return Status::Invalid("concurrency",
                           "concurrency: set needs --concurrency N (N >= 1, or 0 to clear)");
  return r;
}
json EncodeQueue(const QueueRequest& r) {
  json j{{"action", r.action}, {"name", r.name}};
  if (r.concurrency) j["concurrency"] = *r.concurrency;
  return j;
}

Result<StatusRequest> DecodeStatus(const json& j) {
  StatusRequest r;
  Status st = Read(j, "id", r.id, "a task id");
  if (!st.ok()) return st;
  return r;
}
json EncodeStatus(const StatusRequest& r) {
  return json{{"id", r.id}};
}

Result<ListRequest> DecodeList(const json& j) {
  ListRequest r;
  std::string state, queue, label;
  for (Status st : {Read(j, "state", state, "a state name"), Read(j, "queue", queue, "a string"),
                    Read(j, "label", label, "a string"), Read(j, "limit", r.limit, "an integer"),
                    ReadOptional(j, "before_id", r.before_id, "a task id")}) {
    if (!st.ok()) return st;
  }
  if (r.before_id && *r.before_id < 1)
    return Status::Invalid(
        "before_id", "before_id: " + std::to_string(*r.before_id) + " is not a task id (>= 1)");
  if (!state.empty()) {
    r.state = StateFromName(state);
    if (!r.state)
      return Status::Invalid("state", "state: " + Quote(state) +
                                          " is not one of pending running succeeded failed "
                                          "cancelled expired");
  }
  if (!queue.empty()) r.queue = queue;
  if (!label.empty()) r.label = label;
  if (r.limit < 1)
    return Status::Invalid("limit", "limit: " + std::to_string(r.limit) + " must be >= 1");
  return r;
}
json EncodeList(const ListRequest& r) {
  json j{{"limit", r.limit}};
  if (r.state) j["state"] = StateName(*r.state);
  if (r.queue) j["queue"] = *r.queue;
  if (r.label) j["label"] = *r.label;
  if (r.before_id) j["before_id"] = *r.before_id;
  return j;
}

Result<WaitRequest> DecodeWait(const json& j) {
  auto ids = ReadIds(j);
  if (!ids.ok()) return ids.status();
  return WaitRequest{std::move(*ids)};
}
json EncodeWait(const WaitRequest& r) {
  return json{{"ids", r.ids}};
}

Result<CancelRequest> DecodeCancel(const json& j) {
  auto ids = ReadIds(j);
  if (!ids.ok()) return ids.status();
  return CancelRequest{std::move(*ids)};
}
json EncodeCancel(const CancelRequest& r) {
  return json{{"ids", r.ids}};
}

Result<LogsRequest> DecodeLogs(const json& j) {
  LogsRequest r;
  for (Status st :
       {Read(j, "id", r.id, "a task id"), Read(j, "stderr", r.stderr_stream, "true or false"),
        Read(j, "offset", r.offset, "a byte offset"),
        Read(j, "attempt", r.attempt, "an attempt number (0: the latest)")}) {
    if (!st.ok()) return st;
  }
  if (r.offset < 0) return Status::Invalid("offset", "offset: must not be negative");
  if (r.attempt < 0)
    return Status::Invalid("attempt", "attempt: " + std::to_string(r.attempt) +
                                          " is not an attempt number (>= 1, or 0: the latest)");
  return r;
}
json EncodeLogs(const LogsRequest& r) {
  json j{{"id", r.id}, {"stderr", r.stderr_stream}, {"offset", r.offset}};
  if (r.attempt != 0) j["attempt"] = r.attempt;
  return j;
}

Result<PingRequest> DecodePing(const json&) {
  return PingRequest{};
}
json EncodePing(const PingRequest&) {
  return json::object();
}

// How one request type travels: its wire name, and how its body is read and written.
template <typename T>
struct Codec {
  const char* type;
  Result<T> (*decode)(const json& body);
  json (*encode)(const T& request);
};

// The table of requests, in the order a refusal of an unknown type lists them. A new request is
// a struct in protocol.h with its alternative in Request, its two functions above, and a row
// here (EncodeRequest does not compile for an alternative without one); tqd's handlers have
// their own table, keyed by the same types (src/daemon/handlers/routes.cc).
constexpr std::tuple kCodecs{
    Codec<SubmitRequest>{"submit", DecodeSubmit, EncodeSubmit},
    Codec<SubmitBatchRequest>{"submit_batch", DecodeSubmitBatch, EncodeSubmitBatch},
    Codec<StatusRequest>{"status", DecodeStatus, EncodeStatus},
    Codec<ListRequest>{"list", DecodeList, EncodeList},
    Codec<WaitRequest>{"wait", DecodeWait, EncodeWait},
    Codec<CancelRequest>{"cancel", DecodeCancel, EncodeCancel},
    Codec<RetryRequest>{"retry", DecodeRetry, EncodeRetry},
    Codec<LogsRequest>{"logs", DecodeLogs, EncodeLogs},
    Codec<QueueRequest>{"queue", DecodeQueue, EncodeQueue},
    Codec<PingRequest>{"ping", DecodePing, EncodePing},
};

// The wire names of every request, as a refusal lists them.
std::string RequestTypes() {
  std::string names;
  std::apply([&](const auto&... c) { ((names += names.empty() ? "" : " ", names += c.type), ...); },
             kCodecs);
  return names;
}

// The body of a request of wire type `type`, decoded by its row of kCodecs.
Result<Request> DecodeBody(const std::string& type, const json& j) {
  std::optional<Result<Request>> decoded;
  auto decode_if_named = [&](const auto& codec) {
    if (decoded || type != codec.type) return;
    auto r = codec.decode(j);
    decoded = r.ok() ? Result<Request>(Request(std::move(*r))) : Result<Request>(r.status());
  };
  std::apply([&](const auto&... codec) { (decode_if_named(codec), ...); }, kCodecs);
  if (decoded) return std::move(*decoded);
  return Status::Invalid("type",
                         "type: " + Quote(type) + " is not a request (" + RequestTypes() + ")");
}

}  // namespace

const char* RequestType(const Request& request) {
  return std::visit(
      [](const auto& r) { return std::get<Codec<std::decay_t<decltype(r)>>>(kCodecs).type; },
      request);
}

std::string EncodeRequest(const Request& request) {
  return std::visit(
      [](const auto& r) {
        const auto& codec = std::get<Codec<std::decay_t<decltype(r)>>>(kCodecs);
        json j = codec.encode(r);
        j["proto"] = kProtoVersion;
        j["type"] = codec.type;
        return j.dump();
      },
      request);
}

Result<Request> DecodeRequest(std::string_view payload) {
  auto parsed = ParseBoundedJson(payload);
  if (!parsed.ok()) return parsed.status();
  const json& j = *parsed;
  if (!j.is_object()) return Status::Invalid("frame", "frame: not a JSON object");
  auto proto = j.find("proto");
  if (proto == j.end() || !proto->is_number_integer())
    return Status(ErrorCode::kProto, "proto", "proto: the request carries no protocol version");
  // Unsigned JSON integers past int64 read as -1: refused like any other version not served.
  const int64_t version =
      proto->is_number_unsigned() && !std::in_range<int64_t>(proto->get<uint64_t>())
          ? -1
          : proto->get<int64_t>();
  constexpr int kOldest = std::max(kMinProtoVersion, kProtoVersion - 1);
  if (version < kOldest || version > kProtoVersion)
    return Status(ErrorCode::kProto, "proto",
                  "proto: version " + proto->dump() + " is not served (this tqd speaks " +
                      (kOldest == kProtoVersion
                           ? std::to_string(kProtoVersion)
                           : std::to_string(kOldest) + ".." + std::to_string(kProtoVersion)) +
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
        " retry_on_exit no_retry_on_exit supersede_running keep_background");
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
    if (!tasks[i].is_object())
      return Status::Invalid("index:" + std::to_string(i),
                             "tasks[" + std::to_string(i) + "]: expected an object");
    auto r = SubmitFromJson(Fields(tasks[i], common));
    if (!r.ok())
      return Status(r.status().code(), "index:" + std::to_string(i),
                    "tasks[" + std::to_string(i) + "]: " + r.status().message());
    out.push_back(std::move(*r));
  }
  return out;
}

size_t SubmitPayloadBytes(const SubmitRequest& r) {
  const TaskSpec& s = r.spec;
  return TotalBytes(s.argv) + TotalBytes(s.env) + (s.shell ? s.shell->size() : 0) +
         (s.stdin_data ? s.stdin_data->size() : 0);
}

namespace {
// At most how many JSON values a task's element of a batch holds (half of kMaxJsonValues is
// left for the elements, the rest for the common part).
size_t SubmitValueBound(const SubmitRequest& r) {
  const TaskSpec& s = r.spec;
  constexpr size_t kScalars = 32;  // the element, its arrays and every scalar field, generously
  size_t n = kScalars + s.argv.size() + s.env.size() + s.labels.size() + s.after.size();
  for (const auto& codes : {r.retry.retry_on_exit, r.retry.no_retry_on_exit})
    if (codes) n += codes->size();
  return n;
}
}  // namespace

std::vector<size_t> BatchChunkEnds(const std::vector<SubmitRequest>& tasks) {
  std::vector<size_t> ends;
  size_t count = 0, bytes = 0, values = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const size_t n = SubmitPayloadBytes(tasks[i]);
    const size_t v = SubmitValueBound(tasks[i]);
    if (count > 0 && (count == kMaxBatchTasks || bytes + n > kMaxBatchBytes ||
                      values + v > kMaxJsonValues / 2)) {
      ends.push_back(i);
      count = bytes = values = 0;
    }
    ++count;
    bytes += n;
    values += v;
  }
  if (count > 0) ends.push_back(tasks.size());
  return ends;
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
        {"detail", a.detail.empty() ? json() : json(a.detail)}};
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
  return j;
}

json TaskSummaryJson(const Task& t) {
  return json{{"id", t.id},
              {"state", StateName(t.state)},
              {"reason", t.reason == TaskReason::kNone ? json() : json(TaskReasonName(t.reason))},
              {"exit_code", t.exit_code < 0 ? json() : json(t.exit_code)},
              {"signal", t.signal == 0 ? json() : json(t.signal)}};
}

}  // namespace tq
