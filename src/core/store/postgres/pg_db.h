// The PostgreSQL connection layer (sql/connection.h) over libpq, for the PostgreSQL store (SPEC
// 12): one connection that comes back after it is lost (no more often than a growing pause allows
// while it cannot be made), calls that wait for an answer at most the answer timeout and through
// the waiter given (Connection::WaitWith: tqd's event loop), a connection that never blocks on
// sending and a new one made on a thread of its own, libpq's connect timeout and TCP keepalives set
// unless the URI sets them, statements prepared by name on each connection they run on, parameters
// bound in call order (integers as text, bytes as binary, so any bytes pass), and results read in
// binary. A parameter PostgreSQL would take as a smaller integer is declared bigint: the store's
// integers are all 64-bit. Nothing here throws; every failure is Status::Internal("store: <what>
// failed: <PostgreSQL's primary message>") with a fault from its SQLSTATE (a lost connection is
// transient). Only the primary message is kept: PostgreSQL's DETAIL lines may quote stored values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/store/sql/connection.h"

struct pg_conn;
struct pg_result;

namespace tq::pg {

/// How lasting a failure with SQLSTATE `sqlstate` is: a lost or refused connection (class 08),
/// a server shutting down or starting, a cancelled statement, a serialisation failure or
/// deadlock, a lock or resource shortage are transient; a full disk, a constraint, bad data,
/// a missing table, corruption and anything unknown are permanent.
StoreFault FaultOfSqlState(std::string_view sqlstate);

class PgStatement;

/// An open connection; reconnects on the first call after its connection was lost. Owned and
/// used by one thread; its statements refer to it, so it never moves.
class Db : public sql::Connection {
 public:
  /// Connects with libpq's `conninfo` ("host=/run/pg dbname=tq" or a postgresql:// URI).
  /// Refused or unreachable: a transient fault; bad credentials or database: permanent.
  static Result<std::unique_ptr<Db>> Open(const std::string& conninfo);

  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() override;

  Result<sql::Stmt> Prepare(std::string what, const std::string& sql) override;
  Status Exec(std::string_view what, const std::string& sql) override;
  Status Begin() override;
  void Rollback() override;
  /// True while a transaction is open (also one a failed statement has aborted: ROLLBACK TO
  /// the savepoint recovers it).
  bool InTransaction() const override;
  Status Savepoint() override;
  Status RollbackToSavepoint() override;
  Status ReleaseSavepoint() override;
  int64_t Changes() const override { return changes_; }

  /// How long a call waits for the server's answer before it gives the connection up as lost
  /// (a transient fault; the next call connects again): 0, the default, waits as long as it
  /// takes. A server or network that stops answering then stalls its caller that long at most.
  void SetAnswerTimeout(int ms) { answer_ms_ = ms; }
  /// After a reconnect fails, calls fail at once for `first_ms`, doubled after each further
  /// failure up to `last_ms` (defaults 1 s and 16 s), so that a server that cannot be reached
  /// does not make every call wait for a connect timeout.
  void SetReconnectPauses(int64_t first_ms, int64_t last_ms) {
    first_pause_ms_ = first_ms;
    last_pause_ms_ = last_ms;
  }
  /// Runs `sql` now and again on each new connection (a reconnect loses session settings). A
  /// new connection whose `sql` fails counts as one that could not be made (the pause above).
  Status OnConnect(std::string sql);
  /// Has each new connection from the next one on run `sql` (OnConnect without running it now).
  void OnReconnect(std::string sql) { on_connect_ = std::move(sql); }

  /// The number of the current connection, unique in the process (a reconnect takes a new
  /// one): a statement is prepared again on each connection it runs on.
  uint64_t connection() const { return connection_; }
  /// The server's process for this connection (pg_backend_pid), 0 while there is none.
  int backend_pid() const;

 protected:
  Status CommitNow() override;

 private:
  friend class PgStatement;
  explicit Db(pg_conn* conn);
  /// Makes sure a connection is up: after one was lost, connects again (outside a transaction
  /// only: a transaction does not survive its connection).
  Status Ready(std::string_view what);
  /// True when a call that just failed may run once more on a new connection: the server ended
  /// the connection (a restart, an administrator), not one given up for want of an answer (its
  /// statement may still run), and outside a transaction, or with the transaction's BEGIN
  /// (`began`). The store writes only inside transactions, whose BEGIN goes with the first
  /// statement to meet an ended connection, so nothing is done twice.
  bool MayRunAgain(bool began) const;

  /// A command without parameters or rows wanted (BEGIN, a savepoint's) held back to go with
  /// the next statement, in one round trip.
  struct Held {
    const char* what;  ///< names it in an error
    const char* sql;
    bool txid;  ///< its value is the transaction's id (txid_)
  };
  /// Holds `sql` back until the next statement, COMMIT or Exec.
  void Hold(const char* what, const char* sql, bool txid);
  /// True when `held` begins a transaction: nothing of it was sent yet.
  static bool BeganWith(const std::vector<Held>& held);
  bool BeginHeld() const { return BeganWith(held_); }
  /// Sends the held commands, then what `send` sends (one statement; nothing when empty), in
  /// one pipeline, and waits for their answers within the answer timeout: `*result` is the
  /// statement's result when all succeeded (the caller clears it); else the first failure.
  /// With nothing held, only the statement, as before pipelines.
  Status RunHeld(std::string_view what, const std::function<int(pg_conn*)>& send,
                 pg_result** result);
  /// Ok when `result` succeeded (a command or rows), else its failure for `what`.
  Status Outcome(std::string_view what, const pg_result* result);
  /// Connects again (PQreset, within the connection's connect_timeout for each address), on a
  /// thread of its own while this one waits for it through Wait.
  Status Reconnect(std::string_view what);
  /// Waits for `fd` to be ready for `events` within `timeout_ms` through the waiter given
  /// (WaitWith: tqd's event loop, which meanwhile answers what needs no store), or poll(2):
  /// 1 ready, 0 timed out, -1 failed. Calls made meanwhile fail at once (Ready).
  int Wait(int fd, short events, int timeout_ms);
  /// A reconnect failed: calls fail at once until the pause after it is over.
  void PauseReconnects();
  /// Notes the server's process of the new connection and when it started, so that the next
  /// connection can end it if it is left behind (EndAbandoned).
  void NoteSession();
  /// Ends the server's process of the connection before this one if it lives on: a statement
  /// left unanswered (a network that stopped carrying the connection, a session stopped on the
  /// server) keeps its session, and the locks it holds, after tqd gave it up.
  void EndAbandoned();
  /// Asks the server to cancel what the connection runs now, from a thread of its own: the
  /// cancel request opens a connection of its own, which may wait as long as the network does.
  void CancelRunning();
  /// The error of `result` (or of the connection when it is null) for `what`; notes a lost
  /// connection so the next call connects again.
  Status Failure(std::string_view what, const pg_result* result);

  /// Sends `sql` (one or more statements) and returns its last result, as PQexec does, within
  /// the answer timeout; nullptr when it was not sent or not answered in time.
  pg_result* Run(const std::string& sql);
  /// The last result of what was just sent, or nullptr when `sent` is 0 (it was not) or the
  /// server did not answer within the answer timeout (then the connection is lost and stalled).
  pg_result* Await(int sent);
  /// Waits until the connection is ready for `events`; false once `deadline` (the answer
  /// timeout's, when there is one) has passed.
  bool WaitReady(short events, MonoMs deadline);
  /// Sends what libpq holds until `deadline`; false when the server did not take it in time.
  bool Flush(MonoMs deadline);
  /// The last result of the next query sent (or a pipeline's end), waiting until `deadline`;
  /// nullptr when there is none or when no answer came in time (GiveUp).
  pg_result* AwaitOne(MonoMs deadline);
  /// No answer in time: clears `last`, gives the connection up (the next call makes one) and
  /// cancels its statement, so that the server does not go on with it; returns nullptr.
  pg_result* GiveUp(pg_result* last);

  /// A COMMIT of transaction `txid` whose answer never came (`failed`: the connection was
  /// given up or lost) may have been carried out: reads its outcome back on a new connection.
  /// Ok when the server committed it; `failed` when it did not, or when that cannot be read.
  Status Resolve(const std::string& txid, Status failed);
  /// Exec, keeping the first column of the first row of the last statement's result in
  /// `*value` ("" when there is none) when `value` is given.
  Status ExecReading(std::string_view what, const std::string& sql, std::string* value);

  /// Closes a connection (PQfinish).
  struct Closer {
    void operator()(pg_conn* conn) const;
  };
  std::unique_ptr<pg_conn, Closer> conn_;
  uint64_t connection_ = 0;
  bool lost_ = false;              ///< the connection broke: the next call connects again
  bool stalled_ = false;           ///< it was lost because the server did not answer in time
  bool awaiting_ = false;          ///< inside Wait
  int answer_ms_ = 0;              ///< SetAnswerTimeout's bound; 0: none
  int64_t first_pause_ms_ = 1000;  ///< SetReconnectPauses' bounds
  int64_t last_pause_ms_ = 16000;
  int64_t next_connect_ms_ = 0;   ///< after a failed reconnect, calls fail until then (steady ms)
  int64_t connect_pause_ms_ = 0;  ///< the pause after the last failed reconnect; 0: none failed
  std::string session_;           ///< "pid,backend_start" of the server's process (NoteSession)
  bool in_transaction_ = false;   ///< between Begin and Commit or Rollback
  std::string txid_;              ///< the open transaction's id (txid_current)
  std::vector<Held> held_;        ///< commands waiting for the next statement (Hold)
  int64_t changes_ = 0;           ///< rows the last statement inserted, updated or deleted
  std::string on_connect_;        ///< run on each new connection
};

}  // namespace tq::pg
