#include "core/store/postgres/pg_db.h"

#include <endian.h>
#include <libpq-fe.h>

#include <atomic>
#include <cstring>
#include <utility>

namespace tq::pg {

namespace {

// Type OIDs of the binary results Query::Int reads (pg_type.h is not among libpq's headers).
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;

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

Status Error(std::string_view what, std::string_view detail) {
  return sql::StoreError(what, detail);
}

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

Result<Db> Db::Open(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) return Error("connect", "out of memory").WithFault(StoreFault::kTransient);
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq gives no SQLSTATE for a failed connection: the server may be down or starting, so
    // trying again may help.
    Status status = Error("connect", FirstLine(PQerrorMessage(conn)));
    PQfinish(conn);
    return std::move(status).WithFault(StoreFault::kTransient);
  }
  return Db(conn);
}

Status Db::Ready(std::string_view what) {
  if (!lost_ && PQstatus(conn_.get()) == CONNECTION_OK) return Status::Ok();
  if (in_transaction_) {
    return Error(what, "the connection to the server was lost inside a transaction")
        .WithFault(StoreFault::kTransient);
  }
  PQreset(conn_.get());
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    lost_ = true;
    return Error(what, FirstLine(PQerrorMessage(conn_.get()))).WithFault(StoreFault::kTransient);
  }
  lost_ = false;
  connection_ = next_connection++;
  return Status::Ok();
}

Status Db::Failure(std::string_view what, const pg_result* result) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const char* primary =
      result != nullptr ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = primary != nullptr ? primary : FirstLine(PQerrorMessage(conn_.get()));
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    lost_ = true;
    return Error(what, message).WithFault(StoreFault::kTransient);
  }
  return Error(what, message).WithFault(FaultOfSqlState(state != nullptr ? state : ""));
}

Status Db::Exec(std::string_view what, const std::string& sql) {
  if (Status s = Ready(what); !s.ok()) return s;
  PGresult* result = PQexec(conn_.get(), sql.c_str());
  const ExecStatusType st = PQresultStatus(result);
  Status status =
      st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? Status::Ok() : Failure(what, result);
  PQclear(result);
  return status;
}

Status Db::Begin() {
  if (Status s = Exec("begin", "BEGIN"); !s.ok()) return s;
  in_transaction_ = true;
  return Status::Ok();
}

Status Db::Commit() {
  if (Status s = Ready("commit"); !s.ok()) return s;
  PGresult* result = PQexec(conn_.get(), "COMMIT");
  Status status = Status::Ok();
  if (PQresultStatus(result) != PGRES_COMMAND_OK) {
    status = Failure("commit", result);
  } else if (std::strcmp(PQcmdStatus(result), "ROLLBACK") == 0) {
    // COMMIT of a transaction a failed statement aborted rolls it back instead.
    status = Error("commit", "the transaction was aborted by an earlier error");
  }
  PQclear(result);
  in_transaction_ = false;
  return status;
}

void Db::Rollback() {
  const bool open = in_transaction_;
  in_transaction_ = false;
  if (open && !lost_ && PQstatus(conn_.get()) == CONNECTION_OK)
    PQclear(PQexec(conn_.get(), "ROLLBACK"));
}

bool Db::InTransaction() const {
  if (!in_transaction_ || lost_ || PQstatus(conn_.get()) != CONNECTION_OK) return false;
  const PGTransactionStatusType st = PQtransactionStatus(conn_.get());
  return st == PQTRANS_INTRANS || st == PQTRANS_INERROR;
}

Status Db::Savepoint() {
  return Exec("savepoint", "SAVEPOINT item");
}

Status Db::RollbackToSavepoint() {
  return Exec("rollback to savepoint", "ROLLBACK TO SAVEPOINT item");
}

Status Db::ReleaseSavepoint() {
  return Exec("release savepoint", "RELEASE SAVEPOINT item");
}

int Db::backend_pid() const {
  return conn_ != nullptr && !lost_ ? PQbackendPID(conn_.get()) : 0;
}

// ---- Stmt ----

Stmt::Stmt(std::string what, std::string sql)
    : what_(std::move(what)),
      sql_(std::move(sql)),
      name_("tq_" + std::to_string(next_statement++)) {}

// ---- Query ----

Query::Query(Db& db, Stmt& stmt) : db_(db), stmt_(stmt) {}

Query::~Query() {
  PQclear(result_);
}

Query& Query::Bind(std::optional<std::string> value, bool binary) {
  values_.push_back(std::move(value));
  binary_.push_back(binary ? 1 : 0);
  return *this;
}

Query& Query::BindInt(int64_t value) {
  return Bind(std::to_string(value), false);
}

Query& Query::BindText(std::string_view value) {
  return Bind(std::string(value), false);
}

Query& Query::BindBytes(std::string_view value) {
  return Bind(std::string(value), true);
}

Query& Query::BindOptInt(const std::optional<int64_t>& value) {
  return value ? BindInt(*value) : Bind(std::nullopt, false);
}

Query& Query::BindOptBytes(const std::optional<std::string>& value) {
  return Bind(value, true);
}

Status Query::Prepare() {
  if (stmt_.prepared_on_ == db_.connection()) return Status::Ok();
  PGresult* result =
      PQprepare(db_.conn_.get(), stmt_.name_.c_str(), stmt_.sql_.c_str(), 0, nullptr);
  Status status = PQresultStatus(result) == PGRES_COMMAND_OK
                      ? Status::Ok()
                      : db_.Failure("prepare " + stmt_.what_, result);
  PQclear(result);
  if (status.ok()) stmt_.prepared_on_ = db_.connection();
  return status;
}

Status Query::Execute() {
  if (Status s = db_.Ready(stmt_.what_); !s.ok()) return s;
  if (Status s = Prepare(); !s.ok()) return s;
  std::vector<const char*> values;
  std::vector<int> lengths;
  for (const std::optional<std::string>& v : values_) {
    values.push_back(v ? v->data() : nullptr);
    lengths.push_back(v ? static_cast<int>(v->size()) : 0);
  }
  result_ = PQexecPrepared(db_.conn_.get(), stmt_.name_.c_str(), static_cast<int>(values.size()),
                           values.data(), lengths.data(), binary_.data(), 1);
  const ExecStatusType st = PQresultStatus(result_);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Status::Ok();
  return db_.Failure(stmt_.what_, result_);
}

Result<bool> Query::Step() {
  if (result_ == nullptr) {
    if (Status s = Execute(); !s.ok()) return s;
  }
  if (PQresultStatus(result_) != PGRES_TUPLES_OK) return false;
  return ++row_ < PQntuples(result_);
}

Status Query::Run() {
  Result<bool> row = Step();
  return row.ok() ? Status::Ok() : row.status();
}

int64_t Query::Int(int col) const {
  if (PQgetisnull(result_, row_, col)) return 0;
  const Oid type = PQftype(result_, col);
  if (type != kInt8Oid && type != kInt4Oid && type != kInt2Oid && type != kBoolOid) return 0;
  return BigEndian(PQgetvalue(result_, row_, col), PQgetlength(result_, row_, col));
}

std::string Query::Bytes(int col) const {
  return std::string(PQgetvalue(result_, row_, col),
                     static_cast<size_t>(PQgetlength(result_, row_, col)));
}

bool Query::IsNull(int col) const {
  return PQgetisnull(result_, row_, col) != 0;
}

int64_t Query::Changes() const {
  const char* n = result_ != nullptr ? PQcmdTuples(result_) : "";
  return n[0] != '\0' ? std::strtoll(n, nullptr, 10) : 0;
}

}  // namespace tq::pg
