// Every response fits one frame: the largest task, a cancel of the most ids, and the request
// fields that page and bound them (list's before_id, logs' attempt, queue delete).
#include <doctest/doctest.h>

#include "core/model/limits.h"
#include "core/proto/framing.h"
#include "core/proto/protocol.h"

namespace tq {
namespace {

using nlohmann::json;

// The wire size of a response.
size_t WireSize(const json& response) {
  return response.dump(-1, ' ', false, json::error_handler_t::replace).size();
}

// A task as large as a submit may make it: every byte field full of control bytes (each
// escaped as \u00XX, six bytes on the wire) and more attempts than one response shows.
Task LargestTask() {
  Task t;
  t.id = INT64_MAX;
  t.state = TaskState::kFailed;
  t.reason = TaskReason::kDependencyFailed;
  const size_t per_arg = kMaxArgvBytes / kMaxArgvCount - 1;  // each argument and its NUL
  t.spec.argv.assign(kMaxArgvCount, std::string(per_arg, '\x01'));
  t.spec.cwd = std::string(kMaxCwdBytes, '\x01');
  t.spec.labels.assign(kMaxLabels, std::string(kMaxLabelBytes, '\x01'));
  t.spec.key = std::string(kMaxLabelBytes, '\x01');
  t.spec.after.assign(1000, INT64_MAX);
  t.attempt_count = 5000;
  for (int n = 1; n <= t.attempt_count; ++n) {
    Attempt a;
    a.number = n;
    a.started = 4102444800000;
    a.ended = a.started + 1;
    a.pid = INT32_MAX;
    a.exit_code = 255;
    a.reason = AttemptReason::kSpawnFailed;
    t.attempts.push_back(a);
  }
  return t;
}

TEST_CASE("the largest task fits a frame and shows its newest attempts") {
  const Task t = LargestTask();
  const json j = TaskToJson(t);
  CHECK(WireSize(OkResponse({{"task", j}})) < kMaxFrameBytes);
  REQUIRE(j["attempt_log"].size() == kMaxAttemptLog);
  CHECK(j["attempt_log"].back()["number"] == t.attempt_count);
  CHECK(j["attempt_log"].front()["number"] == t.attempt_count - kMaxAttemptLog + 1);
  CHECK(j["attempts"] == t.attempt_count);
}

TEST_CASE("a cancel of the most ids is answered within one frame") {
  Task t = LargestTask();
  t.state = TaskState::kCancelled;
  t.reason = TaskReason::kDependencyFailed;  // the longest reason
  t.exit_code = 255;
  t.signal = 64;
  json tasks = json::array();
  for (size_t i = 0; i < kMaxWaitIds; ++i) tasks.push_back(TaskSummaryJson(t));
  CHECK(WireSize(OkResponse({{"tasks", std::move(tasks)}})) < kMaxFrameBytes);
  const json one = TaskSummaryJson(t);
  CHECK(one["id"] == INT64_MAX);
  CHECK(one["state"] == "cancelled");
  CHECK(one["exit_code"] == 255);
  CHECK(one["signal"] == 64);
}

TEST_CASE("a list page of the most tasks of the largest size stays within a frame") {
  // The daemon stops a page before kMaxListPageBytes unless a single task is larger: so a page
  // holds at most the budget plus one task.
  const size_t largest = WireSize(TaskToJson(LargestTask()));
  CHECK(kMaxListPageBytes + largest + 64 < kMaxFrameBytes);
}

TEST_CASE("a working directory longer than PATH_MAX is refused") {
  TaskSpec s;
  s.argv = {"true"};
  s.cwd = std::string(kMaxCwdBytes + 1, 'd');
  auto r = DecodeRequest(EncodeRequest(SubmitRequest{s, {}, false, 0}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().field() == "cwd");
}

TEST_CASE("list, logs and queue requests carry their new fields") {
  ListRequest list;
  list.before_id = 42;
  list.limit = 7;
  auto l = DecodeRequest(EncodeRequest(list));
  REQUIRE(l.ok());
  CHECK(std::get<ListRequest>(*l).before_id == 42);
  CHECK(std::get<ListRequest>(*l).limit == 7);

  auto latest = DecodeRequest(EncodeRequest(LogsRequest{5, {}, false, false, 0, 0}));
  REQUIRE(latest.ok());
  CHECK(std::get<LogsRequest>(*latest).attempt == 0);
  auto second = DecodeRequest(EncodeRequest(LogsRequest{5, {}, true, false, 10, 2}));
  REQUIRE(second.ok());
  CHECK(std::get<LogsRequest>(*second).attempt == 2);

  auto del =
      DecodeRequest(EncodeRequest(QueueRequest{"delete", "old", std::nullopt, std::nullopt}));
  REQUIRE(del.ok());
  CHECK(std::get<QueueRequest>(*del).action == "delete");

  struct Case {
    const char* frame;
    const char* field;
  };
  const Case refused[] = {
      {R"({"proto":1,"type":"list","before_id":0})", "before_id"},
      {R"({"proto":1,"type":"list","before_id":"x"})", "before_id"},
      {R"({"proto":1,"type":"list","command":7})", "command"},
      {R"({"proto":1,"type":"logs","id":1,"attempt":-1})", "attempt"},
      {R"({"proto":1,"type":"queue","action":"delete","name":""})", "name"},
      {R"({"proto":1,"type":"queue","action":"drop","name":"q"})", "action"},
  };
  for (const Case& c : refused) {
    CAPTURE(c.frame);
    auto r = DecodeRequest(c.frame);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == c.field);
  }
}

TEST_CASE("a list's command filter goes over the wire and is bounded") {
  ListRequest list;
  list.command = "Backup --FULL";
  auto decoded = DecodeRequest(EncodeRequest(list));
  REQUIRE(decoded.ok());
  CHECK(std::get<ListRequest>(*decoded).command == "Backup --FULL");
  list.command = std::string(kMaxCommandFilterBytes, 'x');
  CHECK(DecodeRequest(EncodeRequest(list)).ok());
  list.command = std::string(kMaxCommandFilterBytes + 1, 'x');
  auto longer = DecodeRequest(EncodeRequest(list));
  REQUIRE_FALSE(longer.ok());
  CHECK(longer.status().message() == "command: 1025 bytes is longer than the 1024 allowed");
}

}  // namespace
}  // namespace tq
