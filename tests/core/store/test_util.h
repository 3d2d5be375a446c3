// Helpers shared by the store's tests, over the Store interface only: owners, specs, and checked
// calls that REQUIRE success so each test reads as the behaviour it checks.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/store.h"

namespace tq::test {

inline const Owner kAlice{1000, 1000, "alice"};
inline const Owner kBob{1001, 1001, "bob"};

/// A plain request: `argv` in `queue` at `priority`, with a small environment.
inline TaskSpec Spec(std::vector<std::string> argv, std::string queue = "default",
                     int priority = kDefaultPriority) {
  TaskSpec spec;
  spec.argv = std::move(argv);
  spec.queue = std::move(queue);
  spec.priority = priority;
  spec.cwd = "/tmp";
  spec.env = {"HOME=/home/alice", "PATH=/usr/bin:/bin"};
  return spec;
}

/// Spec with an idempotency key and version.
inline TaskSpec Keyed(std::string key, int64_t version, std::vector<std::string> argv = {"x"}) {
  TaskSpec spec = Spec(std::move(argv));
  spec.key = std::move(key);
  spec.version = version;
  return spec;
}

inline TaskId MustInsert(Store& store, const Owner& owner, const TaskSpec& spec,
                         WallMs now = 1000) {
  Result<TaskId> id = store.Insert(owner, spec, now);
  REQUIRE_MESSAGE(id.ok(), id.status().message());
  return *id;
}

inline SubmitOutcome MustSubmit(Store& store, const Owner& owner, const TaskSpec& spec,
                                WallMs now = 1000, bool supersede_running = false) {
  Result<SubmitOutcome> out = store.Submit(owner, spec, now, supersede_running);
  REQUIRE_MESSAGE(out.ok(), out.status().message());
  return *out;
}

/// The names of every queue the store knows, in name order.
inline std::vector<std::string> QueueNames(Store& store) {
  auto states = store.QueueStates();
  REQUIRE(states.ok());
  std::vector<std::string> names;
  for (const QueueState& q : *states) names.push_back(q.name);
  return names;
}

inline Task MustGet(Store& store, TaskId id) {
  Result<Task> task = store.Get(id);
  REQUIRE_MESSAGE(task.ok(), task.status().message());
  return *task;
}

inline TaskState StateOf(Store& store, TaskId id) {
  return MustGet(store, id).state;
}

/// The first ready task of `queue` in `order`, if any.
inline std::optional<TaskId> Ready(Store& store, const std::string& queue,
                                   ReadyOrder order = ReadyOrder::kOldest) {
  Result<std::optional<Candidate>> c = store.FirstReady(queue, order);
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  if (!*c) return std::nullopt;
  return (*c)->id;
}

/// Starts `id` at `now` (it must be ready); returns the attempt number.
inline int MustStart(Store& store, TaskId id, WallMs now) {
  Result<std::optional<int>> n = store.StartAttempt(id, now, {});
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  REQUIRE(n->has_value());
  return **n;
}

/// An attempt that exited with `exit_code` at `ended`.
inline AttemptOutcome Exited(WallMs ended, int exit_code) {
  AttemptOutcome out;
  out.ended = ended;
  out.exit_code = exit_code;
  out.reason = AttemptReason::kExit;
  return out;
}

/// Starts `id` at `now` and finishes it at now+10 in `final_state`; returns what else ended.
inline std::vector<TaskId> StartAndFinish(Store& store, TaskId id, TaskState final_state,
                                          WallMs now) {
  int n = MustStart(store, id, now);
  AttemptOutcome out = Exited(now + 10, final_state == TaskState::kSucceeded ? 0 : 1);
  if (final_state == TaskState::kCancelled) out.reason = AttemptReason::kCancelled;
  Result<std::vector<TaskId>> ended =
      store.FinishAttempt(id, n, out, final_state, TaskReasonForAttempt(out.reason));
  REQUIRE_MESSAGE(ended.ok(), ended.status().message());
  return *ended;
}

/// `ids` sorted, for comparing sets.
inline std::vector<TaskId> Sorted(std::vector<TaskId> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// Every field of a request, compared one by one so a failure names the field.
inline void CheckSpecEq(const TaskSpec& got, const TaskSpec& want) {
  CHECK(got.argv == want.argv);
  CHECK(got.shell == want.shell);
  CHECK(got.queue == want.queue);
  CHECK(got.priority == want.priority);
  CHECK(got.stdin_data == want.stdin_data);
  CHECK(got.cwd == want.cwd);
  CHECK(got.env == want.env);
  CHECK(got.clean_env == want.clean_env);
  CHECK(got.not_before == want.not_before);
  CHECK(got.after == want.after);
  CHECK(got.labels == want.labels);
  CHECK(got.timeout_ms == want.timeout_ms);
  CHECK(got.run_on == want.run_on);
  CHECK(got.key == want.key);
  CHECK(got.version == want.version);
  CHECK(got.retry.retries == want.retry.retries);
  CHECK(got.retry.backoff == want.retry.backoff);
  CHECK(got.retry.base_ms == want.retry.base_ms);
  CHECK(got.retry.max_ms == want.retry.max_ms);
  CHECK(got.retry.jitter == want.retry.jitter);
  CHECK(got.retry.retry_on_exit == want.retry.retry_on_exit);
  CHECK(got.retry.no_retry_on_exit == want.retry.no_retry_on_exit);
  CHECK(got.pending_ttl_ms == want.pending_ttl_ms);
}

/// A run of cron job `job` (labelled job:JOB), exclusive or not, in queue "cron".
inline TaskSpec JobRun(const std::string& job, bool exclusive, WallMs not_before = 0) {
  TaskSpec spec = Spec({"run", job}, "cron");
  spec.labels = {"job:" + job};
  spec.job = job;
  spec.job_exclusive = exclusive;
  spec.not_before = not_before;
  return spec;
}

/// store.Fire as alice; REQUIREs success.
inline FireOutcome MustFire(Store& store, const Firing& firing, const std::optional<TaskSpec>& spec,
                            WallMs now) {
  Result<FireOutcome> out = store.Fire(firing, kAlice, spec, now);
  REQUIRE_MESSAGE(out.ok(), out.status().message());
  return *out;
}

/// store.JobRecords; REQUIREs success.
inline std::vector<JobRecord> MustJobRecords(Store& store) {
  Result<std::vector<JobRecord>> records = store.JobRecords();
  REQUIRE_MESSAGE(records.ok(), records.status().message());
  return *records;
}

}  // namespace tq::test
