// A user's own job file: its jobs are the user's and named USER/NAME, and what only root may ask
// (another user, a raised priority, limits, thousands of jobs) is refused naming file and line.
#include "core/jobs/user_job_file.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

const std::string kPath = "/state/crontabs/alice.toml";

std::string Job(const std::string& name, const std::string& extra = "") {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"@daily\"\ncommand = \"true\"\n" + extra;
}

TEST_CASE("ParseUserJobFile: the user's jobs, named USER/NAME") {
  auto file = ParseUserJobFile(Job("a") + Job("b", "user = \"alice\"\nnice = 5\n"), kPath, "alice");
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  REQUIRE(file->jobs.size() == 2);
  CHECK(file->jobs[0].name == "alice/a");
  CHECK(file->jobs[0].user == "alice");
  CHECK(file->jobs[1].name == "alice/b");
  CHECK(file->jobs[1].resources.nice == 5);
}

TEST_CASE("ParseUserJobFile: a user may narrow a job's cgroup") {
  auto file = ParseUserJobFile(Job("a", "memory_max = \"1GiB\"\npids_max = 64\ncpu_weight = 100\n"),
                               kPath, "alice");
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  CHECK(file->jobs[0].resources.memory_max == 1LL << 30);
  CHECK(file->jobs[0].resources.pids_max == 64);
  CHECK(file->jobs[0].resources.cpu_weight == 100);
}

TEST_CASE("ParseUserJobFile: what only root may ask is refused with file, line and key") {
  struct Case {
    std::string text;
    const char* message;
  };
  std::string many;
  for (int i = 0; i <= 1000; ++i) many += Job("j" + std::to_string(i));
  const Case cases[] = {
      {Job("a", "user = \"root\"\n"), "alice.toml:1: user: \"root\" is not allowed"},
      {Job("a") + Job("b", "nice = -1\n"), "alice.toml:5: nice: -1 is not allowed"},
      {Job("a", "ionice = \"realtime:0\"\n"), "ionice: \"realtime:0\" is not allowed"},
      {Job("a", "nofile = 100000\n"), "nofile: is not allowed in a user's job file"},
      {Job("a", "nproc = 10\n"), "nproc: is not allowed"},
      {Job("a", "core = 0\n"), "core: is not allowed"},
      {Job("a", "cpu_weight = 101\n"),
       "cpu_weight: 101 is not allowed in a user's job file (use "
       "1 to 100"},
      {many, "alice.toml:4001: job: 1001 jobs are more than a user's job file may hold (1000)"},
  };
  for (const Case& c : cases) {
    auto file = ParseUserJobFile(c.text, kPath, "alice");
    REQUIRE_FALSE(file.ok());
    CAPTURE(file.status().message());
    CHECK(file.status().message().rfind(kPath + ":", 0) == 0);
    CHECK(file.status().message().find(c.message) != std::string::npos);
  }
}

}  // namespace
}  // namespace tq
