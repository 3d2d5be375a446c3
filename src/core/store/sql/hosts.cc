// The SQL store's hosts (SPEC 12): joining as a host, heartbeats, the hosts list, and fencing a
// silent host so its running attempts pass to the host that rescues them.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/model/host_name.h"
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"

namespace tq {

Status SqlStore::JoinHost(const std::string& host, const std::string& version, int max_running,
                          WallMs now) {
  if (Status s = CheckHostName("host", host); !s.ok()) return s;
  int64_t epoch = 0;
  Status status = Write([&]() -> Status {
    {
      sql::Query q(st_->join_host);
      Result<bool> row =
          q.BindText(host).BindText(version).BindInt(now).BindInt(max_running).Step();
      if (!row.ok()) return row.status();
      if (!*row) return sql::StoreError("join as host " + host, "no epoch returned");
      epoch = q.Int(0);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    sql::Query q(st_->adopt_attempts);
    return q.BindText(host).BindInt(epoch).Run();
  });
  if (!status.ok()) return status;
  host_ = host;
  epoch_ = epoch;
  return Status::Ok();
}

Result<std::optional<WallMs>> SqlStore::Heartbeat(int max_running, WallMs now) {
  if (epoch_ == 0) return std::optional<WallMs>(now);  // joined no host
  std::optional<WallMs> at;
  const auto beat = [&]() -> Status {
    at.reset();
    sql::Query q(st_->heartbeat);
    q.BindText(host_).BindInt(epoch_).BindInt(max_running);
    if (dialect_ == sql::Dialect::kSqlite) q.BindInt(now);  // PostgreSQL's own clock
    Result<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (*row) at = q.Int(0);
    return q.Run();
  };
  // PostgreSQL: one statement, committed on its own, holding only this host's row; SQLite's one
  // writer takes it as any write.
  Status status = dialect_ == sql::Dialect::kSqlite ? Write(beat) : beat();
  if (!status.ok()) return status;
  return at;
}

Status SqlStore::ActForHost(const std::string& host, int64_t epoch) {
  if (Status s = CheckHostName("host", host); !s.ok()) return s;
  host_ = host;
  epoch_ = epoch;
  return Status::Ok();
}

Status SqlStore::HostCurrent() {
  if (epoch_ == 0) return Status::Ok();  // joined no host
  sql::Query q(st_->host_current);
  Result<bool> current = q.BindText(host_).BindInt(epoch_).Step();
  if (!current.ok()) return current.status();
  if (*current) return Status::Ok();
  return sql::StoreError("start attempt", "host " + host_ +
                                              " was fenced by another host: it starts nothing "
                                              "until it joins again");
}

Status SqlStore::LeaveHost() {
  if (epoch_ == 0) return Status::Ok();  // joined no host
  return Write([&]() -> Status {
    sql::Query q(st_->leave_host);
    return q.BindText(host_).BindInt(epoch_).Run();
  });
}

Result<std::vector<HostRecord>> SqlStore::Hosts(WallMs now) {
  std::vector<HostRecord> hosts;
  sql::Query q(st_->hosts);
  Status s = q.ForEach([&] {
    HostRecord h;
    h.name = q.Text(0);
    h.version = q.Text(1);
    h.epoch = q.Int(2);
    h.beats = q.Int(3);
    h.started = q.Int(4);
    h.heartbeat = q.Int(5);
    h.max_running = static_cast<int>(q.Int(6));
    h.running = static_cast<int>(q.Int(7));
    h.silent_ms = (dialect_ == sql::Dialect::kSqlite ? now : q.Int(8)) - h.heartbeat;
    hosts.push_back(std::move(h));
  });
  if (!s.ok()) return s;
  return hosts;
}

Result<std::optional<std::vector<RunningAttempt>>> SqlStore::FenceHost(const std::string& host,
                                                                       int64_t beats) {
  std::optional<std::vector<RunningAttempt>> taken;
  Status status = Write([&]() -> Status {
    {
      sql::Query q(st_->fence_host);
      if (Status s = q.BindText(host).BindInt(beats).BindText(host_).BindInt(epoch_).Run(); !s.ok())
        return s;
      if (db_->Changes() == 0) return Status::Ok();  // it beat since, or is ours, or is unknown
    }
    std::set<std::pair<TaskId, int>> took;
    {
      sql::Query q(st_->take_attempts);
      Status s = q.BindText(host).BindText(host_).BindInt(epoch_).ForEach(
          [&] { took.emplace(q.Int(0), static_cast<int>(q.Int(1))); });
      if (!s.ok()) return s;
    }
    Result<std::vector<RunningAttempt>> running = RunningAttemptsOf(host_);
    if (!running.ok()) return running.status();
    taken.emplace();
    for (RunningAttempt& a : *running)
      if (took.count({a.task_id, a.number}) > 0) taken->push_back(std::move(a));
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return taken;
}

Result<std::vector<std::pair<std::string, RunningAttempt>>> SqlStore::TakeFenced() {
  std::vector<std::pair<std::string, RunningAttempt>> taken;
  if (st_->take_fenced == nullptr || epoch_ == 0) return taken;
  Status status = Write([&]() -> Status {
    taken.clear();
    std::map<std::pair<TaskId, int>, std::string> holders;
    {
      sql::Query q(st_->take_fenced);
      Status s = q.BindText(host_).BindInt(epoch_).ForEach([&] {
        holders[{q.Int(0), static_cast<int>(q.Int(1))}] = q.Text(2);
      });
      if (!s.ok()) return s;
    }
    if (holders.empty()) return Status::Ok();
    Result<std::vector<RunningAttempt>> running = RunningAttemptsOf(host_);
    if (!running.ok()) return running.status();
    for (RunningAttempt& a : *running) {
      auto it = holders.find({a.task_id, a.number});
      if (it != holders.end()) taken.emplace_back(it->second, std::move(a));
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return taken;
}

Result<std::vector<TaskId>> SqlStore::EndContextLost(WallMs now) {
  std::vector<TaskId> ended;
  if (st_->context_lost == nullptr) return ended;
  Status status = Write([&]() -> Status {
    ended.clear();
    std::vector<TaskId> lost;
    sql::Query q(st_->context_lost);
    if (Status s = q.ForEach([&] { lost.push_back(q.Int(0)); }); !s.ok()) return s;
    for (TaskId id : lost) {
      Status s = EndPendingInTx(id, TaskState::kFailed, TaskReason::kContextLost, now, &ended);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return ended;
}

Result<std::vector<std::pair<TaskId, int>>> SqlStore::PassedOnAttempts() {
  std::vector<std::pair<TaskId, int>> passed;
  sql::Query q(st_->passed_on);
  Status s =
      q.BindText(host_).ForEach([&] { passed.emplace_back(q.Int(0), static_cast<int>(q.Int(1))); });
  if (!s.ok()) return s;
  return passed;
}

}  // namespace tq
