// The limits of a submit_batch request and how a batch resolves into its tasks: what tqd
// checks of a batch and where tq cuts a long one.
#include "core/proto/batch_limits.h"

#include <doctest/doctest.h>

#include "core/model/limits.h"
#include "core/proto/protocol.h"
#include "core/proto/submit_spec.h"

namespace tq {
namespace {

using nlohmann::json;

TEST_CASE("a batch lays each task over the common fields and names a bad element") {
  SubmitRequest common;
  common.spec.queue = "bulk";
  common.spec.priority = 2;
  const std::vector<nlohmann::json> tasks = {
      {{"shell", "echo a"}}, {{"argv", {"echo", "b"}}}, {{"argv", {"x"}}, {"priority", 5}}};
  auto resolved = ResolveBatch(SubmitToJson(common), tasks);
  REQUIRE(resolved.ok());
  REQUIRE(resolved->size() == 3);
  CHECK((*resolved)[0].spec.shell == "echo a");
  CHECK((*resolved)[1].spec.argv == std::vector<std::string>{"echo", "b"});
  CHECK((*resolved)[1].spec.queue == "bulk");
  CHECK((*resolved)[2].spec.priority == 5);

  auto bad = ResolveBatch(SubmitToJson(common), {{{"shell", "ok"}}, {{"priority", 9}}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().field() == "index:1");
  CHECK(bad.status().message().rfind("tasks[1]: ", 0) == 0);

  SubmitBatchRequest b;
  b.common = SubmitToJson(common);
  b.tasks = tasks;
  auto decoded = DecodeRequest(EncodeRequest(b));
  REQUIRE(decoded.ok());
  const auto& got = std::get<SubmitBatchRequest>(*decoded);
  CHECK(got.resolved.size() == 3);
  CHECK(got.tasks.empty());  // the daemon keeps only what it resolved
}

TEST_CASE("a batch's task count and merged payload are checked before anything is decoded") {
  SubmitRequest common;
  common.spec.argv = {"true"};
  SubmitBatchRequest b;
  b.common = SubmitToJson(common);
  b.tasks.assign(kMaxBatchTasks + 1, json::object());
  auto r = DecodeRequest(EncodeRequest(b));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().field() == "tasks");
  CHECK(r.status().message() == "tasks: 5001 tasks exceed the limit of 5000 per request");
  b.tasks.pop_back();
  CHECK(DecodeRequest(EncodeRequest(b)).ok());

  // A small element over a large common part: 100 tasks of 1 MiB of stdin each would merge to
  // 100 MiB from a frame of about 1.4 MiB.
  common.spec.stdin_data = std::string(1u << 20, '\xff');
  b.common = SubmitToJson(common);
  b.tasks.assign(100, json::object());
  const std::string frame = EncodeRequest(b);
  CHECK(frame.size() < (2u << 20));
  r = DecodeRequest(frame);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().field() == "tasks");
  CHECK(r.status().message().find("over the limit of 67108864 bytes") != std::string::npos);
  b.tasks.assign(60, json::object());
  CHECK(DecodeRequest(EncodeRequest(b)).ok());
}

TEST_CASE("a client cuts a batch where the daemon's limits fall") {
  SubmitRequest small;
  small.spec.argv = {"true"};  // 5 bytes
  CHECK(SubmitPayloadBytes(small) == 5);
  CHECK(BatchChunkEnds({}).empty());
  std::vector<SubmitRequest> tasks(kMaxBatchTasks * 2 + 1, small);
  CHECK(BatchChunkEnds(tasks) ==
        std::vector<size_t>{kMaxBatchTasks, 2 * kMaxBatchTasks, 2 * kMaxBatchTasks + 1});
  SubmitRequest big = small;
  big.spec.stdin_data = std::string(kMaxStdinBytes, 'x');  // 8 MiB: 7 fit in 64 MiB
  tasks.assign(15, big);
  CHECK(BatchChunkEnds(tasks) == std::vector<size_t>{7, 14, 15});
}

TEST_CASE("a batch of long commands is cut so each request stays within the value limit") {
  SubmitRequest wide;
  wide.spec.argv.assign(300, "a");  // 300 values, 600 bytes
  const std::vector<SubmitRequest> tasks(kMaxBatchTasks, wide);
  const std::vector<size_t> ends = BatchChunkEnds(tasks);
  REQUIRE(ends.size() > 1);
  CHECK(ends.back() == kMaxBatchTasks);
  SubmitBatchRequest b;
  for (size_t i = 0; i < ends[0]; ++i) b.tasks.push_back(SubmitToJson(tasks[i]));
  CHECK(DecodeRequest(EncodeRequest(b)).ok());
}

TEST_CASE("a batch element overrides the common part, null included, without copying it") {
  SubmitRequest common;
  common.spec.argv = {"echo", "common"};
  common.spec.priority = 2;
  const std::vector<json> tasks = {json::object(), {{"argv", {"x"}}, {"priority", nullptr}}};
  auto r = ResolveBatch(SubmitToJson(common), tasks);
  REQUIRE(r.ok());
  CHECK((*r)[0].spec.argv == common.spec.argv);
  CHECK((*r)[0].spec.priority == 2);
  CHECK((*r)[1].spec.argv == std::vector<std::string>{"x"});
  CHECK((*r)[1].spec.priority == TaskSpec{}.priority);  // null: the default, as if unset
}

}  // namespace
}  // namespace tq
