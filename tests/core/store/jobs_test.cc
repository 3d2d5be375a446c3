// The store's contract for cron jobs (SPEC 7), run against every backend: each firing at most
// once, the job records, the last good job files, and the rule that an exclusive run of a job is
// never ready while another run of its job is running.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// The record of `job`; REQUIREs that the store knows it.
JobRecord RecordOf(Store& store, const std::string& job) {
  for (const JobRecord& r : MustJobRecords(store)) {
    if (r.job == job) return r;
  }
  FAIL("the store does not know job " << job);
  return {};
}

bool Knows(Store& store, const std::string& job) {
  Result<std::vector<JobRecord>> records = store.JobRecords();
  REQUIRE(records.ok());
  for (const JobRecord& r : *records) {
    if (r.job == job) return true;
  }
  return false;
}

size_t CountJobTasks(Store& store) {
  ListFilter all;
  all.limit = 0;
  Result<std::vector<Task>> tasks = store.List(all);
  REQUIRE(tasks.ok());
  return tasks->size();
}

JobRuns MustRunsOf(Store& store, const std::string& job) {
  Result<JobRuns> runs = store.RunsOf(job);
  REQUIRE_MESSAGE(runs.ok(), runs.status().message());
  return *runs;
}

bool StartRefused(Store& store, TaskId id, WallMs now) {
  Result<std::optional<int>> n = store.StartAttempt(id, now, {});
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  return !n->has_value();
}

void MustFinish(Store& store, TaskId id, int attempt, WallMs ended, TaskState state) {
  Result<std::vector<TaskId>> ended_tasks = store.FinishAttempt(
      id, attempt, Exited(ended, state == TaskState::kSucceeded ? 0 : 1), state, TaskReason::kExit);
  REQUIRE_MESSAGE(ended_tasks.ok(), ended_tasks.status().message());
}

int MustPromote(Store& store, WallMs now) {
  Result<int> n = store.PromoteDue(now, 100);
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  return *n;
}

std::optional<WallMs> MustNextDue(Store& store) {
  Result<std::optional<WallMs>> due = store.NextDue();
  REQUIRE_MESSAGE(due.ok(), due.status().message());
  return *due;
}

// ---- firings ----

STORE_TEST_CASE("a firing happens once per job and time and creates its task") {
  auto store = OpenStore();
  FireOutcome first = MustFire(*store, {"nightly", 5000, ""}, JobRun("nightly", true), 5100);
  CHECK(first.fired);
  REQUIRE(first.task.has_value());
  Task task = MustGet(*store, *first.task);
  CHECK(task.spec.job == std::optional<std::string>("nightly"));
  CHECK(task.spec.job_exclusive);
  CHECK(task.spec.labels == std::vector<std::string>{"job:nightly"});
  CHECK(task.created == 5100);
  CHECK(Ready(*store, "cron") == *first.task);

  // The same time again, or an earlier one, changes nothing.
  for (WallMs scheduled : {WallMs{5000}, WallMs{4000}, WallMs{0}}) {
    CAPTURE(scheduled);
    FireOutcome again = MustFire(*store, {"nightly", scheduled, ""}, JobRun("nightly", true), 5200);
    CHECK_FALSE(again.fired);
    CHECK_FALSE(again.task.has_value());
    CHECK(CountJobTasks(*store) == 1);
  }
  JobRecord record = RecordOf(*store, "nightly");
  CHECK(record.first_seen == 5100);
  CHECK(record.last_fired == std::optional<WallMs>(5000));
  CHECK(record.last_task == first.task);

  FireOutcome later = MustFire(*store, {"nightly", 6000, ""}, JobRun("nightly", true), 6000);
  CHECK(later.fired);
  REQUIRE(later.task.has_value());
  CHECK(*later.task != *first.task);
  record = RecordOf(*store, "nightly");
  CHECK(record.first_seen == 5100);
  CHECK(record.last_fired == std::optional<WallMs>(6000));
  CHECK(record.last_task == later.task);
}

STORE_TEST_CASE("the spec's own job name gives way to the firing's") {
  auto store = OpenStore();
  FireOutcome out = MustFire(*store, {"real", 1000, ""}, JobRun("other", false), 1000);
  REQUIRE(out.task.has_value());
  CHECK(MustGet(*store, *out.task).spec.job == std::optional<std::string>("real"));
  CHECK_FALSE(Knows(*store, "other"));
}

STORE_TEST_CASE("a task-less firing records its time and creates nothing") {
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"skipped"}, 100).ok());
  FireOutcome out = MustFire(*store, {"skipped", 1000, ""}, std::nullopt, 1000);
  CHECK(out.fired);
  CHECK_FALSE(out.task.has_value());
  CHECK(CountJobTasks(*store) == 0);
  JobRecord record = RecordOf(*store, "skipped");
  CHECK(record.first_seen == 100);
  CHECK(record.last_fired == std::optional<WallMs>(1000));
  CHECK_FALSE(record.last_task.has_value());
  CHECK_FALSE(record.last_state.has_value());
  // Recorded like any other: a run for the same time is refused afterwards.
  CHECK_FALSE(MustFire(*store, {"skipped", 1000, ""}, JobRun("skipped", false), 1000).fired);
  CHECK(CountJobTasks(*store) == 0);
}

STORE_TEST_CASE("a job disabled in the store gets no run, and passed times are still recorded") {
  // Several hosts share one store: whichever fires, the flag another host set holds.
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"paused"}, 100).ok());
  REQUIRE(store->SetJobDisabled("paused", true).ok());
  FireOutcome run = MustFire(*store, {"paused", 1000, ""}, JobRun("paused", false), 1000);
  CHECK_FALSE(run.fired);
  CHECK_FALSE(run.task.has_value());
  CHECK(CountJobTasks(*store) == 0);
  CHECK_FALSE(RecordOf(*store, "paused").last_fired.has_value());
  FireOutcome boot = MustFire(*store, {"paused", 1000, "boot-1"}, JobRun("paused", false), 1000);
  CHECK_FALSE(boot.fired);
  // A time that passed while disabled is recorded without a run (no catch-up once enabled).
  CHECK(MustFire(*store, {"paused", 2000, ""}, std::nullopt, 2000).fired);
  CHECK(RecordOf(*store, "paused").last_fired == std::optional<WallMs>(2000));
  REQUIRE(store->SetJobDisabled("paused", false).ok());
  FireOutcome enabled = MustFire(*store, {"paused", 3000, ""}, JobRun("paused", false), 3000);
  CHECK(enabled.fired);
  CHECK(enabled.task.has_value());
}

STORE_TEST_CASE("a boot firing happens once per boot") {
  auto store = OpenStore();
  FireOutcome first = MustFire(*store, {"at-boot", 1000, "boot-1"}, JobRun("at-boot", false), 1000);
  CHECK(first.fired);
  CHECK(first.task.has_value());
  JobRecord record = RecordOf(*store, "at-boot");
  CHECK(record.boot_id == "boot-1");
  CHECK_FALSE(record.last_fired.has_value());  // a boot firing is no scheduled time

  // A restart of the daemon within the same boot fires nothing.
  FireOutcome again = MustFire(*store, {"at-boot", 9000, "boot-1"}, JobRun("at-boot", false), 9000);
  CHECK_FALSE(again.fired);
  CHECK_FALSE(again.task.has_value());
  CHECK(CountJobTasks(*store) == 1);

  // The next boot fires again, even at an earlier clock time.
  FireOutcome next = MustFire(*store, {"at-boot", 500, "boot-2"}, JobRun("at-boot", false), 500);
  CHECK(next.fired);
  CHECK(next.task.has_value());
  CHECK(RecordOf(*store, "at-boot").boot_id == "boot-2");
  CHECK(CountJobTasks(*store) == 2);
}

STORE_TEST_CASE("a refused fire of a bad name or request changes nothing") {
  auto store = OpenStore();
  Result<FireOutcome> empty = store->Fire({"", 1000, ""}, kAlice, JobRun("x", false), 1000);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == ErrorCode::kInvalid);
  CHECK(empty.status().field() == "job");
  CHECK(empty.status().fault() == StoreFault::kNone);

  Result<FireOutcome> nul =
      store->Fire({std::string("a\0b", 3), 1000, ""}, kAlice, std::nullopt, 1000);
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.status().field() == "job");

  // A dependency that is not the owner's: the firing is not recorded either.
  TaskSpec spec = JobRun("dep", false);
  spec.after = {12345};
  Result<FireOutcome> missing = store->Fire({"dep", 1000, ""}, kAlice, spec, 1000);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == ErrorCode::kNotFound);
  CHECK_FALSE(Knows(*store, "dep"));
  CHECK(MustFire(*store, {"dep", 1000, ""}, JobRun("dep", false), 1000).fired);
  CHECK(CountJobTasks(*store) == 1);
}

STORE_TEST_CASE("job names are any bytes but NUL and huge times are times") {
  auto store = OpenStore();
  const std::string odd = "n\xff\xfe \xe2\x9c\x93 \"'; DROP TABLE jobs; --";
  const std::string long_name(10000, 'j');
  for (const std::string& job : {odd, long_name}) {
    FireOutcome out = MustFire(*store, {job, INT64_MAX - 1, ""}, JobRun(job, true), 1000);
    CHECK(out.fired);
    REQUIRE(out.task.has_value());
    CHECK(MustGet(*store, *out.task).spec.job == std::optional<std::string>(job));
    CHECK(RecordOf(*store, job).last_fired == std::optional<WallMs>(INT64_MAX - 1));
    CHECK(MustRunsOf(*store, job).pending == std::vector<TaskId>{*out.task});
    // Nothing comes after the last representable time.
    CHECK_FALSE(MustFire(*store, {job, INT64_MAX - 1, ""}, std::nullopt, 1000).fired);
  }
  CHECK(MustFire(*store, {"negative", -5, ""}, std::nullopt, 1000).fired);
  CHECK_FALSE(MustFire(*store, {"negative", -6, ""}, std::nullopt, 1000).fired);
}

// ---- records ----

STORE_TEST_CASE("a job's record shows its latest task and how it ended") {
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"report"}, 100).ok());
  CHECK_FALSE(RecordOf(*store, "report").last_task.has_value());

  FireOutcome fired = MustFire(*store, {"report", 1000, ""}, JobRun("report", false), 1000);
  REQUIRE(fired.task.has_value());
  JobRecord record = RecordOf(*store, "report");
  CHECK(record.last_state == std::optional<TaskState>(TaskState::kPending));
  CHECK(record.last_reason == TaskReason::kNone);
  CHECK(record.last_exit_code == -1);

  int n = MustStart(*store, *fired.task, 1100);
  CHECK(RecordOf(*store, "report").last_state == std::optional<TaskState>(TaskState::kRunning));
  MustFinish(*store, *fired.task, n, 1200, TaskState::kFailed);
  record = RecordOf(*store, "report");
  CHECK(record.last_task == fired.task);
  CHECK(record.last_state == std::optional<TaskState>(TaskState::kFailed));
  CHECK(record.last_reason == TaskReason::kExit);
  CHECK(record.last_exit_code == 1);

  // `tq jobs run`: a task inserted with the job's name is its latest task too.
  TaskId manual = MustInsert(*store, kAlice, JobRun("report", false), 1300);
  record = RecordOf(*store, "report");
  CHECK(record.last_task == std::optional<TaskId>(manual));
  CHECK(record.last_state == std::optional<TaskState>(TaskState::kPending));
  CHECK(record.last_fired == std::optional<WallMs>(1000));
  SubmitOutcome submitted = MustSubmit(*store, kAlice, JobRun("report", false), 1400);
  CHECK(RecordOf(*store, "report").last_task == std::optional<TaskId>(submitted.id));
  MustStart(*store, submitted.id, 1500);
  StartAndFinish(*store, manual, TaskState::kSucceeded, 1600);
  CHECK(RecordOf(*store, "report").last_state == std::optional<TaskState>(TaskState::kRunning));

  // A task of a job the store does not know makes no record.
  MustInsert(*store, kAlice, JobRun("unknown", false), 1700);
  CHECK_FALSE(Knows(*store, "unknown"));
}

STORE_TEST_CASE("a purged latest task leaves the record without a state") {
  auto store = OpenStore();
  FireOutcome fired = MustFire(*store, {"gone", 1000, ""}, JobRun("gone", false), 1000);
  REQUIRE(fired.task.has_value());
  StartAndFinish(*store, *fired.task, TaskState::kFailed, 1100);
  Result<std::vector<TaskId>> purged = store->PurgeEnded(5000, 10);
  REQUIRE(purged.ok());
  CHECK(*purged == std::vector<TaskId>{*fired.task});
  JobRecord record = RecordOf(*store, "gone");
  CHECK(record.last_task == fired.task);
  CHECK_FALSE(record.last_state.has_value());
  CHECK(record.last_fired == std::optional<WallMs>(1000));
  // Its firing stays done: the stored last firing refuses the time again.
  CHECK_FALSE(MustFire(*store, {"gone", 1000, ""}, JobRun("gone", false), 6000).fired);
}

STORE_TEST_CASE("ForgetJobs drops a removed job's record unless its tasks are kept") {
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"kept", "idle", "odd \"name\""}, 100).ok());
  FireOutcome fired = MustFire(*store, {"ran", 1000, ""}, JobRun("ran", false), 1000);
  REQUIRE(fired.task.has_value());
  MustFire(*store, {"idle", 1000, ""}, std::nullopt, 1000);  // a firing without a run
  REQUIRE(store->ForgetJobs({"idle", "ran", "never-known", "odd \"name\""}).ok());
  CHECK(Knows(*store, "kept"));        // not named
  CHECK_FALSE(Knows(*store, "idle"));  // no task: gone, with its firing
  CHECK_FALSE(Knows(*store, "odd \"name\""));
  CHECK(Knows(*store, "ran"));  // its task is kept: so is its record
  CHECK(RecordOf(*store, "ran").last_run == std::optional<WallMs>(1000));
  // Back in a file later, "idle" is a new job: its old firing no longer counts.
  CHECK(MustFire(*store, {"idle", 1000, ""}, std::nullopt, 2000).fired);

  StartAndFinish(*store, *fired.task, TaskState::kFailed, 1100);
  REQUIRE(store->PurgeEnded(5000, 10).ok());
  REQUIRE(store->ForgetJobs({"ran"}).ok());
  CHECK_FALSE(Knows(*store, "ran"));  // once its task is purged
  REQUIRE(store->ForgetJobs({}).ok());
}

STORE_TEST_CASE("AddJobs keeps known jobs as they are and disable is kept") {
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"a", "b"}, 100).ok());
  REQUIRE(store->AddJobs({"b", "c", "c"}, 200).ok());
  REQUIRE(store->AddJobs({}, 300).ok());
  Result<std::vector<JobRecord>> records = store->JobRecords();
  REQUIRE(records.ok());
  REQUIRE(records->size() == 3);
  const struct {
    const char* job;
    WallMs first_seen;
  } kWant[] = {{"a", 100}, {"b", 100}, {"c", 200}};
  for (const auto& want : kWant) {
    CAPTURE(want.job);
    JobRecord r = RecordOf(*store, want.job);
    CHECK(r.first_seen == want.first_seen);
    CHECK_FALSE(r.disabled);
    CHECK_FALSE(r.last_fired.has_value());
    CHECK(r.boot_id.empty());
  }

  REQUIRE(store->SetJobDisabled("b", true).ok());
  CHECK(RecordOf(*store, "b").disabled);
  REQUIRE(store->SetJobDisabled("b", true).ok());  // again: no change, no error
  REQUIRE(store->AddJobs({"b"}, 400).ok());
  CHECK(RecordOf(*store, "b").disabled);
  REQUIRE(store->SetJobDisabled("b", false).ok());
  CHECK_FALSE(RecordOf(*store, "b").disabled);

  Status unknown = store->SetJobDisabled("nope", true);
  CHECK(unknown.code() == ErrorCode::kNotFound);
  CHECK(unknown.field() == "job");
  CHECK(unknown.fault() == StoreFault::kNone);
  CHECK(unknown.message().find("nope") != std::string::npos);

  Status bad = store->AddJobs({"ok", ""}, 500);
  CHECK(bad.code() == ErrorCode::kInvalid);
  CHECK(bad.field() == "job");
  CHECK_FALSE(Knows(*store, "ok"));  // all or nothing
}

STORE_TEST_CASE("RunsOf lists a job's pending and running runs only") {
  auto store = OpenStore();
  TaskId a = *MustFire(*store, {"j", 1000, ""}, JobRun("j", false), 1000).task;
  TaskId b = *MustFire(*store, {"j", 2000, ""}, JobRun("j", false), 2000).task;
  TaskId c = *MustFire(*store, {"j", 3000, ""}, JobRun("j", false, 9000), 3000).task;
  MustFire(*store, {"other", 1000, ""}, JobRun("other", false), 1000);
  MustInsert(*store, kAlice, Spec({"plain"}, "cron"), 1000);

  JobRuns runs = MustRunsOf(*store, "j");
  CHECK(runs.pending == std::vector<TaskId>{a, b, c});
  CHECK(runs.running.empty());
  int n = MustStart(*store, b, 3100);
  runs = MustRunsOf(*store, "j");
  CHECK(runs.pending == std::vector<TaskId>{a, c});
  CHECK(runs.running == std::vector<TaskId>{b});
  MustFinish(*store, b, n, 3200, TaskState::kSucceeded);
  REQUIRE(store->EndPending(a, TaskState::kCancelled, TaskReason::kCancelled, 3300).ok());
  runs = MustRunsOf(*store, "j");
  CHECK(runs.pending == std::vector<TaskId>{c});
  CHECK(runs.running.empty());
  CHECK(MustRunsOf(*store, "nobody").pending.empty());
}

// ---- job files ----

STORE_TEST_CASE("job files are saved replaced and forgotten") {
  auto store = OpenStore();
  Result<std::vector<StoredJobFile>> files = store->JobFiles();
  REQUIRE(files.ok());
  CHECK(files->empty());

  const std::string binary("[[job]]\nname = \"x\"\n\0\xff\xfe", 23);
  REQUIRE(store
              ->SaveJobFiles(
                  {{"/etc/tq/jobs.d/b.toml", binary, 100}, {"/etc/tq/jobs.d/a.toml", "", 100}})
              .ok());
  REQUIRE(store->SaveJobFiles({{"/etc/tq/jobs.d/a.toml", "[[job]]\n", 200}}).ok());
  REQUIRE(store->SaveJobFiles({}).ok());
  files = store->JobFiles();
  REQUIRE(files.ok());
  REQUIRE(files->size() == 2);
  CHECK((*files)[0].path == "/etc/tq/jobs.d/a.toml");
  CHECK((*files)[0].text == "[[job]]\n");
  CHECK((*files)[0].saved == 200);
  CHECK((*files)[1].path == "/etc/tq/jobs.d/b.toml");
  CHECK((*files)[1].text == binary);
  CHECK((*files)[1].saved == 100);

  REQUIRE(store->ForgetJobFiles({"/etc/tq/jobs.d/b.toml", "/never/saved.toml"}).ok());
  files = store->JobFiles();
  REQUIRE(files.ok());
  REQUIRE(files->size() == 1);
  CHECK((*files)[0].path == "/etc/tq/jobs.d/a.toml");

  Status no_path = store->SaveJobFiles({{"/ok.toml", "x", 300}, {"", "x", 300}});
  CHECK(no_path.code() == ErrorCode::kInvalid);
  CHECK(no_path.field() == "path");
  files = store->JobFiles();
  REQUIRE(files.ok());
  CHECK(files->size() == 1);  // all or nothing
}

// ---- the exclusive rule ----

STORE_TEST_CASE("an exclusive run inserted while its job runs is held until the run ends") {
  auto store = OpenStore();
  TaskId first = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, first, 1000);
  TaskId second = MustInsert(*store, kAlice, JobRun("j", true), 1100);
  CHECK(StateOf(*store, second) == TaskState::kPending);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(StartRefused(*store, second, 1100));
  // Due, but neither promoted nor reported as due: no busy loop on a held task.
  CHECK(MustPromote(*store, 5000) == 0);
  CHECK_FALSE(MustNextDue(*store).has_value());
  CHECK(MustRunsOf(*store, "j").pending == std::vector<TaskId>{second});

  MustFinish(*store, first, n, 2000, TaskState::kSucceeded);
  CHECK(Ready(*store, "cron") == second);
  MustStart(*store, second, 2000);
}

STORE_TEST_CASE("starting a run holds its job's ready exclusive runs") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  TaskId b = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  TaskId other = MustInsert(*store, kAlice, JobRun("k", true), 1000);
  CHECK(Ready(*store, "cron") == a);
  int n = MustStart(*store, a, 1100);
  CHECK(StartRefused(*store, b, 1100));
  CHECK(Ready(*store, "cron") == other);  // another job's run is not held
  MustStart(*store, other, 1100);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(MustPromote(*store, 9000) == 0);

  MustFinish(*store, a, n, 1200, TaskState::kFailed);
  CHECK(Ready(*store, "cron") == b);
}

STORE_TEST_CASE("a retry and an unstart release the held runs") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  TaskId b = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, a, 1000);
  CHECK_FALSE(Ready(*store, "cron").has_value());

  // a fails and waits for its retry: b runs meanwhile, and a stays held past its retry time.
  REQUIRE(store->RetryLater(a, n, Exited(1100, 1), 1500, kDefaultPriority).ok());
  CHECK(Ready(*store, "cron") == b);
  int m = MustStart(*store, b, 1200);
  CHECK(MustPromote(*store, 1600) == 0);
  CHECK_FALSE(MustNextDue(*store).has_value());
  CHECK(StartRefused(*store, a, 1600));

  // b's supervisor never started: b is ready again at once, and a, whose retry time came after
  // b's attempt started, is due: NextDue names its time and PromoteDue makes it ready.
  REQUIRE(store->UnstartAttempt(b, m).ok());
  CHECK(StateOf(*store, b) == TaskState::kPending);
  CHECK(Ready(*store, "cron") == b);
  CHECK(MustNextDue(*store) == std::optional<WallMs>(1500));
  CHECK(MustPromote(*store, 1700) == 1);
  CHECK(Ready(*store, "cron") == a);
  n = MustStart(*store, a, 1700);
  CHECK(StartRefused(*store, b, 1700));

  // A retry due at once while nothing else of its job runs is ready at once.
  REQUIRE(store->RetryLater(a, n, Exited(1800, 1), 1800, kDefaultPriority).ok());
  CHECK(Ready(*store, "cron") == a);
}

STORE_TEST_CASE("a retrying exclusive run is held while another run of its job runs") {
  auto store = OpenStore();
  TaskId loose = MustInsert(*store, kAlice, JobRun("j", false), 1000);
  TaskId strict = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, strict, 1000);
  // A run that is not exclusive starts alongside (`tq jobs run --force`).
  CHECK(Ready(*store, "cron") == loose);
  int m = MustStart(*store, loose, 1000);
  REQUIRE(store->RetryLater(strict, n, Exited(1100, 1), 1100, kDefaultPriority).ok());
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(MustPromote(*store, 2000) == 0);
  MustFinish(*store, loose, m, 1200, TaskState::kSucceeded);
  CHECK(Ready(*store, "cron") == strict);
}

STORE_TEST_CASE("runs that are not exclusive run alongside, and hold the exclusive ones") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", false), 1000);
  TaskId b = MustInsert(*store, kAlice, JobRun("j", false), 1000);
  int na = MustStart(*store, a, 1000);
  CHECK(Ready(*store, "cron") == b);
  int nb = MustStart(*store, b, 1000);
  TaskId c = MustInsert(*store, kAlice, JobRun("j", true), 1100);
  CHECK_FALSE(Ready(*store, "cron").has_value());

  MustFinish(*store, a, na, 1200, TaskState::kSucceeded);
  CHECK_FALSE(Ready(*store, "cron").has_value());  // b still runs
  CHECK(MustPromote(*store, 2000) == 0);
  MustFinish(*store, b, nb, 1300, TaskState::kCancelled);
  CHECK(Ready(*store, "cron") == c);
  CHECK(MustRunsOf(*store, "j").pending == std::vector<TaskId>{c});
}

STORE_TEST_CASE("a released run that is not due yet waits for its time") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, a, 1000);
  TaskId later = MustInsert(*store, kAlice, JobRun("j", true, 5000), 1000);
  CHECK_FALSE(MustNextDue(*store).has_value());
  MustFinish(*store, a, n, 2000, TaskState::kSucceeded);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(MustNextDue(*store) == std::optional<WallMs>(5000));
  CHECK(MustPromote(*store, 4999) == 0);
  CHECK(MustPromote(*store, 5000) == 1);
  CHECK(Ready(*store, "cron") == later);
}

STORE_TEST_CASE("a held run with a dependency waits for both") {
  auto store = OpenStore();
  TaskId dep = MustInsert(*store, kAlice, Spec({"dep"}, "other"), 1000);
  TaskId runner = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, runner, 1000);
  TaskSpec spec = JobRun("j", true);
  spec.after = {dep};
  TaskId held = MustInsert(*store, kAlice, spec, 1000);

  StartAndFinish(*store, dep, TaskState::kSucceeded, 1100);  // the dependency is done first
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(MustPromote(*store, 2000) == 0);
  MustFinish(*store, runner, n, 1300, TaskState::kSucceeded);
  CHECK(Ready(*store, "cron") == held);

  // The other order: the running run ends before the dependency.
  TaskId dep2 = MustInsert(*store, kAlice, Spec({"dep2"}, "other"), 2000);
  n = MustStart(*store, held, 2000);
  spec.after = {dep2};
  TaskId held2 = MustInsert(*store, kAlice, spec, 2000);
  MustFinish(*store, held, n, 2100, TaskState::kSucceeded);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  StartAndFinish(*store, dep2, TaskState::kSucceeded, 2200);
  CHECK(Ready(*store, "cron") == held2);
}

STORE_TEST_CASE("a requeued exclusive run is held while its job runs") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  StartAndFinish(*store, a, TaskState::kFailed, 1000);
  TaskId b = MustInsert(*store, kAlice, JobRun("j", true), 1100);
  int n = MustStart(*store, b, 1100);
  Result<bool> requeued = store->Requeue(a, 1200);
  REQUIRE(requeued.ok());
  CHECK(*requeued);
  CHECK(StateOf(*store, a) == TaskState::kPending);
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK(MustPromote(*store, 2000) == 0);
  MustFinish(*store, b, n, 1300, TaskState::kSucceeded);
  CHECK(Ready(*store, "cron") == a);
}

STORE_TEST_CASE("a held run that ends pending stays ended when its job's run ends") {
  auto store = OpenStore();
  TaskId a = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  int n = MustStart(*store, a, 1000);
  TaskSpec ttl = JobRun("j", true);
  ttl.pending_ttl_ms = 100;
  TaskId expiring = MustInsert(*store, kAlice, ttl, 1000);
  TaskId cancelled = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  Result<std::vector<TaskId>> ended =
      store->EndPending(cancelled, TaskState::kCancelled, TaskReason::kCancelled, 1050);
  REQUIRE(ended.ok());
  CHECK(*ended == std::vector<TaskId>{cancelled});
  Result<std::vector<TaskId>> expired = store->ExpirePendingTtl(1200, 10);
  REQUIRE(expired.ok());
  CHECK(*expired == std::vector<TaskId>{expiring});
  MustFinish(*store, a, n, 1300, TaskState::kSucceeded);
  CHECK(StateOf(*store, cancelled) == TaskState::kCancelled);
  CHECK(StateOf(*store, expiring) == TaskState::kFailed);
  CHECK_FALSE(Ready(*store, "cron").has_value());
}

STORE_TEST_CASE("Get and List return a task's job") {
  auto store = OpenStore();
  TaskId plain = MustInsert(*store, kAlice, Spec({"x"}), 1000);
  TaskId run = MustInsert(*store, kAlice, JobRun("j", true), 1000);
  CHECK_FALSE(MustGet(*store, plain).spec.job.has_value());
  CHECK_FALSE(MustGet(*store, plain).spec.job_exclusive);
  ListFilter all;
  Result<std::vector<Task>> tasks = store->List(all);
  REQUIRE(tasks.ok());
  REQUIRE(tasks->size() == 2);
  CHECK((*tasks)[0].id == run);
  CHECK((*tasks)[0].spec.job == std::optional<std::string>("j"));
  CHECK((*tasks)[0].spec.job_exclusive);
  CHECK_FALSE((*tasks)[1].spec.job.has_value());

  TaskSpec empty = JobRun("", false);
  Result<TaskId> refused = store->Insert(kAlice, empty, 1000);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().field() == "job");
}

STORE_TEST_CASE("a job's last success and its overdue alert are kept") {
  auto store = OpenStore();
  REQUIRE(store->AddJobs({"nightly"}, 100).ok());
  CHECK_FALSE(RecordOf(*store, "nightly").last_success.has_value());
  FireOutcome failed = MustFire(*store, {"nightly", 1000, ""}, JobRun("nightly", false), 1000);
  REQUIRE(failed.task.has_value());
  MustStart(*store, *failed.task, 1000);
  REQUIRE(
      store->FinishAttempt(*failed.task, 1, Exited(1500, 1), TaskState::kFailed, TaskReason::kExit)
          .ok());
  CHECK_FALSE(RecordOf(*store, "nightly").last_success.has_value());
  FireOutcome ok = MustFire(*store, {"nightly", 2000, ""}, JobRun("nightly", false), 2000);
  REQUIRE(ok.task.has_value());
  MustStart(*store, *ok.task, 2000);
  REQUIRE(
      store->FinishAttempt(*ok.task, 1, Exited(2500, 0), TaskState::kSucceeded, TaskReason::kExit)
          .ok());
  CHECK(RecordOf(*store, "nightly").last_success == std::optional<WallMs>(2500));

  CHECK_FALSE(RecordOf(*store, "nightly").overdue_alerted.has_value());
  REQUIRE(store->SetJobOverdueAlerted("nightly", 2500).ok());
  CHECK(RecordOf(*store, "nightly").overdue_alerted == std::optional<WallMs>(2500));
  CHECK(store->SetJobOverdueAlerted("unknown", 1).ok());  // nothing to record
}

}  // namespace
}  // namespace tq
