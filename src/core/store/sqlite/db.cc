#include "core/store/sqlite/db.h"

#include <sqlite3.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

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

Status Error(std::string_view what, std::string_view detail, int rc) {
  return sql::StoreError(what, detail).WithFault(FaultOf(rc));
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
    : sql::Connection(std::move(other)),
      db_(std::exchange(other.db_, nullptr)),
      durability_full_(other.durability_full_),
      syncing_(other.syncing_),
      sync_later_(other.sync_later_),
      begin_(std::exchange(other.begin_, nullptr)),
      commit_(std::exchange(other.commit_, nullptr)),
      rollback_(std::exchange(other.rollback_, nullptr)),
      savepoint_(std::exchange(other.savepoint_, nullptr)),
      rollback_to_(std::exchange(other.rollback_to_, nullptr)),
      release_(std::exchange(other.release_, nullptr)) {}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    Close();
    sql::Connection::operator=(std::move(other));
    db_ = std::exchange(other.db_, nullptr);
    durability_full_ = other.durability_full_;
    syncing_ = other.syncing_;
    sync_later_ = other.sync_later_;
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

Status Db::SetDurability(bool full) {
  durability_full_ = full;
  syncing_ = !full;  // so that SyncCommits sets it whatever SQLite's default is
  return SyncCommits(full);
}

Status Db::SyncCommits(bool full) {
  if (full == syncing_) return Status::Ok();
  Status s =
      Exec("set synchronous", full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
  if (s.ok()) syncing_ = full;
  return s;
}

Status Db::Begin() {
  const bool sync = durability_full_ && !std::exchange(sync_later_, false);
  if (Status s = SyncCommits(sync); !s.ok()) return s;
  return StepOnce(begin_, "begin transaction");
}
Status Db::CommitNow() {
  return StepOnce(commit_, "commit");
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

int64_t Db::Changes() const {
  return sqlite3_changes(db_);
}

// ---- statements ----

namespace {

// A prepared SQLite statement. SQLite reads "$1" as a parameter named "$1" (several uses of one
// name share its slot), so the slot of each $k is looked up once, at prepare.
class SqliteStatement : public sql::Statement {
 public:
  SqliteStatement(sqlite3_stmt* stmt, std::string what, std::vector<int> slots)
      : stmt_(stmt), what_(std::move(what)), slots_(std::move(slots)) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt(int64_t value) override { Check(sqlite3_bind_int64(stmt_, NextSlot(), value)); }
  void BindText(std::string_view value) override {
    Check(sqlite3_bind_text64(stmt_, NextSlot(), NonNull(value), value.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8));
  }
  void BindBlob(std::string_view value) override {
    Check(sqlite3_bind_blob64(stmt_, NextSlot(), NonNull(value), value.size(), SQLITE_TRANSIENT));
  }
  void BindNull() override { Check(sqlite3_bind_null(stmt_, NextSlot())); }
  // A JSON array of strings, for json_each.
  void BindTextList(const std::vector<std::string>& values) override {
    BindText(sql::QuotedList(values, '[', ']'));
  }

  Result<bool> Step() override {
    if (bind_error_ != SQLITE_OK)
      return Error(what_, std::string("bind: ") + sqlite3_errstr(bind_error_), bind_error_);
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return StepError(stmt_, what_);
  }
  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  std::string Text(int col) const override {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
  }
  std::string Blob(int col) const override {
    const void* p = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return p != nullptr ? std::string(static_cast<const char*>(p), n) : std::string();
  }
  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    next_ = 0;
    bind_error_ = SQLITE_OK;
  }

 private:
  int NextSlot() {
    const size_t k = next_++;
    return k < slots_.size() ? slots_[k] : static_cast<int>(k) + 1;
  }
  void Check(int rc) {
    if (bind_error_ == SQLITE_OK) bind_error_ = rc;
  }

  sqlite3_stmt* stmt_;
  std::string what_;
  std::vector<int> slots_;  ///< the slot of $1, $2, ...
  size_t next_ = 0;
  int bind_error_ = SQLITE_OK;
};

}  // namespace

Result<sql::Stmt> Db::Prepare(std::string what, const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &raw, nullptr) != SQLITE_OK) {
    return Error("prepare " + what, sqlite3_errmsg(db_), sqlite3_errcode(db_));
  }
  // Slots of $1 .. $n; a statement with ? or ?N parameters binds them by position.
  std::vector<int> slots;
  const int n = sqlite3_bind_parameter_count(raw);
  for (int k = 1; k <= n; ++k) {
    const char* name = sqlite3_bind_parameter_name(raw, k);
    if (name == nullptr || name[0] != '$') {
      slots.push_back(k);
      continue;
    }
    const int slot = sqlite3_bind_parameter_index(raw, ("$" + std::to_string(k)).c_str());
    if (slot == 0) {
      sqlite3_finalize(raw);
      return sql::StoreError("prepare " + what, "parameters are not numbered $1 to $" +
                                                    std::to_string(n) + " without a gap");
    }
    slots.push_back(slot);
  }
  return sql::Stmt(std::make_unique<SqliteStatement>(raw, std::move(what), std::move(slots)));
}

}  // namespace tq::sqlite
