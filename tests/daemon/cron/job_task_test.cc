// The task of a job's run: its command, environment, directory, labels and settings.
#include "daemon/cron/job_task.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

JobDef TaskJob() {
  JobDef job;
  job.name = "report";
  job.command = "make report";
  job.env = {"A=1"};
  job.queue = "cron";
  job.priority = 1;
  job.timeout_ms = 7200'000;
  job.pending_ttl_ms = 60'000;
  job.stdin_data = "input";
  return job;
}

TEST_CASE("job task: a command runs by the job's shell") {
  struct Case {
    const char* shell;
    std::optional<std::string> spec_shell;
    std::vector<std::string> argv;
  };
  const Case cases[] = {
      {"/bin/sh", "make report", {}},
      {"/bin/bash", std::nullopt, {"/bin/bash", "-c", "make report"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.shell);
    JobDef job = TaskJob();
    job.shell = c.shell;
    const TaskSpec spec = JobTaskSpec(job, "/home/u", RetryPolicy{}, 0, true);
    CHECK(spec.shell == c.spec_shell);
    CHECK(spec.argv == c.argv);
  }
}

TEST_CASE("job task: argv, settings, environment and directory") {
  JobDef job = TaskJob();
  job.command.reset();
  job.argv = {"/usr/bin/report", "--all"};
  RetryPolicy retry;
  retry.retries = 3;
  TaskSpec spec = JobTaskSpec(job, "/home/u", retry, 123, false);
  CHECK(spec.argv == job.argv);
  CHECK_FALSE(spec.shell.has_value());
  CHECK(spec.labels == std::vector<std::string>{"job:report"});
  CHECK(spec.job == "report");
  CHECK_FALSE(spec.job_exclusive);
  CHECK(spec.clean_env);
  CHECK(spec.env == std::vector<std::string>{"A=1"});
  CHECK(spec.cwd == "/home/u");
  CHECK(spec.queue == "cron");
  CHECK(spec.priority == 1);
  CHECK(spec.timeout_ms == 7200'000);
  CHECK(spec.pending_ttl_ms == 60'000);
  CHECK(spec.stdin_data == "input");
  CHECK(spec.retry.retries == 3);
  CHECK(spec.not_before == 123);
  job.cwd = "/srv";
  spec = JobTaskSpec(job, "/home/u", retry, 0, true);
  CHECK(spec.cwd == "/srv");
  CHECK(spec.job_exclusive);
}

}  // namespace
}  // namespace tq
