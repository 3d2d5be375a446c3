// A user's own job file: its jobs are the user's and named USER/NAME, and what only root may ask
// (another user, a raised priority, limits, thousands of jobs) is refused naming file and line.
#include "core/jobs/user_job_file.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

const std::string kPath = "/state/crontabs/alice.toml";

std::string UserJob(const std::string& name, const std::string& extra = "") {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"@daily\"\ncommand = \"true\"\n" + extra;
}

// A job firing on `schedule`.
std::string Every(const std::string& name, const std::string& schedule) {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"" + schedule + "\"\ncommand = \"true\"\n";
}

TEST_CASE("UserFiringsPerDay: at most how often a schedule fires in a day") {
  const struct {
    const char* schedule;
    int64_t per_day;
  } cases[] = {{"* * * * *", 1440},    {"0 * * * *", 24},   {"*/5 9-17 * * 1-5", 108},
               {"@daily", 1},          {"@every 1m", 1440}, {"@every 7m", 206},
               {"30 * * * * *", 1440}, {"@reboot", 0},      {"0 3 1 1 *", 1}};
  for (const auto& c : cases) {
    CAPTURE(c.schedule);
    auto expr = ParseCron(c.schedule);
    REQUIRE(expr.ok());
    CHECK(UserFiringsPerDay(*expr) == c.per_day);
  }
}

TEST_CASE("ParseUserJobFile: once a minute is the finest schedule, and about 100 such jobs fit") {
  std::string file;
  for (int i = 0; i < 98; ++i) file += Every("j" + std::to_string(i), "* * * * *");
  file += Every("sec", "30 * * * * *") + Every("slow", "@every 1m") + Every("boot", "@reboot");
  auto parsed = ParseUserJobFile(file, kPath, "alice");
  CHECK_MESSAGE(parsed.ok(), parsed.status().message());
}

TEST_CASE("ParseUserJobFile: the user's jobs, named USER/NAME") {
  auto file =
      ParseUserJobFile(UserJob("a") + UserJob("b", "user = \"alice\"\nnice = 5\n"), kPath, "alice");
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  REQUIRE(file->jobs.size() == 2);
  CHECK(file->jobs[0].name == "alice/a");
  CHECK(file->jobs[0].user == "alice");
  CHECK(file->jobs[1].name == "alice/b");
  CHECK(file->jobs[1].resources.nice == 5);
}

TEST_CASE("ParseUserJobFile: a user may narrow a job's cgroup") {
  auto file = ParseUserJobFile(
      UserJob("a", "memory_max = \"1GiB\"\npids_max = 64\ncpu_weight = 100\n"), kPath, "alice");
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  CHECK(file->jobs[0].resources.memory_max == 1LL << 30);
  CHECK(file->jobs[0].resources.pids_max == 64);
  CHECK(file->jobs[0].resources.cpu_weight == 100);
}

TEST_CASE("ParseUserJobFile: what only root may ask is refused with file, key and the key's line") {
  struct Case {
    std::string text;
    const char* message;
  };
  std::string many;
  for (int i = 0; i <= 1000; ++i) many += UserJob("j" + std::to_string(i));
  std::string busy;  // 101 jobs that fire every minute
  for (int i = 0; i <= 100; ++i) busy += Every("j" + std::to_string(i), "* * * * *");
  const Case cases[] = {
      {UserJob("a", "user = \"root\"\n"), "alice.toml:5: user: \"root\" is not allowed"},
      {UserJob("a") + UserJob("b", "nice = -1\n"), "alice.toml:9: nice: -1 is not allowed"},
      {"[defaults]\nnice = -1\n" + UserJob("a"), "alice.toml:2: nice: -1 is not allowed"},
      {UserJob("a", "ionice = \"realtime:0\"\n"), "ionice: \"realtime:0\" is not allowed"},
      {UserJob("a", "nofile = 100000\n"), "nofile: is not allowed in a user's job file"},
      {UserJob("a", "nproc = 10\n"), "nproc: is not allowed"},
      {UserJob("a", "core = 0\n"), "core: is not allowed"},
      {UserJob("a", "cpu_weight = 101\n"),
       "cpu_weight: 101 is not allowed in a user's job file (use "
       "1 to 100"},
      {many, "alice.toml:4001: job: 1001 jobs are more than a user's job file may hold (1000)"},
      {Every("a", "@every 59s"),
       "alice.toml:3: schedule: \"@every 59s\" fires more than once a minute"},
      {Every("a", "*/10 * * * * *"), "schedule: \"*/10 * * * * *\" fires more than once a minute"},
      {busy,
       "alice.toml:403: schedule: with job \"j100\" the file's jobs fire up to 145440 times a "
       "day, more than a user's job file may (144000"},
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
