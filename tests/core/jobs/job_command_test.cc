// The command of a job's run (SPEC 7, 13): a command by the job's shell, an argv, or stages,
// each stage's command by the job's shell too; and the task a firing creates carries them.
#include "core/jobs/job_command.h"

#include <doctest/doctest.h>

#include "daemon/cron/job_task.h"

namespace tq {
namespace {

// A stage running `command` by the job's shell, or `argv` directly when `command` is empty.
StageSpec JobStage(const std::string& name, const std::string& command,
                   std::vector<std::string> argv = {}) {
  StageSpec s;
  s.name = name;
  if (!command.empty()) s.shell = command;
  s.argv = std::move(argv);
  return s;
}

TEST_CASE("job command: a command, an argv, or stages, by the job's shell") {
  struct Case {
    const char* what;
    std::optional<std::string> command;
    std::vector<std::string> argv;
    std::string shell;
    std::optional<std::string> task_shell;
    std::vector<std::string> task_argv;
  };
  const Case cases[] = {
      {"command by /bin/sh", "make report", {}, "/bin/sh", "make report", {}},
      {"command by bash",
       "make report",
       {},
       "/bin/bash",
       std::nullopt,
       {"/bin/bash", "-c", "make report"}},
      {"argv",
       std::nullopt,
       {"/usr/bin/report", "--all"},
       "/bin/bash",
       std::nullopt,
       {"/usr/bin/report", "--all"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    JobDef job;
    job.command = c.command;
    job.argv = c.argv;
    job.shell = c.shell;
    TaskSpec spec;
    SetJobCommand(job, &spec);
    CHECK(spec.shell == c.task_shell);
    CHECK(spec.argv == c.task_argv);
    CHECK(spec.stages.empty());
  }
}

TEST_CASE("job command: each stage's command runs by the job's shell, its argv directly") {
  JobDef job;
  job.stages = {JobStage("dump", "pg_dump db > $TQ_CONTEXT/db.sql"),
                JobStage("upload", "", {"rclone", "copy"})};
  job.stages[1].timeout_ms = 60000;
  job.stages[1].retry.retries = 5;

  SUBCASE("by /bin/sh: the daemon's /bin/sh -c") {
    TaskSpec spec;
    SetJobCommand(job, &spec);
    CHECK(spec.argv.empty());
    CHECK_FALSE(spec.shell.has_value());
    REQUIRE(spec.stages.size() == 2);
    CHECK(spec.stages[0].name == "dump");
    CHECK(spec.stages[0].shell == std::optional<std::string>("pg_dump db > $TQ_CONTEXT/db.sql"));
    CHECK(spec.stages[0].argv.empty());
    CHECK(spec.stages[1].argv == std::vector<std::string>{"rclone", "copy"});
    CHECK_FALSE(spec.stages[1].shell.has_value());
    CHECK(spec.stages[1].timeout_ms == std::optional<int64_t>(60000));
    CHECK(spec.stages[1].retry.retries == std::optional<int>(5));
  }
  SUBCASE("by another shell: argv {shell, -c, command}") {
    job.shell = "/bin/bash";
    TaskSpec spec;
    SetJobCommand(job, &spec);
    REQUIRE(spec.stages.size() == 2);
    CHECK_FALSE(spec.stages[0].shell.has_value());
    CHECK(spec.stages[0].argv ==
          std::vector<std::string>{"/bin/bash", "-c", "pg_dump db > $TQ_CONTEXT/db.sql"});
    CHECK(spec.stages[1].argv == std::vector<std::string>{"rclone", "copy"});
  }
}

TEST_CASE("job command: the task of a firing carries the stages and the job's settings") {
  JobDef job;
  job.name = "nightly-backup";
  job.queue = "cron";
  job.timeout_ms = 7200000;
  job.stages = {JobStage("dump", "pg_dump db"), JobStage("gz", "gzip db.sql")};
  RetryPolicy retry;
  retry.retries = 2;
  const TaskSpec spec = JobTaskSpec(job, "/home/u", retry, 0, true);
  CHECK(spec.argv.empty());
  CHECK_FALSE(spec.shell.has_value());
  REQUIRE(spec.stages.size() == 2);
  CHECK(spec.stages[0].shell == std::optional<std::string>("pg_dump db"));
  CHECK(spec.stages[1].name == "gz");
  CHECK(spec.labels == std::vector<std::string>{"job:nightly-backup"});
  CHECK(spec.queue == "cron");
  CHECK(spec.timeout_ms == 7200000);
  CHECK(spec.retry.retries == 2);
}

}  // namespace
}  // namespace tq
