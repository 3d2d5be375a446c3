#include "daemon/host/store_wakeups.h"

#include <libpq-fe.h>
#include <sys/epoll.h>

#include <algorithm>

#include "core/store/postgres/redact.h"
#include "daemon/host/log.h"

namespace tq {

namespace {
// The channel every host of a store listens on. Stores in other schemas of the same database
// share it: their notifications only make a host look at its store once more.
constexpr const char* kChannel = "tq_store_changes";
// A server that cannot be reached is tried again after the first pause, then after twice the
// last, up to the longest: each try may hold the loop for the connect timeout.
constexpr int64_t kFirstRetryMs = 5000;
constexpr int64_t kLongestRetryMs = 60 * 1000;
constexpr int64_t kErrorLogMs = 60 * 1000;  // a line a minute while it stays unreachable
}  // namespace

StoreWakeups::StoreWakeups(EventLoop& loop, const Clock& clock, std::string conninfo,
                           std::function<void()> on_change)
    : loop_(loop),
      clock_(clock),
      conninfo_(std::move(conninfo)),
      on_change_(std::move(on_change)),
      errors_(clock, kErrorLogMs) {}

StoreWakeups::~StoreWakeups() {
  if (retry_ != 0) loop_.CancelTimer(retry_);
  if (fd_ >= 0) loop_.Unwatch(fd_);
  if (conn_ != nullptr) PQfinish(conn_);
}

void StoreWakeups::Start() {
  Connect();
}

void StoreWakeups::Connect() {
  retry_ = 0;
  // As the store connects (its URI), but giving up on an unreachable server within seconds: the
  // loop waits meanwhile.
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {conninfo_.c_str(), "5", "tqd wake-ups", nullptr};
  conn_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (PQstatus(conn_) != CONNECTION_OK) return Drop(PQerrorMessage(conn_));
  if (PQsetnonblocking(conn_, 1) != 0) return Drop(PQerrorMessage(conn_));
  fd_ = PQsocket(conn_);
  loop_.Watch(fd_, EPOLLIN, [this](uint32_t) { OnReadable(); });
  // LISTEN's answer is read as a NOTIFY's is, so a server that stops answering holds nothing.
  if (PQsendQuery(conn_, (std::string("LISTEN ") + kChannel).c_str()) == 0 || PQflush(conn_) < 0)
    return Drop(PQerrorMessage(conn_));
  in_flight_ = true;
  listening_ = false;
  retry_ms_ = 0;
}

void StoreWakeups::Drop(const std::string& why) {
  // libpq's message may quote the store's URI: its password is hidden.
  errors_.Log(LogLevel::kWarn, "store wake-ups: " + RedactMessage(why, conninfo_) +
                                   " (other hosts' changes are seen at the next poll)");
  if (fd_ >= 0) loop_.Unwatch(fd_);
  fd_ = -1;
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  if (retry_ != 0) return;
  retry_ms_ = std::clamp<int64_t>(retry_ms_ * 2, kFirstRetryMs, kLongestRetryMs);
  retry_ = loop_.AddTimer(clock_.MonoNow() + retry_ms_, [this] { Connect(); });
}

void StoreWakeups::Announce() {
  if (announced_) return;
  announced_ = true;
  loop_.Defer(&announced_, [this] { Flush(); });
}

void StoreWakeups::Flush() {
  if (!announced_ || conn_ == nullptr || in_flight_) return;  // sent when the connection is free
  announced_ = false;
  if (PQsendQuery(conn_, (std::string("NOTIFY ") + kChannel).c_str()) == 0)
    return Drop(PQerrorMessage(conn_));
  in_flight_ = true;
  if (PQflush(conn_) < 0) Drop(PQerrorMessage(conn_));
}

void StoreWakeups::OnReadable() {
  if (PQconsumeInput(conn_) == 0) return Drop(PQerrorMessage(conn_));
  while (in_flight_ && PQisBusy(conn_) == 0) {
    PGresult* result = PQgetResult(conn_);
    if (result == nullptr) {
      in_flight_ = false;  // the LISTEN's or NOTIFY's results are all in
      if (!listening_) {   // what the others committed before this host listened: a look
        listening_ = true;
        loop_.Defer(this, on_change_);
      }
      break;
    }
    const bool failed = PQresultStatus(result) == PGRES_FATAL_ERROR;
    PQclear(result);
    if (failed) return Drop(PQerrorMessage(conn_));
  }
  bool changed = false;
  const int self = PQbackendPID(conn_);
  while (PGnotify* n = PQnotifies(conn_)) {
    changed = changed || n->be_pid != self;
    PQfreemem(n);
  }
  if (changed) loop_.Defer(this, on_change_);
  if (PQstatus(conn_) != CONNECTION_OK) return Drop("the connection was closed");
  if (!in_flight_ && announced_) Flush();
}

}  // namespace tq
