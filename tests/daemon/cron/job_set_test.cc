// Which jobs are in force after a load: good files in force and saved, failing files on their
// last good text, names unique across files, removed files forgotten.
#include "daemon/cron/job_set.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

std::string JobText(const std::string& name, const std::string& schedule = "0 * * * *") {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"" + schedule + "\"\ncommand = \"true\"\n";
}

JobFileRead Good(const std::string& path, const std::string& text) {
  return JobFileRead{path, text, std::nullopt, ""};
}

Status AnyUser(const JobDef&) {
  return Status::Ok();
}

std::vector<std::string> JobNames(const JobSetLoad& load) {
  std::vector<std::string> names;
  for (const LoadedJob& j : load.jobs)
    names.push_back(j.def.name + (j.from_last_good ? " (last good)" : ""));
  return names;
}

TEST_CASE("job set: good files are in force, saved when their text changed") {
  const std::vector<StoredJobFile> stored = {{"/j/a.toml", JobText("a"), 1}};
  const JobSetLoad load = ResolveJobFiles(
      {Good("/j/a.toml", JobText("a")), Good("/j/b.toml", JobText("b") + JobText("c"))}, stored,
      AnyUser, 50);
  CHECK(JobNames(load) == std::vector<std::string>{"a", "b", "c"});
  CHECK(load.errors.empty());
  REQUIRE(load.to_save.size() == 1);
  CHECK(load.to_save[0].path == "/j/b.toml");
  CHECK(load.to_save[0].saved == 50);
  CHECK(load.to_forget.empty());
  CHECK(load.jobs[1].def.file == "/j/b.toml");
}

TEST_CASE("job set: a failing file keeps its last good jobs and is not saved") {
  const std::vector<StoredJobFile> stored = {{"/j/a.toml", JobText("a") + JobText("a2"), 1},
                                             {"/j/gone.toml", JobText("g"), 1}};
  struct Case {
    const char* what;
    JobFileRead file;
    int line;
  };
  const Case cases[] = {
      {"syntax", Good("/j/a.toml", "[[job]\n"), 1},
      {"unknown key", Good("/j/a.toml", JobText("a") + "colour = 1\n"), 5},
      {"unreadable", JobFileRead{"/j/a.toml", "", JobLoadError{"/j/a.toml", 0, "cannot open"}, ""},
       0},
      {"non-UTF-8", Good("/j/a.toml", "[[job]]\nname = \"\xff\"\n"), 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const JobSetLoad load = ResolveJobFiles({c.file}, stored, AnyUser, 50);
    CHECK(JobNames(load) == std::vector<std::string>{"a (last good)", "a2 (last good)"});
    REQUIRE(load.errors.size() == 1);
    CHECK(load.errors[0].file == "/j/a.toml");
    CHECK(load.errors[0].line == c.line);
    CHECK(load.to_save.empty());
    CHECK(load.to_forget == std::vector<std::string>{"/j/gone.toml"});
  }
  // Without a last good text a failing file has no jobs.
  const JobSetLoad fresh = ResolveJobFiles({Good("/j/new.toml", "x")}, stored, AnyUser, 50);
  CHECK(fresh.jobs.empty());
  CHECK(fresh.errors.size() == 1);
}

TEST_CASE("job set: a job the check refuses fails its file") {
  const JobCheck no_bob = [](const JobDef& job) {
    if (job.name != "bob") return Status::Ok();
    return Status::Invalid("user", job.file + ":" + std::to_string(job.line) + ": user: no");
  };
  const std::vector<StoredJobFile> stored = {{"/j/a.toml", JobText("alice"), 1}};
  const JobSetLoad load =
      ResolveJobFiles({Good("/j/a.toml", JobText("alice") + JobText("bob"))}, stored, no_bob, 50);
  CHECK(JobNames(load) == std::vector<std::string>{"alice (last good)"});
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].line == 5);
  CHECK(load.errors[0].message == "/j/a.toml:5: user: no");
  // A last good job the check now refuses is not kept either.
  const JobSetLoad worse = ResolveJobFiles({Good("/j/a.toml", "broken")},
                                           {{"/j/a.toml", JobText("bob"), 1}}, no_bob, 50);
  CHECK(worse.jobs.empty());
}

TEST_CASE("job set: a name an earlier file holds fails the later file") {
  const std::vector<StoredJobFile> stored = {
      {"/j/b.toml", JobText("shared", "30 * * * *") + JobText("mine"), 1}};
  const JobSetLoad load =
      ResolveJobFiles({Good("/j/a.toml", JobText("shared")),
                       Good("/j/b.toml", JobText("shared", "15 * * * *") + JobText("mine"))},
                      stored, AnyUser, 50);
  // b.toml fails; of its last good text, the name a.toml took is dropped.
  CHECK(JobNames(load) == std::vector<std::string>{"shared", "mine (last good)"});
  CHECK(load.jobs[0].def.file == "/j/a.toml");
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].file == "/j/b.toml");
  CHECK(load.errors[0].line == 1);
  CHECK(load.errors[0].message ==
        "/j/b.toml:1: name: \"shared\" is already defined at /j/a.toml:1 (job names are unique "
        "across the job files)");
  REQUIRE(load.to_save.size() == 1);
  CHECK(load.to_save[0].path == "/j/a.toml");
}

TEST_CASE("job set: the same definition is told from a changed one") {
  JobDef a;
  a.name = "x";
  a.schedule.text = "0 * * * *";
  JobDef moved = a;
  moved.file = "/j/other.toml";
  moved.line = 40;
  CHECK(SameDefinition(a, moved));
  JobDef other_schedule = a;
  other_schedule.schedule.text = "5 * * * *";
  CHECK_FALSE(SameDefinition(a, other_schedule));
  JobDef other_retry = a;
  other_retry.retry.retries = 2;
  CHECK_FALSE(SameDefinition(a, other_retry));
  JobDef other_env = a;
  other_env.env = {"A=1"};
  CHECK_FALSE(SameDefinition(a, other_env));
  JobDef disabled = a;
  disabled.enabled = false;
  CHECK_FALSE(SameDefinition(a, disabled));
}

}  // namespace
}  // namespace tq
