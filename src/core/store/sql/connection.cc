#include "core/store/sql/connection.h"

#include <chrono>

namespace tq::sql {

std::string QuotedList(const std::vector<std::string>& values, char open, char close) {
  std::string list(1, open);
  for (const std::string& value : values) {
    list += list.size() > 1 ? ",\"" : "\"";
    for (char c : value) {
      if (c == '"' || c == '\\') list += '\\';
      list += c;
    }
    list += '"';
  }
  return list + close;
}

Result<int64_t> Connection::QueryInt(std::string_view what, const std::string& sql) {
  Result<Stmt> stmt = Prepare(std::string(what), sql);
  if (!stmt.ok()) return stmt.status();
  Query q(*stmt);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  return *row ? q.Int(0) : int64_t{0};
}

Result<std::string> Connection::QueryText(std::string_view what, const std::string& sql) {
  Result<Stmt> stmt = Prepare(std::string(what), sql);
  if (!stmt.ok()) return stmt.status();
  Query q(*stmt);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  return *row ? q.Text(0) : std::string();
}

Status Connection::Commit() {
  if (refuse_commit_)
    if (Status refused = refuse_commit_(); !refused.ok()) return refused;
  const auto start = std::chrono::steady_clock::now();
  Status status = CommitNow();
  if (status.ok() && observe_commit_)
    observe_commit_(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return status;
}

}  // namespace tq::sql
