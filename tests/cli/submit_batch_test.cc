#include "cli/commands/submit_batch.h"

#include <doctest/doctest.h>

#include "core/proto/batch_limits.h"

namespace tq {
namespace {

using nlohmann::json;

TEST_CASE("-0: an empty argument ends a task and so does the end of input") {
  struct Case {
    std::string input;
    std::vector<json> argvs;
  };
  const Case cases[] = {
      {std::string("a\0b\0\0c\0\0", 8), {json{"a", "b"}, json{"c"}}},
      {std::string("a\0b\0\0c\0", 7), {json{"a", "b"}, json{"c"}}},  // no empty terminator
      {std::string("a\0b\0\0c", 6), {json{"a", "b"}, json{"c"}}},    // no NUL at all
      {std::string("\0\0a\0\0\0", 6), {json{"a"}}},                  // empty tasks vanish
      {"", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(json(c.input).dump());
    auto batch = ParseBatch(c.input, BatchFormat::kNulArgv);
    REQUIRE(batch.ok());
    REQUIRE(batch->tasks.size() == c.argvs.size());
    for (size_t i = 0; i < c.argvs.size(); ++i) {
      CHECK(batch->tasks[i]["argv"] == c.argvs[i]);
      CHECK(batch->where[i] == "task " + std::to_string(i + 1));
    }
  }
}

TEST_CASE("shell lines: the last line needs no newline, blank lines are skipped") {
  auto batch = ParseBatch("echo a\n\n  \necho b", BatchFormat::kShellLines);
  REQUIRE(batch.ok());
  REQUIRE(batch->tasks.size() == 2);
  CHECK(batch->tasks[1]["shell"] == "echo b");
  CHECK(batch->where[1] == "line 4");
}

TEST_CASE("--json-lines refuses a field a submit does not have, naming the line and the field") {
  auto ok = ParseBatch("{\"argv\": [\"true\"], \"priority\": 1, \"labels\": [\"x\"]}\n",
                       BatchFormat::kJsonLines);
  REQUIRE(ok.ok());
  CHECK(ok->tasks.size() == 1);

  auto bad = ParseBatch("{\"argv\": [\"true\"]}\n{\"shell\": \"true\", \"priorty\": 1}\n",
                        BatchFormat::kJsonLines);
  REQUIRE(!bad.ok());
  CHECK(bad.status().code() == ErrorCode::kInvalid);
  CHECK(bad.status().message().find("line 2") != std::string::npos);
  CHECK(bad.status().message().find("\"priorty\"") != std::string::npos);
  CHECK(bad.status().message().find("priority") != std::string::npos);  // what is allowed

  auto not_object = ParseBatch("[1]\n", BatchFormat::kJsonLines);
  REQUIRE(!not_object.ok());
  CHECK(not_object.status().message().find("line 1") != std::string::npos);
}

TEST_CASE("--json-lines lines may carry stages, through to the requests") {
  auto batch = ParseBatch(
      "{\"stages\": [{\"name\": \"dump\", \"shell\": \"pg_dump db\"}, {\"name\": \"gz\", "
      "\"argv\": [\"gzip\", \"db.sql\"], \"retries\": 2}]}\n"
      "{\"argv\": [\"true\"]}\n",
      BatchFormat::kJsonLines);
  REQUIRE(batch.ok());
  SubmitRequest common;
  common.spec.queue = "backup";
  auto resolved = ResolveBatch(SubmitToJson(common), batch->tasks);
  REQUIRE_MESSAGE(resolved.ok(), resolved.status().message());
  REQUIRE(resolved->size() == 2);
  const TaskSpec& staged = (*resolved)[0].spec;
  CHECK(staged.queue == "backup");
  CHECK(staged.argv.empty());
  REQUIRE(staged.stages.size() == 2);
  CHECK(staged.stages[0].shell == std::optional<std::string>("pg_dump db"));
  CHECK(staged.stages[1].argv == std::vector<std::string>{"gzip", "db.sql"});
  CHECK(staged.stages[1].retry.retries == std::optional<int>(2));
  CHECK((*resolved)[1].spec.stages.empty());

  auto bad = ParseBatch("{\"stages\": [{\"name\": \"a b\", \"argv\": [\"true\"]}]}\n",
                        BatchFormat::kJsonLines);
  REQUIRE(bad.ok());
  auto refused = ResolveBatch(SubmitToJson(common), bad->tasks);
  REQUIRE(!refused.ok());
  CHECK(refused.status().message().find("\"a b\" is not a stage name") != std::string::npos);
}

}  // namespace
}  // namespace tq
