#include "cli/commands/reconnect.h"

#include <time.h>

namespace tq {

void SleepMs(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
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
