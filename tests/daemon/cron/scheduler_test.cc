// The cron scheduler inside a daemon driven by a fake clock and a fake runner over a real store
// and a temporary jobs directory: firings on time, misfire over a downtime, a clock stepped
// back, overlap with long runs, @every, @reboot, reloads that break, enable and disable.
#include "daemon/cron/scheduler.h"

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/store/sqlite/sqlite_store.h"
#include "daemon/daemon.h"
#include "support/fake_clock.h"
#include "support/fake_runner.h"
#include "support/refused_commits.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

// 2027-01-15T08:00:00Z: FakeClock's start, on a whole hour.
constexpr WallMs kStart = 1'800'000'000'000;
constexpr int64_t kSchedulerMinute = 60'000;
constexpr int64_t kHour = 60 * kSchedulerMinute;

// A daemon over a state directory and a jobs directory that outlive it, so a test can stop it
// and open another one on the same state (a restart).
struct SchedulerFixture {
  TempDir dir{"scheduler"};
  FakeClock clock{kStart};
  FakeRunner* runner = nullptr;
  std::unique_ptr<Daemon> daemon;
  std::string boot_id = "boot-1";

  SchedulerFixture() { std::filesystem::create_directory(JobsDir()); }

  std::string JobsDir() const { return dir.File("jobs.d"); }

  // Opens a daemon (the scheduler starts in Open) and lets it handle what is ready.
  void Open() {
    Config config;
    config.durability_full = false;
    config.max_running = 100;
    DaemonOptions options;
    options.state_dir = dir.File("state");
    options.jobs_dir = JobsDir();
    options.boot_id = boot_id;
    options.config = std::make_shared<const Config>(std::move(config));
    options.make_runner = FakeRunner::Maker(clock, &runner);
    daemon = std::make_unique<Daemon>(std::move(options), clock);
    Status st = daemon->Open();
    REQUIRE_MESSAGE(st.ok(), st.message());
    daemon->RunReady();
  }
  // Stops the daemon; what runs stays running in the store, as under real shims.
  void Close() {
    daemon.reset();
    runner = nullptr;
  }

  void Write(const std::string& file, const std::string& text) {
    std::ofstream(dir.path / "jobs.d" / file, std::ios::trunc) << text;
  }
  void Remove(const std::string& file) { std::filesystem::remove(dir.path / "jobs.d" / file); }

  Scheduler& scheduler() { return daemon->scheduler(); }
  Store& store() { return daemon->store(); }

  void Advance(int64_t ms) {
    clock.Advance(ms);
    daemon->RunReady();
  }
  // Moves the fake clock to `t` (forward) and lets the daemon react.
  void AdvanceTo(WallMs t) { Advance(t - clock.WallNow()); }
  // Steps the wall clock as an administrator would, and tells the daemon as the timerfd does.
  void StepWall(int64_t ms) {
    clock.StepWall(ms);
    scheduler().OnClockSet();
    daemon->RunReady();
  }

  // The tasks of job `name`, oldest first.
  std::vector<Task> Runs(const std::string& name) {
    ListFilter filter;
    filter.label = "job:" + name;
    filter.limit = 1000;
    auto tasks = store().List(filter);
    REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
    std::vector<Task> out(tasks->rbegin(), tasks->rend());
    return out;
  }
  Task Get(TaskId id) {
    auto task = store().Get(id);
    REQUIRE_MESSAGE(task.ok(), task.status().message());
    return *task;
  }
  JobInfo Info(const std::string& name) {
    auto info = scheduler().Job(name);
    REQUIRE_MESSAGE(info.ok(), info.status().message());
    return *info;
  }
  // Ends every running attempt with exit code 0.
  void FinishAll() {
    for (TaskId id : runner->Running()) runner->Exit(id, 0);
    daemon->RunReady();
  }
};

// One job in UTC named `name` with `schedule` and the extra `keys` lines.
std::string SchedulerJobText(const std::string& name, const std::string& schedule,
                             const std::string& keys = "") {
  return "[[job]]\nname = \"" + name + "\"\nschedule = \"" + schedule +
         "\"\ntimezone = \"UTC\"\ncommand = \"echo " + name + "\"\n" + keys;
}

TEST_CASE("scheduler: a job fires at its time as a task labelled with its job") {
  SchedulerFixture f;
  f.Write("a.toml",
          SchedulerJobText("tick", "* * * * *",
                           "env = { GREETING = \"hi\" }\nqueue = \"cron\"\npriority = 2\n"));
  f.Open();
  CHECK(f.scheduler().Errors().empty());
  REQUIRE(f.scheduler().Jobs().size() == 1);
  CHECK(f.Info("tick").next == kStart + kSchedulerMinute);
  f.Advance(kSchedulerMinute - 1);
  CHECK(f.Runs("tick").empty());
  f.Advance(1);
  auto runs = f.Runs("tick");
  REQUIRE(runs.size() == 1);
  const TaskSpec spec = f.Get(runs[0].id).spec;  // List leaves env out
  CHECK(spec.job == "tick");
  CHECK(spec.labels == std::vector<std::string>{"job:tick"});
  CHECK(spec.shell == "echo tick");
  CHECK(spec.clean_env);
  CHECK(std::count(spec.env.begin(), spec.env.end(), "GREETING=hi") == 1);
  CHECK(spec.queue == "cron");
  CHECK(spec.priority == 2);
  CHECK(f.runner->Running() == std::vector<TaskId>{runs[0].id});
  const JobInfo info = f.Info("tick");
  CHECK(info.last_fired == kStart + kSchedulerMinute);
  CHECK(info.last_task == runs[0].id);
  CHECK(info.next == kStart + 2 * kSchedulerMinute);
}

TEST_CASE("scheduler: the misfire policy decides the runs missed while the daemon was down") {
  struct Case {
    const char* misfire;
    size_t runs_at_start;  // hourly, down from 09:00 to 14:30: 10..14 were missed
  };
  const Case cases[] = {{"skip", 0}, {"run_once", 1}, {"run_all", 3}};
  for (const Case& c : cases) {
    CAPTURE(c.misfire);
    SchedulerFixture f;
    f.Write("a.toml", SchedulerJobText("hourly", "0 * * * *",
                                       std::string("misfire = \"") + c.misfire +
                                           "\"\nmax_catch_up = 3\noverlap = \"allow\"\n"));
    f.Open();
    f.AdvanceTo(kStart + kHour);
    REQUIRE(f.Runs("hourly").size() == 1);
    f.FinishAll();
    f.Close();
    f.clock.Advance(5 * kHour + 30 * kSchedulerMinute);
    f.Open();
    CHECK(f.Runs("hourly").size() == 1 + c.runs_at_start);
    // Each catch-up is a run of its own time; the next firing is the next hour, on time.
    f.FinishAll();
    f.AdvanceTo(kStart + 7 * kHour - 1);
    CHECK(f.Runs("hourly").size() == 1 + c.runs_at_start);
    f.Advance(1);
    CHECK(f.Runs("hourly").size() == 2 + c.runs_at_start);
  }
}

TEST_CASE(
    "scheduler: run_all catches up one run per missed firing whatever the overlap, each "
    "waiting its turn") {
  for (const char* overlap : {"skip", "queue", "replace"}) {
    CAPTURE(overlap);
    SchedulerFixture f;
    f.Write("a.toml",
            SchedulerJobText("hourly", "0 * * * *",
                             std::string("misfire = \"run_all\"\nmax_catch_up = 3\noverlap = \"") +
                                 overlap + "\"\n"));
    f.Open();
    f.AdvanceTo(kStart + kHour);
    REQUIRE(f.Runs("hourly").size() == 1);
    f.FinishAll();
    f.Close();
    f.clock.Advance(5 * kHour + 30 * kSchedulerMinute);  // down from 09:00 to 14:30: 10..14 missed
    f.Open();
    const auto runs = f.Runs("hourly");
    REQUIRE(runs.size() == 4);
    // Every catch-up run is exclusive: the store starts one only while no other runs.
    for (size_t i = 1; i < runs.size(); ++i) CHECK(runs[i].spec.job_exclusive);
  }
}

TEST_CASE("scheduler: a job new since the last start does not catch up times before it") {
  SchedulerFixture f;
  f.Open();
  f.Close();
  f.Write("a.toml", SchedulerJobText("hourly", "0 * * * *", "misfire = \"run_all\"\n"));
  f.clock.Advance(3 * kHour + 1);
  f.Open();
  CHECK(f.Runs("hourly").empty());
  CHECK(f.Info("hourly").next == kStart + 4 * kHour);
}

TEST_CASE("scheduler: a clock stepped back never fires a time twice") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("tick", "* * * * *"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  REQUIRE(f.Runs("tick").size() == 1);
  f.FinishAll();
  f.StepWall(-30'000);  // 08:00:30 again
  f.Advance(30'000);    // 08:01:00 a second time
  CHECK(f.Runs("tick").size() == 1);
  // Stepped back an hour and restarted: the stored last firing still holds.
  f.StepWall(-kHour);
  f.Close();
  f.Open();
  f.Advance(kHour);
  CHECK(f.Runs("tick").size() == 1);
  f.Advance(kSchedulerMinute);
  CHECK(f.Runs("tick").size() == 2);
}

TEST_CASE("scheduler: a clock stepped forward runs the missed firings by the misfire policy") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("hourly", "0 * * * *"));  // run_once
  f.Open();
  f.StepWall(10 * kHour + 5 * kSchedulerMinute);
  CHECK(f.Runs("hourly").size() == 1);
  CHECK(f.Info("hourly").next == kStart + 11 * kHour);
}

TEST_CASE("scheduler: overlap with a run that keeps running") {
  struct Case {
    const char* overlap;
    size_t tasks;    // after firings at 08:01, 08:02 and 08:03
    size_t running;  // while the first run still runs
  };
  const Case cases[] = {
      {"skip", 1, 1},
      {"queue", 2, 1},
      {"allow", 3, 3},
      {"replace", 3, 1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.overlap);
    SchedulerFixture f;
    f.Write("a.toml", SchedulerJobText("long", "* * * * *",
                                       std::string("overlap = \"") + c.overlap + "\"\n"));
    f.Open();
    f.AdvanceTo(kStart + kSchedulerMinute);
    const auto first = f.Runs("long");
    REQUIRE(first.size() == 1);
    const TaskId first_id = first[0].id;
    f.Advance(kSchedulerMinute);
    f.Advance(kSchedulerMinute);
    const auto runs = f.Runs("long");
    CHECK(runs.size() == c.tasks);
    CHECK(f.runner->Running().size() == c.running);
    if (std::string(c.overlap) == "replace") {
      // The first run is asked to stop; the second was replaced while pending; the third waits
      // until the first's processes are gone.
      REQUIRE(f.runner->StopOf(first_id).has_value());
      CHECK(f.runner->StopOf(first_id)->task_reason == TaskReason::kSuperseded);
      CHECK(f.Get(runs[1].id).state == TaskState::kCancelled);
      CHECK(f.Get(runs[1].id).reason == TaskReason::kSuperseded);
      f.runner->Exit(first_id, 143);
      f.daemon->RunReady();
      CHECK(f.Get(first_id).reason == TaskReason::kSuperseded);
      CHECK(f.runner->Running() == std::vector<TaskId>{runs[2].id});
    }
    if (std::string(c.overlap) == "queue") {
      f.runner->Exit(first_id, 0);
      f.daemon->RunReady();
      CHECK(f.runner->Running() == std::vector<TaskId>{runs[1].id});
    }
  }
}

TEST_CASE("scheduler: @every fires at each interval after the job was first seen") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("often", "@every 90s", "overlap = \"allow\"\n"));
  f.Open();
  f.Advance(89'999);
  CHECK(f.Runs("often").empty());
  f.Advance(1);
  CHECK(f.Runs("often").size() == 1);
  f.Advance(90'000);
  CHECK(f.Runs("often").size() == 2);
  CHECK(f.Info("often").next == kStart + 270'000);
}

TEST_CASE("scheduler: @reboot runs once per boot, not once per daemon start") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("boot", "@reboot"));
  f.Open();
  CHECK(f.Runs("boot").size() == 1);
  CHECK_FALSE(f.Info("boot").next.has_value());
  f.FinishAll();
  f.Close();
  f.clock.Advance(kSchedulerMinute);
  f.Open();
  CHECK(f.Runs("boot").size() == 1);
  f.Close();
  f.clock.Advance(kSchedulerMinute);
  f.boot_id = "boot-2";
  f.Open();
  CHECK(f.Runs("boot").size() == 2);
}

TEST_CASE("scheduler: an @reboot job added by a reload waits for the next boot") {
  SchedulerFixture f;
  f.Open();
  f.Write("a.toml", SchedulerJobText("boot", "@reboot"));
  CHECK(f.scheduler().Reload().added == 1);
  f.daemon->RunReady();
  CHECK(f.Runs("boot").empty());
  f.Close();
  f.clock.Advance(kSchedulerMinute);
  f.Open();
  CHECK(f.Runs("boot").empty());
  f.Close();
  f.clock.Advance(kSchedulerMinute);
  f.boot_id = "boot-2";
  f.Open();
  CHECK(f.Runs("boot").size() == 1);
}

TEST_CASE("scheduler: a broken reload keeps the old job firing and reports the file and line") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("tick", "* * * * *"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  REQUIRE(f.Runs("tick").size() == 1);
  f.FinishAll();
  f.Write("a.toml", SchedulerJobText("tick", "* * * * *", "colour = \"blue\"\n"));
  const ReloadReport report = f.scheduler().Reload();
  REQUIRE(report.errors.size() == 1);
  CHECK(report.errors[0].file == f.JobsDir() + "/a.toml");
  CHECK(report.errors[0].line == 6);
  CHECK(report.errors[0].message.find("colour") != std::string::npos);
  CHECK(report.jobs == 1);
  CHECK(report.removed == 0);
  CHECK(f.scheduler().Errors().size() == 1);
  CHECK(f.Info("tick").from_last_good);
  f.Advance(kSchedulerMinute);
  CHECK(f.Runs("tick").size() == 2);
  // Fixed again: the new text is in force, with no error left.
  f.Write("a.toml", SchedulerJobText("tick", "*/5 * * * *"));
  const ReloadReport fixed = f.scheduler().Reload();
  CHECK(fixed.errors.empty());
  CHECK(fixed.changed == 1);
  CHECK_FALSE(f.Info("tick").from_last_good);
  CHECK(f.Info("tick").next == kStart + 5 * kSchedulerMinute);
}

TEST_CASE("scheduler: a broken file and a restart still fire the last good job") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("tick", "* * * * *"));
  f.Open();
  f.Close();
  f.Write("a.toml", "[[job]\nname = \n");
  f.Open();
  REQUIRE(f.scheduler().Errors().size() == 1);
  CHECK(f.scheduler().Errors()[0].file == f.JobsDir() + "/a.toml");
  CHECK(f.Info("tick").from_last_good);
  f.Advance(kSchedulerMinute);
  CHECK(f.Runs("tick").size() == 1);
}

TEST_CASE("scheduler: a removed job stops firing and its running task is left alone") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("tick", "* * * * *"));
  f.Write("b.toml", SchedulerJobText("other", "0 0 1 1 *"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  const auto runs = f.Runs("tick");
  REQUIRE(runs.size() == 1);
  f.Remove("a.toml");
  const ReloadReport report = f.scheduler().Reload();
  CHECK(report.removed == 1);
  CHECK(report.jobs == 1);
  CHECK(report.files == 1);
  CHECK_FALSE(f.scheduler().Job("tick").ok());
  f.Advance(5 * kSchedulerMinute);
  CHECK(f.Runs("tick").size() == 1);
  CHECK(f.runner->Running() == std::vector<TaskId>{runs[0].id});
  CHECK_FALSE(f.runner->StopOf(runs[0].id).has_value());
  // Also across a restart: the removed file's last good text is forgotten.
  f.Close();
  f.Open();
  CHECK_FALSE(f.scheduler().Job("tick").ok());
}

TEST_CASE("scheduler: a reload reports the jobs added, removed and changed") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("one", "0 * * * *") + SchedulerJobText("two", "0 * * * *"));
  f.Open();
  f.Write("a.toml", SchedulerJobText("one", "0 * * * *") + SchedulerJobText("two", "30 * * * *") +
                        SchedulerJobText("three", "0 * * * *"));
  f.Write("b.toml", SchedulerJobText("four", "0 * * * *"));
  ReloadReport r = f.scheduler().Reload();
  CHECK(r.files == 2);
  CHECK(r.jobs == 4);
  CHECK(r.added == 2);
  CHECK(r.changed == 1);
  CHECK(r.removed == 0);
  f.Remove("b.toml");
  r = f.scheduler().Reload();
  CHECK(r.removed == 1);
  CHECK(r.added == 0);
  CHECK(r.changed == 0);
}

TEST_CASE("scheduler: a changed schedule plans from the job's last firing") {
  struct Case {
    const char* schedule;  // the new schedule, given at 12:00 after a firing at 09:00
    const char* misfire;
    size_t runs_at_reload;
    WallMs next;
  };
  constexpr WallMs kDay = 24 * kHour;
  const WallMs nine = kStart + kHour;  // kStart is 08:00 UTC
  const Case cases[] = {
      {"0 10 * * *", "run_once", 1, nine + kDay + kHour},  // 10:00 is after 09:00: missed
      {"0 10 * * *", "skip", 0, nine + kDay + kHour},
      {"0 8 * * *", "run_once", 0, kStart + kDay},  // 08:00 is before the last firing
  };
  for (const Case& c : cases) {
    CAPTURE(c.schedule);
    CAPTURE(c.misfire);
    SchedulerFixture f;
    const std::string keys = std::string("misfire = \"") + c.misfire + "\"\n";
    f.Write("a.toml", SchedulerJobText("daily", "0 9 * * *", keys));
    f.Open();
    f.AdvanceTo(nine);
    REQUIRE(f.Runs("daily").size() == 1);
    f.FinishAll();
    f.AdvanceTo(nine + 3 * kHour);
    f.Write("a.toml", SchedulerJobText("daily", c.schedule, keys));
    CHECK(f.scheduler().Reload().changed == 1);
    f.daemon->RunReady();
    CHECK(f.Runs("daily").size() == 1 + c.runs_at_reload);
    CHECK(f.Info("daily").next == c.next);
  }
}

TEST_CASE("scheduler: a name an earlier file defines is an error for the later file") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("same", "0 * * * *"));
  f.Write("b.toml", SchedulerJobText("same", "30 * * * *") + SchedulerJobText("own", "0 * * * *"));
  f.Open();
  REQUIRE(f.scheduler().Errors().size() == 1);
  CHECK(f.scheduler().Errors()[0].file == f.JobsDir() + "/b.toml");
  CHECK(f.scheduler().Errors()[0].message.find("already defined") != std::string::npos);
  CHECK(f.Info("same").def.schedule.text == "0 * * * *");
  CHECK_FALSE(f.scheduler().Job("own").ok());  // b.toml never loaded: no last good text
}

TEST_CASE("scheduler: disable and enable are persisted and skip the times in between") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("hourly", "0 * * * *"));  // run_once
  f.Open();
  REQUIRE(f.scheduler().SetEnabled("hourly", false).ok());
  CHECK(f.Info("hourly").disabled);
  CHECK_FALSE(f.Info("hourly").next.has_value());
  f.Advance(2 * kHour);
  CHECK(f.Runs("hourly").empty());
  f.Close();
  f.clock.Advance(kHour);
  f.Open();
  CHECK(f.Info("hourly").disabled);
  CHECK(f.Runs("hourly").empty());
  f.Advance(30 * kSchedulerMinute);
  REQUIRE(f.scheduler().SetEnabled("hourly", true).ok());
  f.daemon->RunReady();
  CHECK(f.Runs("hourly").empty());  // no catch-up for the hours it was disabled
  CHECK(f.Info("hourly").next == kStart + 4 * kHour);
  CHECK_FALSE(f.Info("hourly").last_fired.has_value());  // the passed times made no run
  f.AdvanceTo(kStart + 4 * kHour);
  CHECK(f.Runs("hourly").size() == 1);
  CHECK(f.Info("hourly").last_fired == kStart + 4 * kHour);
  REQUIRE(f.scheduler().SetEnabled("hourly", false).ok());
  f.Advance(2 * kHour);
  REQUIRE(f.scheduler().SetEnabled("hourly", true).ok());
  CHECK(f.Info("hourly").last_fired == kStart + 4 * kHour);  // still the firing that ran
  CHECK(f.scheduler().SetEnabled("nope", true).code() == ErrorCode::kNotFound);
}

TEST_CASE("scheduler: a job disabled in its file does not fire and cannot be enabled by name") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("off", "* * * * *", "enabled = false\n"));
  f.Open();
  f.Advance(5 * kSchedulerMinute + 30'000);
  CHECK(f.Runs("off").empty());
  const Status st = f.scheduler().SetEnabled("off", true);
  CHECK(st.code() == ErrorCode::kInvalid);
  CHECK(st.message().find("enabled = false") != std::string::npos);
  // Enabled in the file: it fires from then on, without the minutes it was off.
  f.Write("a.toml", SchedulerJobText("off", "* * * * *"));
  f.scheduler().Reload();
  f.daemon->RunReady();
  CHECK(f.Runs("off").empty());
  f.Advance(30'000);
  CHECK(f.Runs("off").size() == 1);
}

TEST_CASE("scheduler: run now obeys overlap unless forced") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("long", "0 0 1 1 *"));  // overlap skip
  f.Open();
  auto first = f.scheduler().RunNow("long", false);
  REQUIRE_MESSAGE(first.ok(), first.status().message());
  CHECK(first->action == OverlapAction::kCreate);
  REQUIRE(first->task.has_value());
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{*first->task});

  auto skipped = f.scheduler().RunNow("long", false);
  REQUIRE(skipped.ok());
  CHECK(skipped->action == OverlapAction::kSkip);
  CHECK_FALSE(skipped->task.has_value());

  auto forced = f.scheduler().RunNow("long", true);
  REQUIRE(forced.ok());
  CHECK(forced->action == OverlapAction::kCreate);
  REQUIRE(forced->task.has_value());
  CHECK_FALSE(f.Get(*forced->task).spec.job_exclusive);
  f.daemon->RunReady();
  CHECK(f.runner->Running() == std::vector<TaskId>{*first->task, *forced->task});
  CHECK(f.Runs("long").size() == 2);
  CHECK(f.Info("long").last_task == *forced->task);
  CHECK(f.scheduler().RunNow("nope", false).status().code() == ErrorCode::kNotFound);
}

TEST_CASE("scheduler: random_delay holds each run within its window") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("spread", "* * * * *", "random_delay = \"30s\"\n"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  const auto runs = f.Runs("spread");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].spec.not_before >= kStart + kSchedulerMinute);
  CHECK(runs[0].spec.not_before <= kStart + kSchedulerMinute + 30'000);
  f.AdvanceTo(kStart + kSchedulerMinute + 30'000);
  CHECK(f.runner->Running() == std::vector<TaskId>{runs[0].id});
}

TEST_CASE("scheduler: of a thousand jobs only those due fire") {
  SchedulerFixture f;
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += SchedulerJobText("job" + std::to_string(i), std::to_string(i % 60) + " 9 * * *");
  f.Write("a.toml", text);
  f.Open();
  CHECK(f.scheduler().Jobs().size() == 1000);
  f.AdvanceTo(kStart + kHour - 1);
  CHECK(f.runner->launches.empty());
  f.Advance(1);
  CHECK(f.runner->launches.size() == 17);  // job0, job60, ... at 09:00
}

TEST_CASE("scheduler: a firing the store cannot take is tried again, not lost") {
  SchedulerFixture f;
  // A run whose environment needs far more pages than the full store has left.
  std::string env = "env = { ";
  for (int i = 0; i < 8; ++i)
    env += (i ? ", " : "") + std::string("BIG") + std::to_string(i) + " = \"" +
           std::string(100'000, 'x') + "\"";
  f.Write("a.toml", SchedulerJobText("big", "* * * * *", env + " }\n"));
  f.Open();
  auto& sqlite = dynamic_cast<SqliteStore&>(f.store());
  REQUIRE(sqlite.LimitGrowth(4).ok());
  f.AdvanceTo(kStart + kSchedulerMinute);
  CHECK(f.Runs("big").empty());
  f.Advance(1000);  // tried again: still full
  CHECK(f.Runs("big").empty());
  REQUIRE(sqlite.LimitGrowth(1 << 20).ok());
  f.Advance(1000);
  const auto runs = f.Runs("big");
  REQUIRE(runs.size() == 1);  // the firing of 08:01, two seconds late, and only once
  CHECK(f.Info("big").last_fired == kStart + kSchedulerMinute);
  f.AdvanceTo(kStart + 2 * kSchedulerMinute);
  CHECK(f.Runs("big").size() == 1);  // overlap skip: the first run still runs
  CHECK(f.Info("big").last_fired == kStart + kSchedulerMinute);  // the skipped time made no run
}

TEST_CASE("scheduler: no jobs directory means no jobs and no error") {
  SchedulerFixture f;
  std::filesystem::remove(f.JobsDir());
  f.Open();
  CHECK(f.scheduler().Jobs().empty());
  CHECK(f.scheduler().Errors().empty());
  const ReloadReport r = f.scheduler().Reload();
  CHECK(r.files == 0);
  CHECK(r.errors.empty());
}

TEST_CASE("scheduler: a job gone from every file is forgotten by the store unless it has tasks") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("stays", "@yearly") + SchedulerJobText("idle", "@yearly") +
                        SchedulerJobText("ran", "* * * * *"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  REQUIRE(f.Runs("ran").size() == 1);
  f.Write("a.toml", SchedulerJobText("stays", "@yearly"));
  REQUIRE(f.scheduler().Reload().removed == 2);
  auto records = f.store().JobRecords();
  REQUIRE(records.ok());
  std::vector<std::string> names;
  for (const JobRecord& r : *records) names.push_back(r.job);
  CHECK(names == std::vector<std::string>{"ran", "stays"});  // ran's task is still kept
}

TEST_CASE("scheduler: the firings of one turn are stored in one commit") {
  SchedulerFixture f;
  std::string text;
  for (int i = 0; i < 50; ++i) text += SchedulerJobText("j" + std::to_string(i), "* * * * *");
  f.Write("a.toml", text);
  f.Open();
  REQUIRE(f.store().SetQueuePaused("default", true).ok());  // nothing starts: firings alone
  int commits = 0;
  f.store().ObserveCommits([&](double) { ++commits; });
  f.AdvanceTo(kStart + kSchedulerMinute);
  int runs = 0;
  for (int i = 0; i < 50; ++i) runs += static_cast<int>(f.Runs("j" + std::to_string(i)).size());
  CHECK(runs == 50);
  CHECK(commits <= 2);  // one for the 50 firings (and at most one of the daemon's own), not 50
}

// SPEC 6: a firing that replaces its job's run stops the old run only once the new one is
// stored. Its commit failing leaves the old run running, unsignalled, and tells nothing.
TEST_CASE("scheduler: a replacing firing whose commit fails stops nothing and tells nothing") {
  SchedulerFixture f;
  f.Write("a.toml", SchedulerJobText("long", "* * * * *", "overlap = \"replace\"\n"));
  f.Open();
  f.AdvanceTo(kStart + kSchedulerMinute);
  const auto first = f.Runs("long");
  REQUIRE(first.size() == 1);
  const TaskId old = first[0].id;
  REQUIRE(f.runner->Running() == std::vector<TaskId>{old});
  const uint64_t runs_before = f.daemon->counters().cron_firings["run"];

  RefusedCommits refused(f.store());
  f.Advance(kSchedulerMinute);
  CHECK(refused.refused >= 1);
  CHECK_FALSE(f.runner->StopOf(old).has_value());
  CHECK(f.Runs("long").size() == 1);
  CHECK(f.daemon->counters().cron_firings["run"] == runs_before);
  CHECK(f.daemon->counters().submitted["job"] == 1);

  refused.refusing = false;  // the firing is made again after its pause, and replaces then
  f.Advance(1000);
  const auto runs = f.Runs("long");
  REQUIRE(runs.size() == 2);
  REQUIRE(f.runner->StopOf(old).has_value());
  CHECK(f.runner->StopOf(old)->task_reason == TaskReason::kSuperseded);
  CHECK(f.daemon->counters().cron_firings["run"] == runs_before + 1);
  CHECK(f.daemon->counters().submitted["job"] == 2);
}

}  // namespace
}  // namespace tq
