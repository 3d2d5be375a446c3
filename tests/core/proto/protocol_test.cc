#include "core/proto/protocol.h"

#include <doctest/doctest.h>

#include "core/model/limits.h"
#include "core/proto/wire_bytes.h"

namespace tq {
namespace {

// A selector of `ids`.
TaskSelector Ids(std::vector<TaskId> ids) {
  TaskSelector s;
  s.ids = std::move(ids);
  return s;
}

using nlohmann::json;

TaskSpec FullSpec() {
  TaskSpec s;
  s.argv = {"printf", "%s\n", "a b", "", "it's", "new\nline", "\xff\xfe latin \xe9"};
  s.queue = "batch.1";
  s.priority = 2;
  s.stdin_data = std::string("in\0put\xff", 7);
  s.cwd = "/tmp/d\xe9j\xe0";
  s.env = {"HOME=/root", "X=\xff"};
  s.not_before = 1700000000123;
  s.after = {3, 4};
  s.labels = {"nightly", "job-x"};
  s.timeout_ms = 90000;
  return s;
}

TEST_CASE("a submit request round-trips byte for byte") {
  auto decoded = DecodeRequest(EncodeRequest(SubmitRequest{FullSpec(), {}, false, 0}));
  REQUIRE(decoded.ok());
  const auto& spec = std::get<SubmitRequest>(*decoded).spec;
  const TaskSpec want = FullSpec();
  CHECK(spec.argv == want.argv);
  CHECK(spec.stdin_data == want.stdin_data);
  CHECK(spec.cwd == want.cwd);
  CHECK(spec.env == want.env);
  CHECK(spec.queue == want.queue);
  CHECK(spec.priority == want.priority);
  CHECK(spec.not_before == want.not_before);
  CHECK(spec.after == want.after);
  CHECK(spec.labels == want.labels);
  CHECK(spec.timeout_ms == want.timeout_ms);
  CHECK_FALSE(spec.shell);
}

TEST_CASE("every other request round-trips") {
  ListRequest list;
  list.states = {TaskState::kFailed};
  list.queue = "q";
  list.label = "l";
  list.limit = 7;
  const std::vector<Request> requests = {StatusRequest{.id = 5},
                                         list,
                                         WaitRequest{Ids({1, 2, 3})},
                                         CancelRequest{Ids({9})},
                                         LogsRequest{4, {}, true, false, 100},
                                         PingRequest{}};
  for (const Request& r : requests) {
    auto back = DecodeRequest(EncodeRequest(r));
    REQUIRE(back.ok());
    CHECK(back->index() == r.index());
  }
  auto back = DecodeRequest(EncodeRequest(list));
  const auto& f = std::get<ListRequest>(*back);
  CHECK(f.states == std::vector<TaskState>{TaskState::kFailed});
  CHECK(f.queue == "q");
  CHECK(f.label == "l");
  CHECK(f.limit == 7);
  auto logs =
      std::get<LogsRequest>(*DecodeRequest(EncodeRequest(LogsRequest{4, {}, true, false, 100})));
  CHECK(logs.id == 4);
  CHECK(logs.stderr_stream);
  CHECK(logs.offset == 100);
  LogsRequest selected;
  selected.select.label = "nightly";
  selected.merged = true;
  selected.offset = 7;
  auto back_selected = std::get<LogsRequest>(*DecodeRequest(EncodeRequest(selected)));
  CHECK(back_selected.id == 0);
  CHECK(back_selected.select.label == "nightly");
  CHECK(back_selected.merged);
  CHECK(back_selected.offset == 7);
}

TEST_CASE("malformed and unknown requests are refused, naming the problem") {
  struct Case {
    std::string payload;
    ErrorCode code;
    std::string field;
    std::string in_message;
  };
  const Case cases[] = {
      {"", ErrorCode::kInvalid, "frame", "JSON"},
      {"{\"proto\":1,", ErrorCode::kInvalid, "frame", "JSON"},
      {"[1,2]", ErrorCode::kInvalid, "frame", "object"},
      {"{\"type\":\"ping\"}", ErrorCode::kProto, "proto", "no protocol version"},
      {"{\"proto\":99,\"type\":\"ping\"}", ErrorCode::kProto, "proto", "speaks 1)"},
      {"{\"proto\":1}", ErrorCode::kInvalid, "type", "no type"},
      {"{\"proto\":1,\"type\":\"explode\"}", ErrorCode::kInvalid, "type", "explode"},
      {"{\"proto\":1,\"type\":\"status\",\"id\":\"x\"}", ErrorCode::kInvalid, "id", "task id"},
      {"{\"proto\":1,\"type\":\"wait\",\"ids\":[]}", ErrorCode::kInvalid, "ids", "at least one"},
      {"{\"proto\":1,\"type\":\"submit\"}", ErrorCode::kInvalid, "argv", "command is required"},
      {"{\"proto\":1,\"type\":\"submit\",\"argv\":[\"x\"],\"priority\":9}", ErrorCode::kInvalid,
       "priority", "9 is out of range 1..5"},
      {"{\"proto\":1,\"type\":\"submit\",\"argv\":[\"x\"],\"queue\":\"a b\"}", ErrorCode::kInvalid,
       "queue", "\"a b\""},
      {"{\"proto\":1,\"type\":\"submit\",\"argv\":[\"x\"],\"shell\":\"y\"}", ErrorCode::kInvalid,
       "shell", "not both"},
      {"{\"proto\":1,\"type\":\"submit\",\"argv\":[{\"b64\":\"YQBi\"}]}", ErrorCode::kInvalid,
       "argv", "NUL"},
      {"{\"proto\":1,\"type\":\"submit\",\"argv\":[7]}", ErrorCode::kInvalid, "argv", "string"},
      {"{\"proto\":1,\"type\":\"list\",\"state\":\"done\"}", ErrorCode::kInvalid, "state",
       "\"done\""},
      {"{\"proto\":1,\"type\":\"logs\",\"id\":1,\"offset\":-1}", ErrorCode::kInvalid, "offset",
       "negative"},
      {"{\"proto\":1,\"type\":\"logs\",\"id\":1,\"label\":\"x\"}", ErrorCode::kInvalid, "id",
       "names one task"},
      {"{\"proto\":1,\"type\":\"logs\"}", ErrorCode::kInvalid, "ids", "at least one task id"},
      {"{\"proto\":1,\"type\":\"logs\",\"ids\":[1,2],\"attempt\":2}", ErrorCode::kInvalid,
       "attempt", "one task's id"},
      {"{\"proto\":1,\"type\":\"logs\",\"id\":1,\"merged\":true,\"stderr\":true}",
       ErrorCode::kInvalid, "merged", "without stderr"},
      {"{\"proto\":1,\"type\":\"update\",\"id\":1}", ErrorCode::kInvalid, "changes",
       "nothing to change"},
      {"{\"proto\":1,\"type\":\"update\",\"id\":1,\"priority\":0}", ErrorCode::kInvalid, "priority",
       "out of range"},
      {"{\"proto\":1,\"type\":\"update\",\"id\":1,\"labels\":[\"\"]}", ErrorCode::kInvalid, "label",
       "must be 1.."},
      {"{\"proto\":1,\"type\":\"update\",\"id\":1,\"retries\":-1}", ErrorCode::kInvalid, "retries",
       "retries"},
      {"{\"proto\":1,\"type\":\"update\",\"id\":0,\"retries\":1}", ErrorCode::kInvalid, "id",
       "not a task id"},
      {"{\"proto\":1,\"type\":\"hold\",\"states\":[\"running\"]}", ErrorCode::kInvalid, "states",
       "hold acts on tasks that are pending"},
      {"{\"proto\":1,\"type\":\"hold\",\"release\":true}", ErrorCode::kInvalid, "ids",
       "at least one task id"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.payload);
    auto r = DecodeRequest(c.payload);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == c.code);
    CHECK(r.status().field() == c.field);
    CHECK(r.status().message().find(c.in_message) != std::string::npos);
  }
}

TEST_CASE("invalid UTF-8 inside the JSON text is refused, not crashed on") {
  auto r = DecodeRequest("{\"proto\":1,\"type\":\"submit\",\"argv\":[\"\xff\"]}");
  CHECK_FALSE(r.ok());
}

TEST_CASE("limits are enforced with their names") {
  TaskSpec s;
  s.argv = {"cat"};
  s.stdin_data = std::string(kMaxStdinBytes + 1, 'x');
  auto r = DecodeRequest(EncodeRequest(SubmitRequest{s, {}, false, 0}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().field() == "stdin");
  s.stdin_data.reset();
  s.argv.assign(kMaxArgvCount + 1, "a");
  r = DecodeRequest(EncodeRequest(SubmitRequest{s, {}, false, 0}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().field() == "argv");
}

TEST_CASE("unknown fields are ignored, only protocol versions that exist are served") {
  CHECK(DecodeRequest("{\"proto\":1,\"type\":\"ping\",\"future_field\":{\"a\":1}}").ok());
  for (const char* proto : {"0", "-1", "2", "18446744073709551615", "1.0"}) {
    CAPTURE(proto);
    auto r = DecodeRequest(std::string("{\"proto\":") + proto + ",\"type\":\"ping\"}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kProto);
    CHECK(r.status().field() == "proto");
  }
  auto zero = DecodeRequest("{\"proto\":0,\"type\":\"ping\"}");
  CHECK(zero.status().message() == "proto: version 0 is not served (this tqd speaks 1)");
}

TEST_CASE("error responses carry code, field and message") {
  const Status st(ErrorCode::kNotFound, "id", "task 5 not found");
  const Status back = ResponseStatus(json::parse(ErrorResponse(st).dump()));
  CHECK(back.code() == ErrorCode::kNotFound);
  CHECK(back.field() == "id");
  CHECK(back.message() == "task 5 not found");
  CHECK(back.fault() == StoreFault::kNone);
  CHECK_FALSE(ErrorResponse(st)["error"].contains("transient"));
  CHECK(ResponseStatus(OkResponse({{"id", 1}})).ok());
  CHECK_FALSE(ResponseStatus(json("nonsense")).ok());
}

TEST_CASE("an error that trying again may mend says so, and the client reads it so") {
  const Status lost = Status::Internal("store: begin failed: terminating connection")
                          .WithFault(StoreFault::kTransient);
  const json wire = ErrorResponse(lost);
  CHECK(wire["error"]["transient"] == true);
  CHECK(ResponseStatus(json::parse(wire.dump())).fault() == StoreFault::kTransient);
  const Status full = Status::Internal("store: commit failed: database or disk is full")
                          .WithFault(StoreFault::kPermanent);
  CHECK_FALSE(ErrorResponse(full)["error"].contains("transient"));
  json odd = wire;
  odd["error"]["transient"] = "yes";  // only true says so
  CHECK(ResponseStatus(odd).fault() == StoreFault::kNone);
}

TEST_CASE("a task shows the SPEC 2 field names and never its environment") {
  Task t;
  t.id = 12;
  t.spec = FullSpec();
  t.state = TaskState::kFailed;
  t.reason = TaskReason::kExit;
  t.exit_code = 3;
  t.attempt_count = 1;
  t.created = 1700000000000;
  Attempt a;
  a.number = 1;
  a.started = 1700000000000;
  a.ended = 1700000001500;
  a.exit_code = 3;
  a.reason = AttemptReason::kExit;
  t.attempts = {a};
  const json j = TaskToJson(t);
  for (const char* key : {"id", "state", "reason", "exit_code", "priority", "queue", "attempts",
                          "argv", "labels", "created", "attempt_log"})
    CHECK(j.contains(key));
  CHECK_FALSE(j.contains("env"));
  CHECK(j["state"] == "failed");
  CHECK(j["reason"] == "exit");
  CHECK(j["attempts"] == 1);
  CHECK(j["created"] == "2023-11-14T22:13:20Z");
  CHECK(j["attempt_log"][0]["duration_ms"] == 1500);
  CHECK(j["signal"].is_null());
  auto argv6 = BytesFromJson(j["argv"][6], "argv");
  REQUIRE(argv6.ok());
  CHECK(*argv6 == "\xff\xfe latin \xe9");
}

}  // namespace
}  // namespace tq

namespace tq {
namespace {

TEST_CASE("keyed submits with retry overrides round-trip, unset overrides stay unset") {
  SubmitRequest r;
  r.spec.argv = {"true"};
  r.spec.key = "report-2026-11-22";
  r.spec.version = 4;
  r.spec.pending_ttl_ms = 60000;
  r.retry.retries = 3;
  r.retry.backoff = BackoffKind::kProgressive;
  r.retry.no_retry_on_exit = std::vector<int>{2};
  r.supersede_running = true;
  auto back = DecodeRequest(EncodeRequest(r));
  REQUIRE(back.ok());
  const auto& got = std::get<SubmitRequest>(*back);
  CHECK(got.spec.key == r.spec.key);
  CHECK(got.spec.version == 4);
  CHECK(got.spec.pending_ttl_ms == 60000);
  CHECK(got.retry.retries == 3);
  CHECK(got.retry.backoff == BackoffKind::kProgressive);
  CHECK(got.retry.no_retry_on_exit == std::vector<int>{2});
  CHECK_FALSE(got.retry.base_ms);
  CHECK_FALSE(got.retry.jitter);
  CHECK(got.supersede_running);

  RetryPolicy defaults;
  defaults.retries = 1;
  defaults.base_ms = 5000;
  const RetryPolicy applied = ApplyOverrides(defaults, got.retry);
  CHECK(applied.retries == 3);
  CHECK(applied.base_ms == 5000);
  CHECK(applied.backoff == BackoffKind::kProgressive);
}

TEST_CASE("bad retry fields are refused with their names") {
  struct Case {
    std::string extra, field;
  };
  const Case cases[] = {
      {"\"retries\":-1", "retries"},
      {"\"backoff\":\"linear\"", "backoff"},
      {"\"retry_on_exit\":[256]", "retry_on_exit"},
      {"\"backoff_base_ms\":-5", "backoff_base_ms"},
      {"\"key\":\"\"", "key"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.extra);
    auto r = DecodeRequest("{\"proto\":1,\"type\":\"submit\",\"argv\":[\"x\"]," + c.extra + "}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == c.field);
  }
}

TEST_CASE("retry and queue requests round-trip and are checked") {
  // An earlier tq's "all_failed" with "queue" is the filter states = [failed] on that queue.
  auto r = DecodeRequest(R"({"proto":1,"type":"retry","ids":[],"all_failed":true,"queue":"q"})");
  REQUIRE(r.ok());
  CHECK(std::get<RetryRequest>(*r).select.states == std::vector<TaskState>{TaskState::kFailed});
  CHECK(std::get<RetryRequest>(*r).select.queue == "q");
  CHECK_FALSE(DecodeRequest(R"({"proto":1,"type":"retry","ids":[1],"all_failed":true})").ok());
  CHECK_FALSE(DecodeRequest(EncodeRequest(RetryRequest{})).ok());
  RetryRequest by_label;
  by_label.select.label = "nightly";
  by_label.select.states = {TaskState::kCancelled};
  auto labelled = DecodeRequest(EncodeRequest(by_label));
  REQUIRE(labelled.ok());
  CHECK(std::get<RetryRequest>(*labelled).select.label == "nightly");
  CHECK(std::get<RetryRequest>(*labelled).select.states == by_label.select.states);
  CHECK_FALSE(DecodeRequest(R"({"proto":1,"type":"retry","states":["succeeded"]})").ok());

  QueueRequest q;
  q.action = "set";
  q.name = "slow";
  q.concurrency = 2;
  auto back = DecodeRequest(EncodeRequest(q));
  REQUIRE(back.ok());
  CHECK(std::get<QueueRequest>(*back).concurrency == 2);
  q.concurrency.reset();
  CHECK_FALSE(DecodeRequest(EncodeRequest(q)).ok());
  q.action = "explode";
  CHECK(DecodeRequest(EncodeRequest(q)).status().field() == "action");
  QueueRequest bad_name;
  bad_name.action = "pause";
  bad_name.name = "a b";
  CHECK(DecodeRequest(EncodeRequest(bad_name)).status().field() == "name");
}

// A refusal of `payload` with `field`, and a message naming the field and containing `part`.
void CheckRefused(const std::string& payload, const std::string& field, const std::string& part) {
  CAPTURE(payload);
  auto r = DecodeRequest(payload);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().field() == field);
  const std::string& msg = r.status().message();
  CAPTURE(msg);
  const bool element = field.rfind("index:", 0) == 0;  // a batch element: "tasks[N]: ..."
  CHECK(msg.rfind(element ? "tasks[" + field.substr(6) + "]: " : field + ": ", 0) == 0);
  CHECK(msg.find(part) != std::string::npos);
}

std::string Submit(const std::string& extra) {
  return "{\"proto\":1,\"type\":\"submit\",\"argv\":[\"x\"]," + extra + "}";
}

TEST_CASE("nesting past the limit is refused while parsing, even a million levels deep") {
  // The issue's crash: a batch whose common part holds an array nested a million deep.
  const size_t depth = 1'000'000;
  std::string payload = "{\"proto\":1,\"type\":\"submit_batch\",\"tasks\":[{}],\"common\":{\"x\":";
  payload.append(depth, '[');
  payload.append(depth, ']');
  payload += "}}";
  auto r = DecodeRequest(payload);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().field() == "frame");
  CHECK(r.status().message() == "frame: JSON nested deeper than the limit of 8 levels");

  // Objects count too, and so does an unterminated document.
  std::string objects;
  for (int i = 0; i < 9; ++i) objects += "{\"a\":";
  objects += "1";
  objects.append(9, '}');
  CHECK(DecodeRequest(objects).status().code() == ErrorCode::kLimit);
  CHECK(DecodeRequest(std::string(depth, '[')).status().code() == ErrorCode::kLimit);
  // Eight levels are still fine (the unknown field is ignored).
  CHECK(DecodeRequest("{\"proto\":1,\"type\":\"ping\",\"x\":[[[[[[[1]]]]]]]}").ok());
}

TEST_CASE("the deepest real request, a batch of non-UTF-8 argv, is within the depth limit") {
  SubmitRequest common;
  SubmitBatchRequest b;
  b.common = SubmitToJson(common);
  b.tasks = {{{"argv", {BytesToJson("\xff"), "y"}}, {"env", {BytesToJson("A=\xfe")}}}};
  auto r = DecodeRequest(EncodeRequest(b));
  REQUIRE(r.ok());
  const auto& got = std::get<SubmitBatchRequest>(*r).resolved;
  REQUIRE(got.size() == 1);
  CHECK(got[0].spec.argv == std::vector<std::string>{"\xff", "y"});
  CHECK(got[0].spec.env == std::vector<std::string>{"A=\xfe"});
}

TEST_CASE("a frame of more values than the limit is refused while parsing") {
  std::string payload = "{\"proto\":1,\"type\":\"wait\",\"ids\":[";
  for (size_t i = 0; i < kMaxJsonValues; ++i) payload += "1,";
  payload += "1]}";
  auto r = DecodeRequest(payload);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().message() == "frame: more than the limit of 1048576 JSON values");
  // The largest real request of ids still decodes.
  CHECK(DecodeRequest(EncodeRequest(WaitRequest{Ids(std::vector<TaskId>(kMaxWaitIds, 1))})).ok());
}

TEST_CASE("integers must be JSON integers that fit, else the field is named") {
  CheckRefused(Submit("\"priority\":3.7"), "priority", "got 3.7");
  CheckRefused(Submit("\"priority\":1e300"), "priority", "expected an integer 1..5");
  CheckRefused(Submit("\"priority\":2.0"), "priority", "got 2.0");
  CheckRefused(Submit("\"priority\":4294967298"), "priority", "got 4294967298");
  CheckRefused(Submit("\"priority\":\"2\""), "priority", "got a string");
  CheckRefused(Submit("\"retries\":1.5"), "retries", "got 1.5");
  CheckRefused(Submit("\"after\":[1.5]"), "after", "task ids");
  CheckRefused(Submit("\"retry_on_exit\":[1e2]"), "retry_on_exit", "exit codes");
  CheckRefused(Submit("\"timeout_ms\":1e300"), "timeout_ms", "got 1e+300");
  CheckRefused(Submit("\"timeout_ms\":18446744073709551615"), "timeout_ms",
               "got 18446744073709551615");
  CheckRefused(Submit("\"version\":0.5"), "version", "an integer");
  CheckRefused(Submit("\"clean_env\":1"), "clean_env", "true or false");
  CheckRefused("{\"proto\":1,\"type\":\"status\",\"id\":7.5}", "id", "got 7.5");
  CheckRefused("{\"proto\":1,\"type\":\"wait\",\"ids\":[1,2.5]}", "ids", "task ids");
  CheckRefused("{\"proto\":1,\"type\":\"logs\",\"id\":1,\"offset\":1e3}", "offset", "byte offset");
  CheckRefused("{\"proto\":1,\"type\":\"list\",\"limit\":10.0}", "limit", "an integer");
  // The same in a batch: the element and the common part both count.
  CheckRefused(
      "{\"proto\":1,\"type\":\"submit_batch\",\"common\":{\"priority\":3.5},"
      "\"tasks\":[{\"argv\":[\"x\"]}]}",
      "index:0", "tasks[0]: priority: expected an integer 1..5, got 3.5");
  auto ok = DecodeRequest(Submit("\"priority\":2,\"timeout_ms\":1000"));
  REQUIRE(ok.ok());
  CHECK(std::get<SubmitRequest>(*ok).spec.priority == 2);
}

TEST_CASE("durations and times have a range, and a refusal names the field and the range") {
  const std::string max_duration = std::to_string(kMaxDurationMs);
  const std::string over_duration = std::to_string(kMaxDurationMs + 1);
  for (const char* field : {"timeout_ms", "pending_ttl_ms", "backoff_base_ms", "backoff_max_ms"}) {
    CAPTURE(field);
    const std::string f = std::string("\"") + field + "\":";
    CHECK(DecodeRequest(Submit(f + max_duration)).ok());
    CheckRefused(
        Submit(f + over_duration), field,
        over_duration + " is out of range 0.." + max_duration + " (milliseconds, up to 100 years)");
    CheckRefused(Submit(f + "-1"), field, "-1 is out of range 0..");
    CheckRefused(Submit(f + "9223372036854775807"), field, "out of range");
  }
  CHECK(DecodeRequest(Submit("\"not_before_ms\":253402300799999")).ok());
  CheckRefused(Submit("\"not_before_ms\":99999999999999000"), "not_before_ms",
               "99999999999999000 is out of range 0..253402300799999 (milliseconds since the "
               "epoch, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)");
  CheckRefused(Submit("\"not_before_ms\":-1"), "not_before_ms", "out of range");
}

TEST_CASE(
    "each request's frame carries the type RequestType names, and an unknown type lists them") {
  const std::vector<std::pair<Request, std::string>> cases = {
      {SubmitRequest{}, "submit"},
      {SubmitBatchRequest{}, "submit_batch"},
      {StatusRequest{}, "status"},
      {ListRequest{}, "list"},
      {WaitRequest{}, "wait"},
      {CancelRequest{}, "cancel"},
      {RetryRequest{}, "retry"},
      {CleanRequest{}, "clean"},
      {LogsRequest{}, "logs"},
      {UpdateRequest{}, "update"},
      {HoldRequest{}, "hold"},
      {QueueRequest{}, "queue"},
      {JobsRequest{}, "jobs"},
      {JobRunRequest{}, "job_run"},
      {JobEnableRequest{}, "job_enable"},
      {ReloadRequest{}, "reload"},
      {CrontabRequest{}, "crontab"},
      {StatsRequest{}, "stats"},
      {ResourcesRequest{}, "resources"},
      {HostsRequest{}, "hosts"},
      {EventsRequest{}, "events"},
      {PingRequest{}, "ping"}};
  CHECK(cases.size() == std::variant_size_v<Request>);
  for (const auto& [request, type] : cases) {
    CHECK(RequestType(request) == type);
    CHECK(json::parse(EncodeRequest(request))["type"] == type);
  }
  auto r = DecodeRequest("{\"proto\":1,\"type\":\"frobnicate\"}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().field() == "type");
  CHECK(r.status().message() ==
        "type: \"frobnicate\" is not a request (submit submit_batch status list wait cancel "
        "retry clean logs update hold queue jobs job_run job_enable reload crontab stats resources "
        "hosts events ping)");
}

TEST_CASE("a request may say for whom it is sent (as_user), as a user name") {
  auto plain = DecodeEnvelope(EncodeRequest(PingRequest{}));
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->as_user.has_value());
  auto named = DecodeEnvelope(EncodeRequest(StatusRequest{.id = 7}, std::string("alice")));
  REQUIRE(named.ok());
  CHECK(named->as_user == "alice");
  CHECK(std::get<StatusRequest>(named->request).id == 7);
  for (const char* frame :
       {R"({"proto":1,"type":"ping","as_user":"no body"})",
        R"({"proto":1,"type":"ping","as_user":""})", R"({"proto":1,"type":"ping","as_user":7})"}) {
    CAPTURE(frame);
    auto r = DecodeEnvelope(frame);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "as_user");
  }
}

}  // namespace
}  // namespace tq
