#include "core/model/stage_progress.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

// A task of three stages: "dump" (argv, 60 s), "gz" (a shell command), "upload" (5 retries).
Task ThreeStages(TaskState state, int stage) {
  Task task;
  task.state = state;
  task.stage = stage;
  task.spec.timeout_ms = 9000;
  task.spec.retry.retries = 1;
  task.spec.retry.base_ms = 2000;
  task.spec.stages = {{"dump", {"pg_dump", "db"}, std::nullopt, 60000, {}},
                      {"gz", {}, "gzip db.sql", std::nullopt, {}},
                      {"upload", {"rclone"}, std::nullopt, std::nullopt, {}}};
  task.spec.stages[2].retry.retries = 5;
  return task;
}

TEST_CASE("StageStateOf: before the current stage succeeded, after it pending or skipped") {
  using S = TaskState;
  using G = StageState;
  struct Case {
    S state;
    int stage;
    G expected[3];
  };
  const Case cases[] = {
      {S::kPending, 0, {G::kPending, G::kPending, G::kPending}},
      {S::kRunning, 0, {G::kRunning, G::kPending, G::kPending}},
      {S::kPending, 1, {G::kSucceeded, G::kPending, G::kPending}},
      {S::kRunning, 2, {G::kSucceeded, G::kSucceeded, G::kRunning}},
      {S::kSucceeded, 2, {G::kSucceeded, G::kSucceeded, G::kSucceeded}},
      {S::kExpired, 2, {G::kSucceeded, G::kSucceeded, G::kSucceeded}},
      {S::kFailed, 1, {G::kSucceeded, G::kFailed, G::kSkipped}},
      {S::kFailed, 0, {G::kFailed, G::kSkipped, G::kSkipped}},
      {S::kCancelled, 2, {G::kSucceeded, G::kSucceeded, G::kCancelled}},
      {S::kCancelled, 1, {G::kSucceeded, G::kCancelled, G::kSkipped}},
  };
  for (const Case& c : cases) {
    CAPTURE(StateName(c.state));
    CAPTURE(c.stage);
    const Task task = ThreeStages(c.state, c.stage);
    for (size_t i = 0; i < 3; ++i) {
      CAPTURE(i);
      CHECK(std::string(StageStateName(StageStateOf(task, i))) == StageStateName(c.expected[i]));
    }
  }
}

TEST_CASE("what a stage runs with: its command, its own timeout and retries, else the task's") {
  const Task task = ThreeStages(TaskState::kPending, 0);
  CHECK(StageCommand(task.spec, 0) == std::vector<std::string>{"pg_dump", "db"});
  CHECK(StageCommand(task.spec, 1) == std::vector<std::string>{"/bin/sh", "-c", "gzip db.sql"});
  CHECK(StageTimeout(task.spec, 0) == 60000);
  CHECK(StageTimeout(task.spec, 1) == 9000);
  CHECK(StageRetry(task.spec, 0) == task.spec.retry);
  const RetryPolicy upload = StageRetry(task.spec, 2);
  CHECK(upload.retries == 5);
  CHECK(upload.base_ms == 2000);  // the task's, where the stage sets nothing
  CHECK_FALSE(IsLastStage(task.spec, 0));
  CHECK_FALSE(IsLastStage(task.spec, 1));
  CHECK(IsLastStage(task.spec, 2));
  CHECK(StageIndex(task.spec, "gz") == 1);
  CHECK_FALSE(StageIndex(task.spec, "GZ"));
  CHECK(StageName(task.spec, 2) == "upload");
  CHECK(StageName(task.spec, 3).empty());
  CHECK(StageAt(task.spec, -1) == nullptr);

  TaskSpec plain;
  plain.argv = {"make"};
  plain.timeout_ms = 7;
  CHECK(StageCommand(plain, 0) == std::vector<std::string>{"make"});
  plain.shell = "make all";
  CHECK(StageCommand(plain, 0) == std::vector<std::string>{"/bin/sh", "-c", "make all"});
  CHECK(StageTimeout(plain, 0) == 7);
  CHECK(IsLastStage(plain, 0));
  CHECK(StageName(plain, 0).empty());
}

TEST_CASE("stage names: 1 to 64 of A-Z a-z 0-9 _ . -") {
  for (const char* good : {"dump", "a", "Upload-2", "v1.2_x", "-", "."})
    CHECK_MESSAGE(ValidStageName(good), good);
  CHECK(ValidStageName(std::string(64, 'x')));
  for (const std::string& bad :
       {std::string(), std::string(65, 'x'), std::string("a b"), std::string("gz/x"),
        std::string("\xc3\xa9"), std::string("a\0b", 3), std::string("x=1")})
    CHECK_FALSE(ValidStageName(bad));
}

}  // namespace
}  // namespace tq
