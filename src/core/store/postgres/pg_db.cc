#include "core/store/postgres/pg_db.h"

#include <endian.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/model/clock.h"
#include "core/store/postgres/redact.h"

namespace tq::pg {

namespace {

// Type OIDs (pg_type.h is not among libpq's headers): of the integer results Int reads, and of
// the parameters Prepare declares bigint.
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;

// libpq's connection parameters given unless the store's URI sets its own: a server that cannot
// be reached, or a network that stops carrying the connection, is found out in seconds (a
// connection's keepalives and unacknowledged data bounded), not in TCP's minutes.
constexpr const char* kDefaultKeys[] = {"connect_timeout", "keepalives_idle", "keepalives_interval",
                                        "keepalives_count", "tcp_user_timeout"};
constexpr const char* kDefaultValues[] = {"5", "10", "5", "3", "30000"};

// Begin's command, held back until the transaction's first statement (Db::Hold).
constexpr const char* kBeginSql = "BEGIN";

// The clock of the answer timeout and the reconnect pauses.
const RealClock kClock;

// Numbers for connections and statement names, unique in the process.
std::atomic<uint64_t> next_connection{1};
std::atomic<uint64_t> next_statement{1};

// The first line of libpq's message, without its "ERROR:  " or "FATAL:  " prefix.
std::string FirstLine(const char* message) {
  std::string line = message != nullptr ? message : "";
  line = line.substr(0, line.find('\n'));
  for (const char* prefix : {"ERROR:  ", "FATAL:  "})
    if (line.rfind(prefix, 0) == 0) line.erase(0, std::strlen(prefix));
  return line.empty() ? "no message from the server" : line;
}

// The first column of the first row of `result` as text; "" when it holds no such value.
std::string FirstValue(const PGresult* result) {
  return PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0 &&
                 !PQgetisnull(result, 0, 0)
             ? PQgetvalue(result, 0, 0)
             : "";
}

// Reads `n` bytes of a big-endian signed integer.
int64_t BigEndian(const char* p, int n) {
  switch (n) {
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<int64_t>(be64toh(v));
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return static_cast<int32_t>(be32toh(v));
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return static_cast<int16_t>(be16toh(v));
    }
    default:
      return n == 1 ? static_cast<unsigned char>(p[0]) : 0;
  }
}

}  // namespace

StoreFault FaultOfSqlState(std::string_view sqlstate) {
  if (sqlstate.size() != 5) return StoreFault::kPermanent;
  const std::string_view cls = sqlstate.substr(0, 2);
  if (cls == "08") return StoreFault::kTransient;          // connection exception
  if (sqlstate == "53100") return StoreFault::kPermanent;  // disk full: until space is made
  for (std::string_view transient : {"57P01", "57P02", "57P03", "57014", "40001", "40P01", "40003",
                                     "55P03", "55006", "58000", "58030"})
    if (sqlstate == transient) return StoreFault::kTransient;
  if (cls == "53") return StoreFault::kTransient;  // out of memory, too many connections
  return StoreFault::kPermanent;
}

// ---- Db ----

void Db::Closer::operator()(pg_conn* conn) const {
  PQfinish(conn);
}

Db::Db(pg_conn* conn) : conn_(conn), connection_(next_connection++) {}

Db::~Db() = default;

Result<std::unique_ptr<Db>> Db::Open(const std::string& conninfo) {
  // The URI comes last, as "dbname": libpq expands it and its own settings override the defaults.
  std::vector<const char*> keys(std::begin(kDefaultKeys), std::end(kDefaultKeys));
  std::vector<const char*> values(std::begin(kDefaultValues), std::end(kDefaultValues));
  keys.insert(keys.end(), {"dbname", nullptr});
  values.insert(values.end(), {conninfo.c_str(), nullptr});
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr)
    return sql::StoreError("connect", "out of memory").WithFault(StoreFault::kTransient);
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq gives no SQLSTATE for a failed connection: the server may be down or starting, so
    // trying again may help. libpq's message may quote the URI: its password is hidden.
    Status status =
        sql::StoreError("connect", RedactMessage(FirstLine(PQerrorMessage(conn)), conninfo));
    PQfinish(conn);
    return std::move(status).WithFault(StoreFault::kTransient);
  }
  PQsetnonblocking(conn, 1);  // what the server does not take at once never holds up the loop
  std::unique_ptr<Db> db(new Db(conn));
  db->NoteSession();
  return db;
}

void Db::NoteSession() {
  PGresult* result =
      Run("SELECT pid || ',' || extract(epoch from backend_start)::numeric::text FROM "
          "pg_stat_activity WHERE pid = pg_backend_pid()");
  session_ = FirstValue(result);
  PQclear(result);
}

void Db::EndAbandoned() {
  const size_t comma = session_.find(',');
  if (comma == std::string::npos) return;
  // Only that process: a number the server gave again since belongs to another session.
  PQclear(Run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = " +
              session_.substr(0, comma) +
              " AND extract(epoch from backend_start)::numeric::text = '" +
              session_.substr(comma + 1) + "'"));
}

void Db::CancelRunning() {
  PGcancel* cancel = PQgetCancel(conn_.get());
  if (cancel == nullptr) return;
  std::thread([cancel] {
    char why[256];
    PQcancel(cancel, why, sizeof why);
    PQfreeCancel(cancel);
  }).detach();
}

void Db::PauseReconnects() {
  lost_ = true;
  connect_pause_ms_ = std::clamp<int64_t>(connect_pause_ms_ * 2, first_pause_ms_, last_pause_ms_);
  next_connect_ms_ = kClock.MonoNow() + connect_pause_ms_;
}

Status Db::Ready(std::string_view what) {
  if (awaiting_) {  // a call made while this one waits (nothing of tqd's should): not now
    return sql::StoreError(what, "the connection is waiting for the answer to another statement")
        .WithFault(StoreFault::kTransient);
  }
  if (!lost_ && PQstatus(conn_.get()) == CONNECTION_OK) return Status::Ok();
  if (in_transaction_ && !BeginHeld()) {
    return sql::StoreError(what, "the connection to the server was lost inside a transaction")
        .WithFault(StoreFault::kTransient);
  }
  const MonoMs now = kClock.MonoNow();
  if (now < next_connect_ms_) {
    return sql::StoreError(what, "the server could not be reached; trying again within " +
                                     std::to_string(next_connect_ms_ - now) + " ms")
        .WithFault(StoreFault::kTransient);
  }
  stalled_ = false;
  if (Status reset = Reconnect(what); !reset.ok()) {
    PauseReconnects();
    return reset;
  }
  lost_ = false;
  connection_ = next_connection++;
  EndAbandoned();
  NoteSession();
  if (!on_connect_.empty()) {
    PGresult* result = Run(on_connect_);
    Status status =
        PQresultStatus(result) == PGRES_COMMAND_OK ? Status::Ok() : Failure(what, result);
    PQclear(result);
    if (!status.ok()) {  // set up again on a later call, after the pause
      PauseReconnects();
      return std::move(status).WithFault(StoreFault::kTransient);
    }
  }
  connect_pause_ms_ = next_connect_ms_ = 0;
  return Status::Ok();
}

Status Db::Reconnect(std::string_view what) {
  PGconn* conn = conn_.get();
  // libpq's connect blocks (a name lookup, then each address in turn within connect_timeout): it
  // runs on a thread of its own, and this one waits for its end as for an answer (Wait).
  int done[2];
  if (pipe2(done, O_CLOEXEC) != 0) {
    PQreset(conn);
  } else {
    std::thread connecting([conn, end = done[1]] {
      PQreset(conn);
      const char byte = 0;
      (void)!write(end, &byte, 1);
    });
    while (Wait(done[0], POLLIN, -1) == 0) {
    }
    connecting.join();
    close(done[0]);
    close(done[1]);
  }
  if (PQstatus(conn) != CONNECTION_OK)
    return sql::StoreError(what, FirstLine(PQerrorMessage(conn))).WithFault(StoreFault::kTransient);
  PQsetnonblocking(conn, 1);  // what the server does not take at once never holds up the loop
  return Status::Ok();
}

int Db::Wait(int fd, short events, int timeout_ms) {
  awaiting_ = true;
  int ready;
  if (waiter()) {
    ready = waiter()(fd, events, timeout_ms);
  } else {
    pollfd socket{fd, events, 0};
    ready = poll(&socket, fd >= 0 ? 1 : 0, timeout_ms);
    if (ready < 0 && errno == EINTR) ready = 0;
    ready = ready < 0 ? -1 : ready > 0 ? 1 : 0;
  }
  awaiting_ = false;
  return ready;
}

Status Db::OnConnect(std::string sql) {
  on_connect_ = std::move(sql);
  return Exec("set up the session", on_connect_);
}

Status Db::Failure(std::string_view what, const pg_result* result) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const char* primary =
      result != nullptr ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = primary != nullptr ? primary : FirstLine(PQerrorMessage(conn_.get()));
  if (stalled_) message = "the server did not answer within " + std::to_string(answer_ms_) + " ms";
  // A FATAL error ends the session, though libpq may not have read the connection's end yet
  // (in a pipeline it reads no further than the results asked for).
  const char* severity =
      result != nullptr ? PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED) : nullptr;
  const bool ended = severity != nullptr && std::strcmp(severity, "FATAL") == 0;
  if (lost_ || ended || PQstatus(conn_.get()) != CONNECTION_OK) {
    lost_ = true;
    return sql::StoreError(what, message).WithFault(StoreFault::kTransient);
  }
  return sql::StoreError(what, message).WithFault(FaultOfSqlState(state != nullptr ? state : ""));
}

PGresult* Db::Run(const std::string& sql) {
  return Await(PQsendQuery(conn_.get(), sql.c_str()));
}

PGresult* Db::Await(int sent) {
  if (sent == 0) return nullptr;
  const MonoMs deadline = kClock.MonoNow() + answer_ms_;
  return Flush(deadline) ? AwaitOne(deadline) : GiveUp(nullptr);
}

bool Db::WaitReady(short events, MonoMs deadline) {
  for (;;) {
    const int wait_ms =
        answer_ms_ > 0 ? static_cast<int>(std::max<MonoMs>(deadline - kClock.MonoNow(), 0)) : -1;
    const int got = wait_ms == 0 ? 0 : Wait(PQsocket(conn_.get()), events, wait_ms);
    if (got > 0) return true;
    if (got < 0 || (answer_ms_ > 0 && kClock.MonoNow() >= deadline)) return false;
  }
}

PGresult* Db::GiveUp(PGresult* last) {
  PQclear(last);
  CancelRunning();
  lost_ = stalled_ = true;
  return nullptr;
}

bool Db::Flush(MonoMs deadline) {
  PGconn* conn = conn_.get();
  // What libpq could not send at once goes as the server takes it (the connection does not
  // block): read what comes meanwhile, as libpq asks.
  for (int left = PQflush(conn); left == 1; left = PQflush(conn)) {
    if (!WaitReady(POLLIN | POLLOUT, deadline)) return false;
    if (PQconsumeInput(conn) == 0) break;  // broken: PQgetResult reports it
  }
  return true;
}

PGresult* Db::AwaitOne(MonoMs deadline) {
  PGconn* conn = conn_.get();
  PGresult* last = nullptr;
  for (;;) {
    while (PQisBusy(conn) != 0) {
      if (!WaitReady(POLLIN, deadline)) return GiveUp(last);
      if (PQconsumeInput(conn) == 0) break;  // broken: PQgetResult reports it
    }
    PGresult* result = PQgetResult(conn);
    if (result == nullptr) return last;
    const bool sync = PQresultStatus(result) == PGRES_PIPELINE_SYNC;
    PQclear(last);
    last = result;
    if (sync) return last;  // a pipeline's end: no empty result follows it
  }
}

Status Db::Outcome(std::string_view what, const PGresult* result) {
  const ExecStatusType st = PQresultStatus(result);
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? Status::Ok() : Failure(what, result);
}

void Db::Hold(const char* what, const char* sql, bool txid) {
  held_.push_back(Held{what, sql, txid});
}

bool Db::BeganWith(const std::vector<Held>& held) {
  return !held.empty() && std::strcmp(held.front().sql, kBeginSql) == 0;
}

Status Db::RunHeld(std::string_view what, const std::function<int(pg_conn*)>& send,
                   PGresult** result) {
  PGconn* conn = conn_.get();
  *result = nullptr;
  if (held_.empty()) {
    *result = Await(send(conn));
    return Outcome(what, *result);
  }
  const std::vector<Held> held = std::move(held_);
  held_.clear();
  int sent = PQenterPipelineMode(conn);
  for (const Held& h : held)
    sent = sent && PQsendQueryParams(conn, h.sql, 0, nullptr, nullptr, nullptr, nullptr, 0);
  sent = sent && (!send || send(conn)) && PQpipelineSync(conn);
  if (sent == 0) {
    Status status = Failure(what, nullptr);
    lost_ = true;  // libpq holds part of a pipeline: the next call starts a new connection
    return status;
  }
  const MonoMs deadline = kClock.MonoNow() + answer_ms_;
  if (!Flush(deadline)) {
    GiveUp(nullptr);  // as Await does: the server took nothing in time
    return Failure(what, nullptr);
  }
  // One result for each held command and the statement, then the pipeline's end.
  const size_t queries = held.size() + (send ? 1 : 0);
  Status status = Status::Ok();
  for (size_t i = 0; i <= queries; ++i) {
    const std::string_view of = i < held.size() ? held[i].what : what;
    PGresult* got = AwaitOne(deadline);
    if (got == nullptr) {  // not answered in time, or the connection broke
      if (status.ok()) status = Failure(of, nullptr);
      lost_ = true;
      return status;
    }
    if (i < queries && status.ok()) status = Outcome(of, got);
    if (i < held.size() && held[i].txid && status.ok()) txid_ = FirstValue(got);
    if (i == held.size() && send && status.ok()) {
      *result = got;  // the statement's result, for its caller
      got = nullptr;
    }
    PQclear(got);
  }
  if (PQexitPipelineMode(conn) != 1) lost_ = true;
  if (!status.ok()) {
    PQclear(*result);
    *result = nullptr;
  }
  return status;
}

Status Db::Exec(std::string_view what, const std::string& sql) {
  return ExecReading(what, sql, nullptr);
}

Status Db::ExecReading(std::string_view what, const std::string& sql, std::string* value) {
  if (!held_.empty()) {  // what was held back goes first, on its own
    PGresult* result = nullptr;
    if (Status s = Ready(what); !s.ok()) return s;
    Status status = RunHeld(what, nullptr, &result);
    PQclear(result);
    if (!status.ok()) return status;
  }
  for (bool again = false;; again = true) {
    if (Status s = Ready(what); !s.ok()) return s;
    PGresult* result = Run(sql);
    Status status = Outcome(what, result);
    if (status.ok() && value != nullptr) *value = FirstValue(result);
    PQclear(result);
    if (status.ok() || again || !MayRunAgain(false)) return status;
  }
}

bool Db::MayRunAgain(bool began) const {
  return lost_ && !stalled_ && (!in_transaction_ || began);
}

Status Db::Begin() {
  // Held back, to go with the transaction's first statement in one round trip. Its id is taken
  // as it begins: should COMMIT's answer not come, the outcome is read back by it (Resolve).
  txid_.clear();
  held_.clear();
  Hold("begin", kBeginSql, false);
  Hold("begin", "SELECT txid_current()::text", true);
  in_transaction_ = true;
  return Status::Ok();
}

Status Db::CommitNow() {
  if (BeginHeld()) {  // nothing was sent: nothing to commit
    held_.clear();
    in_transaction_ = false;
    return Status::Ok();
  }
  if (Status s = Ready("commit"); !s.ok()) return s;
  PGresult* result = nullptr;
  Status status = RunHeld(
      "commit",
      [](PGconn* conn) {
        return PQsendQueryParams(conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0);
      },
      &result);
  if (status.ok() && std::strcmp(PQcmdStatus(result), "ROLLBACK") == 0) {
    // COMMIT of a transaction a failed statement aborted rolls it back instead.
    status = sql::StoreError("commit", "the transaction was aborted by an earlier error");
  }
  PQclear(result);
  in_transaction_ = false;
  if (!status.ok() && lost_ && !txid_.empty()) return Resolve(txid_, std::move(status));
  return status;
}

Status Db::Resolve(const std::string& txid, Status failed) {
  // The session before is ended as the new connection is made (EndAbandoned), so the outcome is
  // final once that session is gone: "in progress" only until then.
  for (int tries = 0; tries < 20; ++tries) {
    std::string outcome;
    if (!ExecReading("commit", "SELECT txid_status(" + txid + ")", &outcome).ok()) return failed;
    if (outcome == "committed") return Status::Ok();
    if (outcome != "in progress") return failed;
    Wait(-1, 0, 100);
  }
  return failed;
}

void Db::Rollback() {
  const bool open = in_transaction_ && !BeginHeld();  // else nothing was sent
  in_transaction_ = false;
  held_.clear();
  if (open && !lost_ && PQstatus(conn_.get()) == CONNECTION_OK) PQclear(Run("ROLLBACK"));
}

bool Db::InTransaction() const {
  if (in_transaction_ && BeginHeld()) return true;  // begins with the next statement
  if (!in_transaction_ || lost_ || PQstatus(conn_.get()) != CONNECTION_OK) return false;
  const PGTransactionStatusType st = PQtransactionStatus(conn_.get());
  return st == PQTRANS_INTRANS || st == PQTRANS_INERROR;
}

Status Db::Savepoint() {
  Hold("savepoint", "SAVEPOINT item", false);
  return Status::Ok();
}

Status Db::RollbackToSavepoint() {
  return Exec("rollback to savepoint", "ROLLBACK TO SAVEPOINT item");
}

Status Db::ReleaseSavepoint() {
  Hold("release savepoint", "RELEASE SAVEPOINT item", false);
  return Status::Ok();
}

int Db::backend_pid() const {
  return conn_ != nullptr && !lost_ ? PQbackendPID(conn_.get()) : 0;
}

// ---- statements ----

// A statement prepared by name on each connection it runs on (again after a reconnect, with the
// parameter types the first preparation settled).
class PgStatement : public sql::Statement {
 public:
  PgStatement(Db& db, std::string what, std::string sql)
      : db_(db),
        what_(std::move(what)),
        sql_(std::move(sql)),
        name_("tq_" + std::to_string(next_statement++)) {}
  ~PgStatement() override {
    PQclear(result_);
    if (prepared_on_ == db_.connection() && !db_.lost_) PQclear(db_.Run("DEALLOCATE " + name_));
  }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  /// Prepares the statement on the current connection when it is not yet. The first time,
  /// parameters the server takes as smallint or integer are declared bigint.
  Status Prepare() {
    if (prepared_on_ == db_.connection()) return Status::Ok();
    if (Status s = PrepareAs(types_); !s.ok()) return s;
    if (!typed_) {
      PGresult* described = db_.Await(PQsendDescribePrepared(db_.conn_.get(), name_.c_str()));
      if (PQresultStatus(described) != PGRES_COMMAND_OK) {
        Status status = db_.Failure("prepare " + what_, described);
        PQclear(described);
        return status;
      }
      bool narrow = false;
      for (int i = 0; i < PQnparams(described); ++i) {
        Oid type = PQparamtype(described, i);
        if (type == kInt2Oid || type == kInt4Oid) {
          type = kInt8Oid;
          narrow = true;
        }
        types_.push_back(type);
      }
      PQclear(described);
      typed_ = true;
      if (narrow) {
        if (Status s = db_.Exec("prepare " + what_, "DEALLOCATE " + name_); !s.ok()) return s;
        return PrepareAs(types_);
      }
    }
    return Status::Ok();
  }

  void BindInt(int64_t value) override { Bind(std::to_string(value), false); }
  void BindText(std::string_view value) override { Bind(std::string(value), true); }
  void BindBlob(std::string_view value) override { Bind(std::string(value), true); }
  void BindNull() override { Bind(std::nullopt, false); }
  // An array literal: {"a","b\"c"}.
  void BindTextList(const std::vector<std::string>& values) override {
    Bind(sql::QuotedList(values, '{', '}'), false);
  }

  Result<bool> Step() override {
    if (result_ == nullptr) {
      if (Status s = Execute(); !s.ok()) return s;
    }
    if (PQresultStatus(result_) != PGRES_TUPLES_OK) return false;
    return ++row_ < PQntuples(result_);
  }
  int64_t Int(int col) const override {
    if (PQgetisnull(result_, row_, col)) return 0;
    const Oid type = PQftype(result_, col);
    if (type != kInt8Oid && type != kInt4Oid && type != kInt2Oid && type != kBoolOid) return 0;
    return BigEndian(PQgetvalue(result_, row_, col), PQgetlength(result_, row_, col));
  }
  std::string Text(int col) const override { return Bytes(col); }
  std::string Blob(int col) const override { return Bytes(col); }
  bool IsNull(int col) const override { return PQgetisnull(result_, row_, col) != 0; }

  void Reset() override {
    PQclear(result_);
    result_ = nullptr;
    row_ = -1;
    values_.clear();
    binary_.clear();
  }

 private:
  // Appends a parameter: NULL when absent; bytes sent as binary, or as text.
  void Bind(std::optional<std::string> value, bool binary) {
    values_.push_back(std::move(value));
    binary_.push_back(binary ? 1 : 0);
  }
  std::string Bytes(int col) const {
    return std::string(PQgetvalue(result_, row_, col),
                       static_cast<size_t>(PQgetlength(result_, row_, col)));
  }
  // PQprepare with `types` (none: the server infers them all).
  Status PrepareAs(const std::vector<Oid>& types) {
    PGresult* result = db_.Await(PQsendPrepare(db_.conn_.get(), name_.c_str(), sql_.c_str(),
                                               static_cast<int>(types.size()),
                                               types.empty() ? nullptr : types.data()));
    Status status = PQresultStatus(result) == PGRES_COMMAND_OK
                        ? Status::Ok()
                        : db_.Failure("prepare " + what_, result);
    PQclear(result);
    if (status.ok()) prepared_on_ = db_.connection();
    return status;
  }
  // Sends the statement with its parameters and keeps the result; once more on a new
  // connection when the server had ended the one it met (Db::MayRunAgain).
  Status Execute() {
    const std::vector<Db::Held> held = db_.held_;
    Status status = ExecuteOnce();
    if (status.ok() || !db_.MayRunAgain(db_.BeganWith(held))) return status;
    PQclear(result_);
    result_ = nullptr;
    db_.held_ = held;  // the transaction begins again with it, on the new connection
    return ExecuteOnce();
  }
  // Execute, on the connection there is.
  Status ExecuteOnce() {
    if (Status s = db_.Ready(what_); !s.ok()) return s;
    if (Status s = Prepare(); !s.ok()) return s;
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const std::optional<std::string>& v : values_) {
      values.push_back(v ? v->data() : nullptr);
      lengths.push_back(v ? static_cast<int>(v->size()) : 0);
    }
    const auto send = [&](PGconn* conn) {
      return PQsendQueryPrepared(conn, name_.c_str(), static_cast<int>(values.size()),
                                 values.data(), lengths.data(), binary_.data(), 1);
    };
    if (Status s = db_.RunHeld(what_, send, &result_); !s.ok()) return s;
    const char* n = PQcmdTuples(result_);
    db_.changes_ = n[0] != '\0' ? std::strtoll(n, nullptr, 10) : 0;
    return Status::Ok();
  }

  Db& db_;
  std::string what_;
  std::string sql_;
  std::string name_;          ///< its name on the server, unique in the process
  uint64_t prepared_on_ = 0;  ///< the connection it is prepared on (Db::connection); 0: none
  bool typed_ = false;        ///< types_ is settled
  std::vector<Oid> types_;    ///< its parameters' types, once settled
  std::vector<std::optional<std::string>> values_;
  std::vector<int> binary_;
  pg_result* result_ = nullptr;
  int row_ = -1;
};

Result<sql::Stmt> Db::Prepare(std::string what, const std::string& sql) {
  auto stmt = std::make_unique<PgStatement>(*this, std::move(what), sql);
  if (Status s = Ready("prepare"); !s.ok()) return s;
  if (Status s = stmt->Prepare(); !s.ok()) return s;
  return sql::Stmt(std::move(stmt));
}

}  // namespace tq::pg
