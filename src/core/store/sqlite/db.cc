#include "core/store/sqlite/db.h"

#include <sqlite3.h>

#include <chrono>
#include <utility>

namespace tq::sqlite {

namespace {
// SQLite reads a NULL pointer as SQL NULL even with length 0; an empty value must stay a value.
const char* NonNull(std::string_view v) {
  return v.data() != nullptr ? v.data() : "";
}

Status StepError(sqlite3_stmt* stmt, std::string_view what) {
  sqlite3* db = sqlite3_db_handle(stmt);
  return Error(what, sqlite3_errmsg(db), sqlite3_extended_errcode(db));
}

// Steps one of the connection's own transaction statements to completion.
Status StepOnce(sqlite3_stmt* stmt, std::string_view what) {
  int rc = sqlite3_step(stmt);
  Status status = rc == SQLITE_DONE ? Status::Ok() : StepError(stmt, what);
  sqlite3_reset(stmt);
  return status;
}
}  // namespace

Status Error(std::string_view what, std::string_view detail) {
  return sql::StoreError(what, detail);
}

Status Error(std::string_view what, std::string_view detail, int rc) {
  return Error(what, detail).WithFault(FaultOf(rc));
}

StoreFault FaultOf(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_NOMEM:
    case SQLITE_INTERRUPT:
    case SQLITE_PROTOCOL:
    case SQLITE_CANTOPEN:
      return StoreFault::kTransient;
    default:
      return StoreFault::kPermanent;
  }
}

// ---- Db ----

Result<Db> Db::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status status = Error("open", raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc), rc);
    sqlite3_close_v2(raw);
    return status;
  }
  Db db(raw);
  struct {
    sqlite3_stmt** slot;
    const char* sql;
  } const kStatements[] = {
      {&db.begin_, "BEGIN IMMEDIATE"},
      {&db.commit_, "COMMIT"},
      {&db.rollback_, "ROLLBACK"},
      {&db.savepoint_, "SAVEPOINT item"},
      {&db.rollback_to_, "ROLLBACK TO item"},
      {&db.release_, "RELEASE item"},
  };
  for (const auto& s : kStatements) {
    if (sqlite3_prepare_v3(raw, s.sql, -1, SQLITE_PREPARE_PERSISTENT, s.slot, nullptr) !=
        SQLITE_OK) {
      return Error(std::string("prepare ") + s.sql, sqlite3_errmsg(raw), sqlite3_errcode(raw));
    }
  }
  return db;
}

Db::Db(Db&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      begin_(std::exchange(other.begin_, nullptr)),
      commit_(std::exchange(other.commit_, nullptr)),
      rollback_(std::exchange(other.rollback_, nullptr)),
      savepoint_(std::exchange(other.savepoint_, nullptr)),
      rollback_to_(std::exchange(other.rollback_to_, nullptr)),
      release_(std::exchange(other.release_, nullptr)) {}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    Close();
    db_ = std::exchange(other.db_, nullptr);
    begin_ = std::exchange(other.begin_, nullptr);
    commit_ = std::exchange(other.commit_, nullptr);
    rollback_ = std::exchange(other.rollback_, nullptr);
    savepoint_ = std::exchange(other.savepoint_, nullptr);
    rollback_to_ = std::exchange(other.rollback_to_, nullptr);
    release_ = std::exchange(other.release_, nullptr);
  }
  return *this;
}

Db::~Db() {
  Close();
}

void Db::Close() {
  sqlite3_finalize(begin_);
  sqlite3_finalize(commit_);
  sqlite3_finalize(rollback_);
  sqlite3_finalize(savepoint_);
  sqlite3_finalize(rollback_to_);
  sqlite3_finalize(release_);
  // close_v2 defers the close until any statement still alive is finalized.
  sqlite3_close_v2(db_);
  begin_ = commit_ = rollback_ = savepoint_ = rollback_to_ = release_ = nullptr;
  db_ = nullptr;
}

Status Db::Exec(std::string_view what, const std::string& sql) {
  char* message = nullptr;
  if (int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message); rc != SQLITE_OK) {
    Status status = Error(what, message != nullptr ? message : sqlite3_errmsg(db_), rc);
    sqlite3_free(message);
    return status;
  }
  return Status::Ok();
}

Result<int64_t> Db::QueryInt(std::string_view what, const std::string& sql) {
  Result<Stmt> stmt = Stmt::Prepare(*this, std::string(what), sql);
  if (!stmt.ok()) return stmt.status();
  Query q(*stmt);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  return *row ? q.Int(0) : int64_t{0};
}

Result<std::string> Db::QueryText(std::string_view what, const std::string& sql) {
  Result<Stmt> stmt = Stmt::Prepare(*this, std::string(what), sql);
  if (!stmt.ok()) return stmt.status();
  Query q(*stmt);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  return *row ? q.Text(0) : std::string();
}

Status Db::Begin() {
  return StepOnce(begin_, "begin transaction");
}
Status Db::Commit() {
  const auto start = std::chrono::steady_clock::now();
  Status status = StepOnce(commit_, "commit");
  if (status.ok() && observe_commit_)
    observe_commit_(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return status;
}

void Db::Rollback() {
  if (sqlite3_get_autocommit(db_) == 0) StepOnce(rollback_, "rollback");
}

bool Db::InTransaction() const {
  return sqlite3_get_autocommit(db_) == 0;
}

Status Db::Savepoint() {
  return StepOnce(savepoint_, "savepoint");
}
Status Db::RollbackToSavepoint() {
  return StepOnce(rollback_to_, "rollback to savepoint");
}
Status Db::ReleaseSavepoint() {
  return StepOnce(release_, "release savepoint");
}

int64_t Db::LastInsertRowid() const {
  return sqlite3_last_insert_rowid(db_);
}
int Db::Changes() const {
  return sqlite3_changes(db_);
}

// ---- Stmt ----

Result<Stmt> Stmt::Prepare(Db& db, std::string what, const std::string& sql) {
  Stmt stmt;
  if (sqlite3_prepare_v3(db.handle(), sql.c_str(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &stmt.stmt_, nullptr) != SQLITE_OK) {
    return Error("prepare " + what, sqlite3_errmsg(db.handle()), sqlite3_errcode(db.handle()));
  }
  stmt.what_ = std::move(what);
  return stmt;
}

Stmt::Stmt(Stmt&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), what_(std::move(other.what_)) {}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    what_ = std::move(other.what_);
  }
  return *this;
}

Stmt::~Stmt() {
  sqlite3_finalize(stmt_);
}

// ---- Query ----

Query::Query(Stmt& stmt) : stmt_(stmt) {}

Query::~Query() {
  sqlite3_reset(stmt_.stmt_);
  sqlite3_clear_bindings(stmt_.stmt_);
}

Query& Query::BindInt(int64_t value) {
  int rc = sqlite3_bind_int64(stmt_.stmt_, next_param_++, value);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Query& Query::BindText(std::string_view value) {
  int rc = sqlite3_bind_text64(stmt_.stmt_, next_param_++, NonNull(value), value.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Query& Query::BindBlob(std::string_view value) {
  int rc = sqlite3_bind_blob64(stmt_.stmt_, next_param_++, NonNull(value), value.size(),
                               SQLITE_TRANSIENT);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Query& Query::BindOptBlob(const std::optional<std::string>& value) {
  if (value) return BindBlob(*value);
  return BindNull();
}

Query& Query::BindOptText(const std::optional<std::string>& value) {
  if (value) return BindText(*value);
  return BindNull();
}

Query& Query::BindOptInt(const std::optional<int64_t>& value) {
  if (value) return BindInt(*value);
  return BindNull();
}

Query& Query::BindNull() {
  int rc = sqlite3_bind_null(stmt_.stmt_, next_param_++);
  if (bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Result<bool> Query::Step() {
  if (bind_error_ != SQLITE_OK) {
    return Error(stmt_.what_, std::string("bind: ") + sqlite3_errstr(bind_error_), bind_error_);
  }
  int rc = sqlite3_step(stmt_.stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return StepError(stmt_.stmt_, stmt_.what_);
}

Status Query::Run() {
  return ForEach([] {});
}

int64_t Query::Int(int col) const {
  return sqlite3_column_int64(stmt_.stmt_, col);
}

std::string Query::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_.stmt_, col);
  int n = sqlite3_column_bytes(stmt_.stmt_, col);
  return p != nullptr ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

std::string Query::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_.stmt_, col);
  int n = sqlite3_column_bytes(stmt_.stmt_, col);
  return p != nullptr ? std::string(static_cast<const char*>(p), n) : std::string();
}

bool Query::IsNull(int col) const {
  return sqlite3_column_type(stmt_.stmt_, col) == SQLITE_NULL;
}

// ---- Transaction ----

}  // namespace tq::sqlite
