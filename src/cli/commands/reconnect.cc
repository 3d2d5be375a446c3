#include "cli/commands/reconnect.h"

#include <time.h>

namespace tq {

void SleepMs(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

bool Retries::After(const Status& st) {
  const bool store = st.fault() == StoreFault::kTransient;
  if (!store && st.code() != ErrorCode::kUnavailable) return false;
  const MonoMs now = clock_.MonoNow();
  if (!since_) since_ = now;
  if (now - *since_ >= kReconnectWindowMs) return false;
  if (store) SleepMs(kStoreRetryMs);
  return true;
}

Result<Client> ConnectUntil(const std::string& socket, MonoMs give_up) {
  RealClock clock;
  for (;;) {
    auto client = Client::Connect(socket);
    if (client.ok() || clock.MonoNow() >= give_up) return client;
    SleepMs(200);
  }
}

}  // namespace tq
