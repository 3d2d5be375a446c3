// Two hosts writing to one PostgreSQL store at the same moment (SPEC 12): the store's invariants
// hold whatever guards order the writes. In each test alpha opens a transaction and writes, beta
// makes its racing call on its own thread meanwhile, and alpha commits only once beta's call has
// returned or is seen waiting for a lock (else after a bound), so the two overlap as far as the
// store lets them and no test can hang. Checked: one task per key and version, a dependent
// submitted as its dependency ends is not left waiting, one firing per (job, time), one running
// run of an exclusive job, a queue's concurrency across hosts, one teller of a group's end, an
// environment purged while a submit reuses it, and a new environment two submits store at once.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/store/postgres/joined_store.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// How long alpha keeps its transaction open for beta at most.
constexpr auto kHoldOpen = std::chrono::seconds(2);

// The value a call's result holds until the call has run.
Status NotRun() {
  return Status::Internal("not run");
}

// A flag one thread raises once and another waits for.
class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }
  // True once open, waiting at most `d`.
  bool WaitFor(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, d, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// A transaction of alpha's store (WriteTogether) around the body given.
using Opener = std::function<Status(const std::function<Status()>&)>;

// Alpha's WriteTogether, as an Opener.
Opener Writing(Store& store) {
  return [&store](const std::function<Status()>& body) { return store.WriteTogether(body); };
}

// True when a session of the server waits for a lock: beta's, as alpha's session waits for
// nothing while its transaction is held open.
bool SomeoneWaits(const std::string& conninfo) {
  return PgQueryInt(conninfo, "SELECT count(*) FROM pg_locks WHERE NOT granted") > 0;
}

// Runs `inside` in alpha's transaction (`open`) and, once it has written, `racing` on a thread of
// its own; alpha commits when `racing` has returned, is seen waiting for a lock, or kHoldOpen
// passed. Then `after_alpha` (here) and `after_beta` (on beta's thread) run side by side. Returns
// the status of alpha's transaction.
Status Race(const std::string& conninfo, const Opener& open, const std::function<Status()>& inside,
            const std::function<void()>& racing, const std::function<void()>& after_alpha = {},
            const std::function<void()>& after_beta = {}) {
  Gate wrote, returned;
  std::thread beta([&] {
    wrote.Wait();
    racing();
    returned.Open();
    if (after_beta) after_beta();
  });
  // Whatever happens here (a failed REQUIRE throws), beta is let go and joined.
  struct Joiner {
    Gate& wrote;
    std::thread& beta;
    ~Joiner() {
      wrote.Open();
      beta.join();
    }
  } joiner{wrote, beta};
  Status alpha = open([&]() -> Status {
    Status s = inside();
    wrote.Open();
    if (!s.ok()) return s;
    const auto deadline = std::chrono::steady_clock::now() + kHoldOpen;
    while (!returned.WaitFor(std::chrono::milliseconds(10)) &&
           std::chrono::steady_clock::now() < deadline && !SomeoneWaits(conninfo)) {
    }
    return Status::Ok();
  });
  wrote.Open();  // `open` may have failed before its body ran
  if (after_alpha) after_alpha();
  return alpha;
}

// The id of the first ready task of `queue` as `store` sees it; 0 when it sees none.
TaskId ReadyId(Store& store, const std::string& queue) {
  return Ready(store, queue).value_or(0);
}

// Stores the environment of Spec() with a task of its own, so that the racing calls find it
// stored rather than both storing it.
void StoreSpecEnv(Store& store) {
  MustInsert(store, kAlice, Spec({"seed"}, "seed"));
}

// How many of alice's tasks in any of `states` (empty: any state) `pred` holds for.
template <typename Pred>
int CountTasks(Store& store, const std::vector<TaskState>& states, Pred pred) {
  ListFilter filter;
  filter.owner_uid = kAlice.uid;
  filter.states = states;
  filter.limit = 0;  // every one
  Result<std::vector<Task>> tasks = store.List(filter);
  REQUIRE_MESSAGE(tasks.ok(), tasks.status().message());
  int n = 0;
  for (const Task& task : *tasks) n += pred(task) ? 1 : 0;
  return n;
}

// How many attempts run in `queue` as `store` counts them.
int RunningIn(Store& store, const std::string& queue) {
  Result<std::map<std::string, int>> running = store.RunningCounts();
  REQUIRE_MESSAGE(running.ok(), running.status().message());
  auto it = running->find(queue);
  return it == running->end() ? 0 : it->second;
}

// A claim as dispatch's Choose makes one: holds `queue` (passing it over when another host's
// claim holds it), counts what runs in it, and starts task `id` only while that is below `cap`;
// `*started` tells whether it did.
Status ClaimUnderCap(Store& store, const std::string& queue, int cap, TaskId id, bool* started) {
  *started = false;
  Result<std::vector<std::string>> held = store.HoldQueues({queue});
  if (!held.ok()) return held.status();
  if (held->empty()) return Status::Ok();
  Result<std::map<std::string, int>> running = store.RunningCounts();
  if (!running.ok()) return running.status();
  auto it = running->find(queue);
  if (it != running->end() && it->second >= cap) return Status::Ok();
  Result<std::optional<int>> attempt = store.StartAttempt(id, 1100, {});
  if (!attempt.ok()) return attempt.status();
  *started = attempt->has_value();
  return Status::Ok();
}

// An attempt that exited 0 at `ended`, ending its task succeeded.
Result<std::vector<TaskId>> SucceedRace(Store& store, TaskId id, int attempt, WallMs ended) {
  const AttemptOutcome out = Exited(ended, 0);
  return store.FinishAttempt(id, attempt, out, TaskState::kSucceeded,
                             TaskReasonForAttempt(out.reason));
}

TEST_CASE("postgres races: one key and version submitted from two hosts at once makes one task") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  StoreSpecEnv(*alpha);

  Result<SubmitOutcome> by_alpha = NotRun();
  Result<SubmitOutcome> by_beta = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        by_alpha = alpha->Submit(kAlice, Keyed("k", 1), 1000, false);
        return by_alpha.status();
      },
      [&] { by_beta = beta->Submit(kAlice, Keyed("k", 1), 1000, false); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  CHECK(CountTasks(*alpha, {TaskState::kPending}, [](const Task& t) {
          return t.spec.key == std::optional<std::string>("k");
        }) == 1);
  REQUIRE_MESSAGE(by_beta.ok(), by_beta.status().message());
  CHECK(by_beta->id == by_alpha->id);
}

TEST_CASE("postgres races: a dependent submitted as its dependency succeeds elsewhere is ready") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  const TaskId dep = MustInsert(*alpha, kAlice, Spec({"dep"}, "first"));
  const int attempt = MustStart(*alpha, dep, 1100);
  TaskSpec dependent = Spec({"dependent"}, "second");
  dependent.after = {dep};

  Result<std::vector<TaskId>> finished = NotRun();
  Result<SubmitOutcome> submitted = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        finished = SucceedRace(*alpha, dep, attempt, 1200);
        return finished.status();
      },
      [&] { submitted = beta->Submit(kAlice, dependent, 1150, false); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  REQUIRE_MESSAGE(submitted.ok(), submitted.status().message());
  CHECK(StateOf(*alpha, dep) == TaskState::kSucceeded);
  CHECK(StateOf(*alpha, submitted->id) == TaskState::kPending);
  Result<std::vector<TaskId>> waits_for = alpha->UnfinishedDeps(submitted->id);
  REQUIRE_MESSAGE(waits_for.ok(), waits_for.status().message());
  CHECK(waits_for->empty());
  // Ready now: nothing else would ever make it so, its dependency having ended.
  CHECK(ReadyId(*alpha, "second") == submitted->id);
}

TEST_CASE("postgres races: one cron time fired by two hosts at once fires once") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  REQUIRE(alpha->AddJobs({"j"}, 500).ok());
  StoreSpecEnv(*alpha);
  const Firing firing{"j", 60000, ""};

  Result<FireOutcome> by_alpha = NotRun();
  Result<FireOutcome> by_beta = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        by_alpha = alpha->Fire(firing, kAlice, JobRun("j", false), 60100);
        return by_alpha.status();
      },
      [&] { by_beta = beta->Fire(firing, kAlice, JobRun("j", false), 60100); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  // Beta may be told to try again; never that the store failed for good.
  CHECK_MESSAGE((by_beta.ok() || by_beta.status().fault() == StoreFault::kTransient),
                by_beta.status().message());
  const int fired = (by_alpha->fired ? 1 : 0) + (by_beta.ok() && by_beta->fired ? 1 : 0);
  CHECK(fired == 1);
  CHECK(CountTasks(*alpha, {}, [](const Task& t) {
          return t.spec.job == std::optional<std::string>("j");
        }) == 1);
  std::vector<JobRecord> records = MustJobRecords(*alpha);
  REQUIRE(records.size() == 1);
  CHECK(records[0].last_fired == std::optional<WallMs>(60000));
  CHECK(records[0].last_task == by_alpha->task);
}

TEST_CASE("postgres races: two hosts claiming two runs of an exclusive job start one") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  const TaskId first = MustInsert(*alpha, kAlice, JobRun("x", true));
  const TaskId second = MustInsert(*alpha, kAlice, JobRun("x", true));
  REQUIRE(ReadyId(*alpha, "cron") == first);  // both ready while neither runs

  Result<std::optional<int>> by_alpha = NotRun();
  Result<std::optional<int>> by_beta = NotRun();
  Status beta_tx = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        by_alpha = alpha->StartAttempt(first, 1100, {});
        return by_alpha.status();
      },
      [&] {
        beta_tx = beta->WriteTogether([&] {
          by_beta = beta->StartAttempt(second, 1100, {});
          return by_beta.status();
        });
      });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  CHECK(by_alpha->has_value());
  CHECK_MESSAGE(beta_tx.ok(), beta_tx.message());
  Result<JobRuns> runs = alpha->RunsOf("x");
  REQUIRE_MESSAGE(runs.ok(), runs.status().message());
  CHECK(runs->running.size() <= 1);
  CHECK(runs->running == std::vector<TaskId>{first});
  CHECK(StateOf(*alpha, second) == TaskState::kPending);
}

TEST_CASE("postgres races: two hosts claiming in a queue capped at one start one task") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  REQUIRE(alpha->SetQueueConcurrency("capped", 1).ok());
  const TaskId one = MustInsert(*alpha, kAlice, Spec({"one"}, "capped"));
  const TaskId two = MustInsert(*alpha, kAlice, Spec({"two"}, "capped"));

  bool alpha_started = false;
  bool beta_started = false;
  Status beta_tx = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] { return ClaimUnderCap(*alpha, "capped", 1, one, &alpha_started); },
      [&] {
        beta_tx = beta->WriteTogether(
            [&] { return ClaimUnderCap(*beta, "capped", 1, two, &beta_started); });
      });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  CHECK_MESSAGE(beta_tx.ok(), beta_tx.message());
  CHECK(RunningIn(*alpha, "capped") == 1);
  CHECK(alpha_started);
  CHECK_FALSE(beta_started);
}

TEST_CASE("postgres races: the last two shards ending on two hosts at once tell the end once") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  Result<ShardedSubmit> group = alpha->SubmitShards(kAlice, Spec({"shard"}), 2, 1000);
  REQUIRE_MESSAGE(group.ok(), group.status().message());
  REQUIRE(group->ids.size() == 2);
  const TaskId on_alpha = group->ids[0];
  const TaskId on_beta = group->ids[1];
  const int alpha_attempt = MustStart(*alpha, on_alpha, 1100);
  const int beta_attempt = MustStart(*beta, on_beta, 1100);

  Result<std::vector<TaskId>> alpha_end = NotRun();
  Result<std::vector<TaskId>> beta_end = NotRun();
  Result<bool> alpha_told = NotRun();
  Result<bool> beta_told = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        alpha_end = SucceedRace(*alpha, on_alpha, alpha_attempt, 1200);
        return alpha_end.status();
      },
      [&] { beta_end = SucceedRace(*beta, on_beta, beta_attempt, 1200); },
      // Each claims the end once its own end is stored, the two claims side by side.
      [&] { alpha_told = alpha->ClaimGroupEnd(group->group); },
      [&] { beta_told = beta->ClaimGroupEnd(group->group); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  REQUIRE_MESSAGE(beta_end.ok(), beta_end.status().message());
  REQUIRE_MESSAGE(alpha_told.ok(), alpha_told.status().message());
  REQUIRE_MESSAGE(beta_told.ok(), beta_told.status().message());
  CHECK((*alpha_told ? 1 : 0) + (*beta_told ? 1 : 0) == 1);
  Result<bool> again = alpha->ClaimGroupEnd(group->group);
  REQUIRE_MESSAGE(again.ok(), again.status().message());
  CHECK_FALSE(*again);
}

TEST_CASE("postgres races: a submit reusing the environment of a task purged meanwhile keeps it") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  TaskSpec spec = Spec({"old"});
  spec.env = {"HOME=/home/alice", "ONLY=the-purged-one"};  // no other task has this environment
  const TaskId old = MustInsert(*alpha, kAlice, spec, 1000);
  StartAndFinish(*alpha, old, TaskState::kFailed, 1100);  // ends at 1110
  TaskSpec reuse = spec;
  reuse.argv = {"new"};

  Result<std::vector<TaskId>> purged = NotRun();
  Result<SubmitOutcome> submitted = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        purged = alpha->PurgeEnded(5000, 10);
        return purged.status();
      },
      [&] { submitted = beta->Submit(kAlice, reuse, 6000, false); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  CHECK(*purged == std::vector<TaskId>{old});
  REQUIRE_MESSAGE(submitted.ok(), submitted.status().message());
  Result<Task> got = alpha->Get(submitted->id);  // Get joins the task to its environment
  REQUIRE_MESSAGE(got.ok(), got.status().message());
  CHECK(got->spec.env == reuse.env);
  CHECK(got->state == TaskState::kPending);
}

TEST_CASE("postgres races: two hosts submitting with one new environment at once both store it") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  TaskSpec spec = Spec({"a"});
  spec.env = {"HOME=/home/alice", "NEW=in-both"};  // not stored yet

  Result<SubmitOutcome> by_alpha = NotRun();
  Result<SubmitOutcome> by_beta = NotRun();
  Status alpha_tx = Race(
      conninfo, Writing(*alpha),
      [&] {
        by_alpha = alpha->Submit(kAlice, spec, 1000, false);
        return by_alpha.status();
      },
      [&] { by_beta = beta->Submit(kAlice, spec, 1000, false); });
  REQUIRE_MESSAGE(alpha_tx.ok(), alpha_tx.message());
  REQUIRE_MESSAGE(by_beta.ok(), by_beta.status().message());
  CHECK(MustGet(*alpha, by_alpha->id).spec.env == spec.env);
  CHECK(MustGet(*alpha, by_beta->id).spec.env == spec.env);
}

}  // namespace
}  // namespace tq
