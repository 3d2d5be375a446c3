// Hosts of one PostgreSQL store write side by side (SPEC 12, issue 50): while one host's
// transaction is open, and holds what it wrote, another host's submits, ends, firings, sweeps,
// claims, heartbeats and fencing go through at once. Each of the other host's calls runs inside
// the first host's transaction, on the same thread: one that waited for a row the first holds
// would fail at its lock_timeout. And the counters every host keeps (a row per host) add up to
// what the tables hold.
#include <doctest/doctest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/store/postgres/joined_store.h"
#include "core/store/sql/sql_store.h"
#include "core/store/test_util.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// Finishes attempt `attempt` of `id` on `store` as succeeded at `now`.
Status Succeed(Store& store, TaskId id, int attempt, WallMs now) {
  return store.FinishAttempt(id, attempt, Exited(now, 0), TaskState::kSucceeded, TaskReason::kExit)
      .status();
}

// Runs `write`, a write of `store`'s, on a thread of its own until it stops before its commit
// (holding what it wrote), then `meanwhile`, then lets the commit go on with `commit` (a failure
// fails it).
void WhileCommitHeld(Store& store, const std::function<void()>& write,
                     const std::function<void()>& meanwhile, const Status& commit) {
  std::mutex mu;
  std::condition_variable cv;
  bool at_commit = false, go = false;
  dynamic_cast<SqlStore&>(store).RefuseCommits([&] {
    std::unique_lock<std::mutex> lock(mu);
    at_commit = true;
    cv.notify_all();
    cv.wait(lock, [&] { return go; });
    return commit;
  });
  std::thread writing(write);
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return at_commit; });
  }
  meanwhile();
  {
    std::lock_guard<std::mutex> lock(mu);
    go = true;
  }
  cv.notify_all();
  writing.join();
  dynamic_cast<SqlStore&>(store).RefuseCommits(nullptr);
}

TEST_CASE("postgres: a host's open transaction keeps no other host waiting") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  std::unique_ptr<Store> gamma = MustJoin(conninfo, "gamma");  // silent from here on

  // In the queue both hosts use: a task each host runs, one each will depend on, and one each
  // will claim; a task delayed until 1500 for each host's sweep.
  const TaskId alpha_runs = MustInsert(*alpha, kAlice, Spec({"a"}));
  const TaskId beta_runs = MustInsert(*alpha, kAlice, Spec({"b"}));
  const TaskId alpha_dep = MustInsert(*alpha, kAlice, Spec({"ad"}));
  const TaskId beta_dep = MustInsert(*alpha, kAlice, Spec({"bd"}));
  const int alpha_attempt = MustStart(*alpha, alpha_runs, 1100);
  const int beta_attempt = MustStart(*beta, beta_runs, 1100);
  StartAndFinish(*alpha, alpha_dep, TaskState::kSucceeded, 1100);
  StartAndFinish(*alpha, beta_dep, TaskState::kSucceeded, 1100);
  TaskSpec later = Spec({"later"}, "later");
  later.not_before = 1500;
  MustInsert(*alpha, kAlice, later);
  MustInsert(*alpha, kAlice, later);
  const TaskId alpha_claims = MustInsert(*alpha, kAlice, Spec({"ac"}));
  const TaskId beta_claims = MustInsert(*alpha, kAlice, Spec({"bc"}));
  const Result<std::vector<HostRecord>> hosts = alpha->Hosts(2000);
  REQUIRE(hosts.ok());
  int64_t gamma_beats = -1;
  for (const HostRecord& h : *hosts)
    if (h.name == "gamma") gamma_beats = h.beats;

  Status alpha_wrote = alpha->WriteTogether([&]() -> Status {
    // alpha submits, ends, fires, sweeps, claims and beats, and keeps its transaction open.
    TaskSpec after = Spec({"after"});
    after.after = {alpha_dep};
    REQUIRE(alpha->Submit(kAlice, after, 2000, false).ok());
    REQUIRE(Succeed(*alpha, alpha_runs, alpha_attempt, 2000).ok());
    REQUIRE(alpha->Fire(Firing{"alpha-job", 2000, ""}, kAlice, Spec({"j"}), 2000).ok());
    REQUIRE(*alpha->PromoteDue(2000, 1) == 1);
    REQUIRE(alpha->StartAttempt(alpha_claims, 2000, {})->has_value());
    REQUIRE(alpha->Heartbeat(4, 2000)->has_value());

    // beta does the same at once.
    TaskSpec beta_after = Spec({"beta after"});
    beta_after.after = {beta_dep};
    Result<SubmitOutcome> submitted = beta->Submit(kAlice, beta_after, 2000, false);
    REQUIRE_MESSAGE(submitted.ok(), submitted.status().message());
    Status ended = Succeed(*beta, beta_runs, beta_attempt, 2000);
    REQUIRE_MESSAGE(ended.ok(), ended.message());
    Result<FireOutcome> fired = beta->Fire(Firing{"beta-job", 2000, ""}, kAlice, Spec({"j"}), 2000);
    REQUIRE_MESSAGE(fired.ok(), fired.status().message());
    CHECK(fired->fired);
    Result<int> promoted = beta->PromoteDue(2000, 10);
    REQUIRE_MESSAGE(promoted.ok(), promoted.status().message());
    CHECK(*promoted == 1);  // the delayed task alpha's sweep holds is passed over
    TaskId claimed = 0;
    Status claim = beta->WriteTogether([&]() -> Status {
      Result<std::optional<Candidate>> c = beta->FirstReady("default", ReadyOrder::kOldest);
      if (!c.ok()) return c.status();
      REQUIRE(c->has_value());
      claimed = (*c)->id;
      return beta->StartAttempt(claimed, 2000, {}).status();
    });
    REQUIRE_MESSAGE(claim.ok(), claim.message());
    CHECK(claimed == beta_claims);  // alpha's claim is passed over
    Result<std::optional<WallMs>> beat = beta->Heartbeat(4, 2000);
    REQUIRE_MESSAGE(beat.ok(), beat.status().message());
    CHECK(beat->has_value());
    Result<std::optional<std::vector<RunningAttempt>>> fenced =
        beta->FenceHost("gamma", gamma_beats);
    REQUIRE_MESSAGE(fenced.ok(), fenced.status().message());
    CHECK(fenced->has_value());
    // A task beta submitted after a task that is already done is ready at once.
    CHECK(Ready(*beta, "default") == submitted->id);
    return Status::Ok();
  });
  REQUIRE_MESSAGE(alpha_wrote.ok(), alpha_wrote.message());
  CHECK(StateOf(*beta, alpha_runs) == TaskState::kSucceeded);
  CHECK(StateOf(*alpha, beta_runs) == TaskState::kSucceeded);
  CHECK(StateOf(*beta, alpha_claims) == TaskState::kRunning);
}

TEST_CASE("postgres: a host frozen before its stop commits keeps no fencer waiting") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  // beta's stop has updated its row and stops before its commit until let go.
  Result<std::optional<std::vector<RunningAttempt>>> fenced = Status::Internal("not read");
  WhileCommitHeld(
      *beta, [&] { CHECK(beta->LeaveHost().ok()); },
      // alpha, which saw no beat of beta's, passes over beta's row: it does not wait for it.
      [&] { fenced = alpha->FenceHost("beta", 0); }, Status::Ok());
  REQUIRE_MESSAGE(fenced.ok(), fenced.status().message());
  CHECK_FALSE(fenced->has_value());
  // Its stop committed, beta is fenced past its lease as any silent host is.
  fenced = alpha->FenceHost("beta", kStoppedBeats);
  REQUIRE_MESSAGE(fenced.ok(), fenced.status().message());
  CHECK(fenced->has_value());
}

TEST_CASE(
    "postgres: a fencing passes over an attempt the fenced host's frozen end holds, and the "
    "sweep takes it once that end is undone") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  const TaskId held = MustInsert(*alpha, kAlice, Spec({"held"}));
  const TaskId free = MustInsert(*alpha, kAlice, Spec({"free"}));
  MustStart(*beta, held, 1100);
  MustStart(*beta, free, 1100);
  // beta's end of `held` has updated its rows and stops before its commit, which then fails.
  Result<std::optional<std::vector<RunningAttempt>>> fenced = Status::Internal("not read");
  WhileCommitHeld(
      *beta, [&] { CHECK_FALSE(Succeed(*beta, held, 1, 1200).ok()); },
      [&] { fenced = alpha->FenceHost("beta", 0); },
      sql::StoreError("commit", "the host froze (the test)"));
  REQUIRE_MESSAGE(fenced.ok(), fenced.status().message());
  REQUIRE(fenced->has_value());
  REQUIRE((*fenced)->size() == 1);  // not the attempt beta's end held
  CHECK((**fenced)[0].task_id == free);

  Result<std::vector<std::pair<std::string, RunningAttempt>>> late = alpha->TakeFenced();
  REQUIRE_MESSAGE(late.ok(), late.status().message());
  REQUIRE(late->size() == 1);
  CHECK((*late)[0].first == "beta");
  CHECK((*late)[0].second.task_id == held);
  CHECK(alpha->TakeFenced()->empty());  // taken once
  CHECK(alpha->RunningAttempts()->size() == 2);
}

// A spec in `queue` whose environment no task had before.
TaskSpec FreshSpec(const std::string& queue, const std::string& env) {
  TaskSpec spec = Spec({"x"}, queue);
  spec.env = {env};
  return spec;
}

TEST_CASE(
    "postgres: a host whose submit made a queue and an environment keeps no other host's submits "
    "to them waiting before it commits") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  std::unique_ptr<Store> beta = MustJoin(conninfo, "beta");
  // Each of beta's submits, its batch and its update to the queue and environment alpha's
  // uncommitted submit made, goes through at once (one that waited would fail at the
  // lock_timeout); alpha's submit is told it made the queue, beta's that it found it.
  // (CHECKs: a REQUIRE that threw here would leave alpha's commit waiting.)
  auto beta_uses = [&](const TaskSpec& spec) {
    Result<SubmitOutcome> submitted = beta->Submit(kAlice, spec, 2000, false);
    CHECK_MESSAGE(submitted.ok(), submitted.status().message());
    CHECK_FALSE((submitted.ok() && submitted->new_queue));
    Result<std::vector<TaskId>> batch = beta->SubmitBatch(kAlice, {spec, spec}, 2000);
    CHECK_MESSAGE(batch.ok(), batch.status().message());
    TaskChanges move;
    move.queue = spec.queue;
    Result<bool> moved = beta->UpdatePending(MustInsert(*beta, kAlice, Spec({"y"})), move, 2000);
    CHECK_MESSAGE(moved.ok(), moved.status().message());
  };

  SUBCASE("a submit of its own") {
    const TaskSpec spec = FreshSpec("fresh", "FRESH=1");
    Result<SubmitOutcome> made = Status::Internal("not submitted");
    WhileCommitHeld(
        *alpha, [&] { made = alpha->Submit(kAlice, spec, 2000, false); }, [&] { beta_uses(spec); },
        Status::Ok());
    REQUIRE_MESSAGE(made.ok(), made.status().message());
    CHECK(made->new_queue);
  }
  SUBCASE("a submit of a group, in a turn's transaction, prepared before it began") {
    const TaskSpec spec = FreshSpec("fresher", "FRESH=2");
    alpha->PrepareInsert(spec.queue, spec.env);
    std::vector<Result<SubmitOutcome>> made;
    WhileCommitHeld(
        *alpha,
        [&] {
          CHECK(alpha
                    ->WriteTogether([&] {
                      made = alpha->SubmitGroup({SubmitItem{kAlice, spec, false}}, 2000);
                      return Status::Ok();
                    })
                    .ok());
        },
        [&] { beta_uses(spec); }, Status::Ok());
    REQUIRE(made.size() == 1);
    REQUIRE_MESSAGE(made[0].ok(), made[0].status().message());
    CHECK(made[0]->new_queue);
  }
}

// How many rows of queue `queue` and of environments holding `var` the schema `conninfo` holds.
int64_t RowsOf(const std::string& conninfo, const std::string& queue, const std::string& var) {
  return PgQueryInt(conninfo, "SELECT count(*) FROM queues WHERE name = '" + queue + "'") +
         PgQueryInt(conninfo, "SELECT count(*) FROM envs WHERE position(convert_to('" + var +
                                  "', 'UTF8') IN data) > 0");
}

TEST_CASE(
    "postgres: a refused submit, alone, in a batch or in a group, leaves neither its queue nor "
    "its environment") {
  // Both are stored before the submit's transaction (PrepareInsert): a flood of refused submits
  // would otherwise leave a row of each behind per submit until the next purge.
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  std::unique_ptr<Store> alpha = MustJoin(conninfo, "alpha");
  const auto refused = [](const std::string& queue, const std::string& var) {
    TaskSpec spec = FreshSpec(queue, var);
    spec.after = {987654};  // no such task
    return spec;
  };
  {  // alone
    Result<SubmitOutcome> out = alpha->Submit(kAlice, refused("lone", "LONE=1"), 1000, false);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().field() == "after");
    CHECK(RowsOf(conninfo, "lone", "LONE=1") == 0);
  }
  {  // in a batch
    Result<std::vector<TaskId>> out = alpha->SubmitBatch(
        kAlice, {FreshSpec("first", "FIRST=1"), refused("second", "SECOND=1")}, 1000);
    REQUIRE_FALSE(out.ok());
    CHECK(RowsOf(conninfo, "first", "FIRST=1") == 0);  // the batch is all or nothing
    CHECK(RowsOf(conninfo, "second", "SECOND=1") == 0);
  }
  for (const bool in_turn : {false, true}) {
    CAPTURE(in_turn);
    const std::string n = in_turn ? "2" : "1";
    const std::vector<SubmitItem> items = {
        SubmitItem{kAlice, FreshSpec("kept" + n, "KEPT=" + n), false},
        SubmitItem{kAlice, refused("gone" + n, "GONE=" + n), false}};
    for (const SubmitItem& item : items) alpha->PrepareInsert(item.spec.queue, item.spec.env);
    std::vector<Result<SubmitOutcome>> out;
    if (in_turn) {
      REQUIRE(alpha
                  ->WriteTogether([&] {
                    out = alpha->SubmitGroup(items, 1000);
                    return Status::Ok();
                  })
                  .ok());
    } else {
      out = alpha->SubmitGroup(items, 1000);
    }
    REQUIRE(out.size() == 2);
    CHECK(out[0].ok());
    CHECK_FALSE(out[1].ok());
    CHECK(RowsOf(conninfo, "kept" + n, "KEPT=" + n) == 2);
    CHECK(RowsOf(conninfo, "gone" + n, "GONE=" + n) == 0);
  }
  {  // an edit that moves a task to a new queue
    const TaskId running = MustInsert(*alpha, kAlice, Spec({"x"}));
    MustStart(*alpha, running, 1000);
    TaskChanges move;
    move.queue = "moved";
    Result<bool> out = alpha->UpdatePending(running, move, 1100);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().field() == "state");
    CHECK(PgQueryInt(conninfo, "SELECT count(*) FROM queues WHERE name = 'moved'") == 0);
  }
  // tq queue add makes a queue so refused, as any queue not there.
  QueueState added;
  added.name = "lone";
  added.added = true;
  Status made = alpha->AddQueue(added);
  CHECK_MESSAGE(made.ok(), made.message());
  CHECK(*alpha->QueueStateOf("lone") != std::nullopt);
}

// Counts of (queue, state) as the tables hold them.
std::map<std::pair<std::string, TaskState>, int64_t> CountsOf(const std::vector<TaskCount>& c) {
  std::map<std::pair<std::string, TaskState>, int64_t> counts;
  for (const TaskCount& count : c) counts[{count.queue, count.state}] = count.count;
  return counts;
}

TEST_CASE("postgres: the counts every host keeps add up to the tasks and output the store holds") {
  std::string why;
  const std::string conninfo = FreshSchemaUri(&why);
  if (conninfo.empty()) TQ_SKIP(why);
  constexpr int kHosts = 3;
  constexpr int kTasksEach = 40;
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kHosts; ++i) stores.push_back(MustJoin(conninfo, "h" + std::to_string(i)));
  // Each host submits tasks in two queues, runs its own and the others' (claims pass over rows
  // other hosts hold), ends them with output, and purges some: all at once.
  std::vector<std::thread> hosts;
  std::vector<std::string> errors(kHosts);
  for (int i = 0; i < kHosts; ++i) {
    hosts.emplace_back([&, i] {
      Store& store = *stores[i];
      for (int n = 0; n < kTasksEach; ++n) {
        Result<SubmitOutcome> out =
            store.Submit(kAlice, Spec({"x"}, n % 2 == 0 ? "even" : "odd"), 1000 + n, false);
        if (!out.ok()) {
          errors[i] = out.status().message();
          return;
        }
        Result<std::optional<Candidate>> c =
            store.FirstReady(n % 2 == 0 ? "even" : "odd", ReadyOrder::kOldest);
        if (!c.ok() || !c->has_value()) continue;
        Result<std::optional<int>> started = store.StartAttempt((*c)->id, 1000 + n, {});
        if (!started.ok() || !started->has_value()) continue;
        AttemptOutcome done = Exited(1000 + n, n % 3 == 0 ? 1 : 0);
        done.output_bytes = 10 + n;
        Status ended = store
                           .FinishAttempt((*c)->id, **started, done,
                                          n % 3 == 0 ? TaskState::kFailed : TaskState::kSucceeded,
                                          TaskReasonForAttempt(done.reason))
                           .status();
        if (!ended.ok()) {
          errors[i] = ended.message();
          return;
        }
        if (n % 5 == 0) (void)store.PurgeEnded(1000 + n, 2);
      }
    });
  }
  for (std::thread& t : hosts) t.join();
  for (const std::string& error : errors) CHECK_MESSAGE(error.empty(), error);

  auto counts = CountsOf(*stores[0]->TaskCounts());
  int64_t total = 0;
  for (const auto& [key, n] : counts) {
    const auto& [queue, state] = key;
    CHECK(n == PgQueryInt(conninfo, "SELECT count(*) FROM tasks WHERE queue = '" + queue +
                                        "' AND state = '" + StateName(state) + "'"));
    total += n;
  }
  CHECK(total == PgQueryInt(conninfo, "SELECT count(*) FROM tasks"));
  CHECK(*stores[1]->OutputOf(kAlice.uid) ==
        PgQueryInt(conninfo, "SELECT coalesce(sum(output_bytes), 0) FROM attempts"));
  // Each host counted in a row of its own.
  CHECK(PgQueryInt(conninfo, "SELECT count(DISTINCT slot) FROM task_counts") == kHosts);
}

}  // namespace
}  // namespace tq
