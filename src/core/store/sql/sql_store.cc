// The SQL store's reads and shared machinery: Get and List, the queues and their run-time
// settings, the running attempts and counts, and WriteTogether.
#include "core/store/sql/sql_store.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/model/quote.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

namespace {

using sql::TaskName;

// List: one statement per combination of filters and number of states in ListFilter::states,
// prepared on first use.
enum ListFilterBit { kByOwner = 1, kByQueue = 2, kByLabel = 4, kListMasks = 8 };
std::string ListSql(sql::Dialect d, int mask, size_t states) {
  std::string sql = sql::TaskSelect(d, false) + "WHERE 1 = 1";
  int n = 0;
  auto param = [&n] { return "$" + std::to_string(++n); };
  if (mask & kByOwner) sql += " AND t.owner_uid = " + param();
  for (size_t i = 0; i < states; ++i)  // one state is "IN ($2)", which both read as "= $2"
    sql += (i == 0 ? " AND t.state IN (" : ", ") + param() + (i + 1 == states ? ")" : "");
  if (mask & kByQueue) sql += " AND t.queue = " + param();
  if (mask & kByLabel)
    sql += " AND t.id IN (SELECT task_id FROM task_labels WHERE label = " + param() + ")";
  sql += " AND t.id < " + param();  // id < before_id: the next page
  return sql + " ORDER BY t.id DESC LIMIT " + param();
}

}  // namespace

SqlStore::SqlStore(std::unique_ptr<sql::Connection> db, sql::Dialect dialect)
    : db_(std::move(db)), dialect_(dialect), st_(std::make_unique<Statements>()) {}

SqlStore::~SqlStore() = default;

// ---- tasks ----

Status SqlStore::LoadLists(Task& task, AttemptsRead which) {
  if (!task.spec.stages.empty()) {  // ReadTask made as many as the row counts
    size_t read = 0;
    sql::Query q(st_->task_stages);
    Status s = q.BindInt(task.id).ForEach([&]() -> Status {
      if (read >= task.spec.stages.size() || q.Int(0) != static_cast<int64_t>(read) ||
          !sql::ReadStage(q, &task.spec.stages[read]))
        return sql::StoreError("read stages of " + TaskName(task.id), "corrupt stage");
      ++read;
      return Status::Ok();
    });
    if (!s.ok()) return s;
    if (read != task.spec.stages.size())
      return sql::StoreError("read stages of " + TaskName(task.id), "missing stages");
  }
  if (task.attempt_count == 0 || which == AttemptsRead::kNone) return Status::Ok();
  sql::Query q(which == AttemptsRead::kAll ? st_->task_attempts : st_->last_attempt);
  return q.BindInt(task.id).ForEach([&]() -> Status {
    Attempt a;
    if (!sql::ReadAttempt(q, &a)) {
      return sql::StoreError("read attempts of " + TaskName(task.id), "corrupt reason or units");
    }
    task.attempts.push_back(a);
    return Status::Ok();
  });
}

Result<Task> SqlStore::Get(TaskId id) {
  return GetWith(st_->get_task, id);
}

Result<Task> SqlStore::GetSummary(TaskId id) {
  return GetWith(st_->get_task_summary, id);
}

Result<Task> SqlStore::GetWith(sql::Stmt& stmt, TaskId id) {
  Result<Task> task = Status::NotFound(TaskName(id) + " not found");
  {
    sql::Query q(stmt);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    if (!*row) return task;
    task = sql::ReadTask(q);
    if (!task.ok()) return task;
  }
  if (Status s = LoadLists(*task, AttemptsRead::kAll); !s.ok()) return s;
  return task;
}

Result<std::vector<Task>> SqlStore::GetSummaries(const std::vector<TaskId>& asked) {
  constexpr size_t kChunk = 500;
  // Each id once: a copy in another statement would read its task again.
  std::vector<TaskId> ids = asked;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Task> tasks;
  for (size_t from = 0; from < ids.size(); from += kChunk) {
    std::vector<std::string> texts;
    for (size_t i = from; i < std::min(ids.size(), from + kChunk); ++i)
      texts.push_back(std::to_string(ids[i]));
    const size_t first = tasks.size();
    {
      sql::Query q(st_->get_summaries);
      Status s = q.BindTextList(texts).ForEach([&]() -> Status {
        Result<Task> task = sql::ReadTask(q);
        if (!task.ok()) return task.status();
        tasks.push_back(std::move(*task));
        return Status::Ok();
      });
      if (!s.ok()) return s;
    }
    std::map<TaskId, Task*> by_id;
    for (size_t i = first; i < tasks.size(); ++i) by_id[tasks[i].id] = &tasks[i];
    sql::Query q(st_->attempts_of_tasks);
    Status s = q.BindTextList(texts).ForEach([&]() -> Status {
      Attempt a;
      if (!sql::ReadAttempt(q, &a))
        return sql::StoreError("read attempts of " + TaskName(q.Int(17)),
                               "corrupt reason or units");
      if (auto it = by_id.find(q.Int(17)); it != by_id.end())
        it->second->attempts.push_back(std::move(a));
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  for (Task& task : tasks) {
    if (task.spec.stages.empty()) continue;
    if (Status s = LoadLists(task, AttemptsRead::kNone); !s.ok()) return s;  // read above
  }
  std::sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) { return a.id < b.id; });
  return tasks;
}

Result<std::vector<TaskId>> SqlStore::EndedAmong(const std::vector<TaskId>& ids) {
  std::vector<TaskId> ended;
  if (ids.empty()) return ended;
  std::vector<std::string> texts;
  texts.reserve(ids.size());
  for (TaskId id : ids) texts.push_back(std::to_string(id));
  sql::Query q(st_->ended_among);
  Status s = q.BindTextList(texts).ForEach([&] { ended.push_back(q.Int(0)); });
  if (!s.ok()) return s;
  return ended;
}

Result<sql::Stmt*> SqlStore::ListStatement(const ListFilter& filter, size_t states) {
  const int mask = (filter.owner_uid ? kByOwner : 0) | (filter.queue ? kByQueue : 0) |
                   (filter.label ? kByLabel : 0);
  sql::Stmt& stmt = st_->list[mask + kListMasks * states];
  if (stmt == nullptr) {
    Result<sql::Stmt> prepared = db_->Prepare("list tasks", ListSql(dialect_, mask, states));
    if (!prepared.ok()) return prepared.status();
    stmt = std::move(*prepared);
  }
  return &stmt;
}

Result<std::vector<Task>> SqlStore::List(const ListFilter& filter) {
  std::vector<TaskState> states;  // each once: at most one per TaskState
  for (TaskState state : filter.states)
    if (std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
  Result<sql::Stmt*> stmt = ListStatement(filter, states.size());
  if (!stmt.ok()) return stmt.status();
  std::vector<Task> tasks;
  {
    sql::Query q(**stmt);
    if (filter.owner_uid) q.BindInt(*filter.owner_uid);
    for (TaskState state : states) q.BindText(StateName(state));
    if (filter.queue) q.BindText(*filter.queue);
    if (filter.label) q.BindText(*filter.label);
    q.BindInt(filter.before_id ? *filter.before_id : INT64_MAX);
    q.BindInt(filter.limit > 0 ? filter.limit : INT64_MAX);
    Status s = q.ForEach([&]() -> Status {
      Result<Task> task = sql::ReadTask(q);
      if (!task.ok()) return task.status();
      tasks.push_back(std::move(*task));
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  for (Task& task : tasks) {
    if (Status s = LoadLists(task, AttemptsRead::kLast); !s.ok()) return s;
  }
  return tasks;
}

// ---- queues ----

namespace {
// Reads the rows of `q` (name, paused, concurrency, priority_mix, added) as queue states.
Result<std::vector<QueueState>> ReadQueueStates(sql::Query& q) {
  std::vector<QueueState> queues;
  Status s = q.ForEach([&] {
    QueueState state;
    state.name = q.Text(0);
    state.paused = q.Int(1) != 0;
    if (!q.IsNull(2)) state.concurrency = static_cast<int>(q.Int(2));
    if (!q.IsNull(3)) state.priority_mix = PriorityMixNamed(q.Text(3));
    state.added = q.Int(4) != 0;
    queues.push_back(std::move(state));
  });
  if (!s.ok()) return s;
  return queues;
}
}  // namespace

Result<std::vector<QueueState>> SqlStore::QueueStates() {
  sql::Query q(st_->queue_states);
  return ReadQueueStates(q);
}

Result<std::optional<QueueState>> SqlStore::QueueStateOf(const std::string& name) {
  sql::Query q(st_->queue_state);
  q.BindText(name);
  Result<std::vector<QueueState>> found = ReadQueueStates(q);
  if (!found.ok()) return found.status();
  if (found->empty()) return std::optional<QueueState>();
  return std::optional<QueueState>(std::move(found->front()));
}

Result<int64_t> SqlStore::QueuesNamedFrom(const std::string& prefix) {
  sql::Query q(st_->queues_named_from);
  Result<bool> row = q.BindText(prefix).Step();
  if (!row.ok()) return row.status();
  return *row ? q.Int(0) : 0;
}

Result<std::vector<QueueState>> SqlStore::ReadyQueues() {
  sql::Query q(st_->ready_queues);
  return ReadQueueStates(q);
}

Status SqlStore::SetQueuePaused(const std::string& queue, bool paused) {
  return Write([&]() -> Status {
    sql::Query q(st_->set_queue_paused);
    return q.BindText(queue).BindInt(paused ? 1 : 0).Run();
  });
}

Status SqlStore::SetQueueConcurrency(const std::string& queue, std::optional<int> concurrency) {
  if (concurrency && *concurrency < 0) {
    return Status::Invalid("concurrency", "concurrency " + std::to_string(*concurrency) +
                                              " of queue " + queue + " is negative");
  }
  return Write([&]() -> Status {
    sql::Query q(st_->set_queue_concurrency);
    std::optional<int64_t> value;
    if (concurrency) value = *concurrency;
    return q.BindText(queue).BindOptInt(value).Run();
  });
}

Status SqlStore::SetQueuePriorityMix(const std::string& queue, std::optional<PriorityMix> mix) {
  return Write([&]() -> Status {
    sql::Query q(st_->set_queue_priority_mix);
    std::optional<std::string> name;
    if (mix) name = PriorityMixName(*mix);
    return q.BindText(queue).BindOptText(name).Run();
  });
}

Status SqlStore::AddQueue(const QueueState& queue) {
  return Write([&]() -> Status {
    sql::Query exists(st_->queue_exists);
    Result<bool> row = exists.BindText(queue.name).Step();
    if (!row.ok()) return row.status();
    if (*row) return Status::Invalid("name", "queue " + Quote(queue.name) + " exists already");
    sql::Query q(st_->add_queue);
    std::optional<int64_t> concurrency;
    if (queue.concurrency) concurrency = *queue.concurrency;
    std::optional<std::string> mix;
    if (queue.priority_mix) mix = PriorityMixName(*queue.priority_mix);
    q.BindText(queue.name).BindInt(queue.paused ? 1 : 0).BindOptInt(concurrency);
    return q.BindOptText(mix).BindInt(queue.added ? 1 : 0).Run();
  });
}

// ---- running ----

Result<std::vector<RunningAttempt>> SqlStore::RunningAttempts() {
  return RunningAttemptsOf(host_);
}

Result<std::vector<RunningAttempt>> SqlStore::RunningAttemptsOf(const std::string& host) {
  std::vector<RunningAttempt> running;
  sql::Query q(st_->running_attempts);
  Status s = q.BindText(host).ForEach([&] {
    RunningAttempt a;
    a.task_id = q.Int(0);
    a.number = static_cast<int>(q.Int(1));
    a.timeout_ms = q.Int(2);
    a.started = q.Int(3);
    auto attempt_reason = AttemptReasonFromName(q.Text(4));
    auto task_reason = TaskReasonFromName(q.Text(5));
    if (attempt_reason && *attempt_reason != AttemptReason::kNone && task_reason)
      a.stop = StopRequest{*attempt_reason, *task_reason, q.Int(6)};
    a.keep_background = q.Int(7) != 0;
    a.host = q.Text(8);
    running.push_back(std::move(a));
  });
  if (!s.ok()) return s;
  return running;
}

Result<std::map<std::string, int>> SqlStore::RunningCounts() {
  std::map<std::string, int> counts;
  sql::Query q(st_->running_counts);
  Status s = q.ForEach([&] { counts[q.Text(0)] = static_cast<int>(q.Int(1)); });
  if (!s.ok()) return s;
  return counts;
}

Result<std::vector<std::string>> SqlStore::HoldQueues(const std::vector<std::string>& queues) {
  if (queues.empty() || dialect_ == sql::Dialect::kSqlite) return queues;  // one writer
  const auto hold = [&]() -> Result<std::vector<std::string>> {
    std::vector<std::string> held;
    sql::Query q(st_->hold_queues);
    Status s = q.BindTextList(queues).ForEach([&] { held.push_back(q.Text(0)); });
    if (!s.ok()) return s;
    return held;
  };
  Result<std::vector<std::string>> held = hold();
  if (!held.ok() || held->size() == queues.size()) return held;
  // A queue not held is another host's now, or has no row: a queue has its row from its first
  // task on, and one without is given it (held by this transaction) and held with the others.
  sql::Query add(st_->add_queues);
  if (Status s = add.BindTextList(queues).Run(); !s.ok()) return s;
  return db_->Changes() > 0 ? hold() : held;
}

void SqlStore::AfterCommit(std::function<void()> effect) {
  if (together_)
    outbox_.Add(std::move(effect));
  else
    effect();
}

Status SqlStore::WriteTogether(const std::function<Status()>& body, CommitSync sync) {
  if (together_) return Status::Internal("WriteTogether: already inside one");
  Status s = TogetherCommitted(body, sync);
  if (s.ok())
    outbox_.Deliver();  // after together_ is false: an effect's own writes commit on their own
  else
    outbox_.Drop();
  return s;
}

Status SqlStore::TogetherCommitted(const std::function<Status()>& body, CommitSync sync) {
  if (sync == CommitSync::kLater) db_->SyncLater();
  sql::Transaction tx(*db_);
  if (Status s = tx.Begin(); !s.ok()) return s;
  together_ = true;
  together_failed_ = Status::Ok();
  Status s = body();
  together_ = false;
  if (careful_ > 0) --careful_;
  if (!together_failed_.ok()) careful_ = kCarefulTransactions;
  if (!s.ok()) return s;  // tx rolls back
  if (!together_failed_.ok()) return together_failed_;
  if (!db_->InTransaction())
    return Status(ErrorCode::kInternal, "", "the shared transaction was rolled back");
  return tx.Commit();
}

Result<std::vector<std::string>> SqlStore::ActiveQueuesOf(uint32_t owner_uid) {
  std::vector<std::string> queues;
  sql::Query q(st_->active_queues_of);
  Status s = q.BindInt(owner_uid).ForEach([&] { queues.push_back(q.Text(0)); });
  if (!s.ok()) return s;
  return queues;
}

Result<std::vector<TaskCount>> SqlStore::TaskCounts() {
  std::vector<TaskCount> counts;
  sql::Query q(st_->task_counts);
  Status s = q.ForEach([&]() -> Status {
    std::optional<TaskState> state = StateFromName(q.Text(1));
    if (!state) return sql::StoreError("count tasks of queue " + q.Text(0), "corrupt state");
    counts.push_back({q.Text(0), *state, q.Int(2)});
    return Status::Ok();
  });
  if (!s.ok()) return s;
  // By queue (as the query returns them), then in TaskState's order rather than by name.
  std::stable_sort(counts.begin(), counts.end(), [](const TaskCount& a, const TaskCount& b) {
    return a.queue == b.queue ? a.state < b.state : a.queue < b.queue;
  });
  return counts;
}

Result<RunningTally> SqlStore::Running() {
  RunningTally tally;
  sql::Query q(st_->running_tally);
  Status s = q.ForEach([&] {
    const int n = static_cast<int>(q.Int(2));
    tally.by_queue[q.Text(0)] += n;
    tally.by_owner[static_cast<uint32_t>(q.Int(1))] += n;
  });
  if (!s.ok()) return s;
  return tally;
}

Result<std::map<uint32_t, int>> SqlStore::RunningByOwner() {
  std::map<uint32_t, int> counts;
  sql::Query q(st_->running_by_owner);
  Status s =
      q.ForEach([&] { counts[static_cast<uint32_t>(q.Int(0))] = static_cast<int>(q.Int(1)); });
  if (!s.ok()) return s;
  return counts;
}

Result<int64_t> SqlStore::PendingOf(uint32_t owner_uid) {
  sql::Query q(st_->pending_of_owner);
  Result<bool> row = q.BindInt(owner_uid).Step();
  if (!row.ok()) return row.status();
  return *row ? q.Int(0) : 0;
}

Result<int64_t> SqlStore::OutputOf(uint32_t owner_uid) {
  sql::Query q(st_->output_of_owner);
  Result<bool> row = q.BindInt(owner_uid).Step();
  if (!row.ok()) return row.status();
  return *row ? q.Int(0) : 0;
}

Result<std::optional<WallMs>> SqlStore::QueryMin(sql::Stmt& stmt, std::optional<int64_t> param) {
  sql::Query q(stmt);
  if (param) q.BindInt(*param);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  if (!*row || q.IsNull(0)) return std::optional<WallMs>();
  return std::optional<WallMs>(q.Int(0));
}

}  // namespace tq
