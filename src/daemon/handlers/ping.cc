#include <unistd.h>

#include "daemon/handlers/handlers.h"

namespace tq {

void HandlePing(Daemon& d, ConnId conn, const Owner&, const PingRequest&) {
  d.server().Send(conn, OkResponse({{"version", TQ_VERSION},
                                    {"proto", kProtoVersion},
                                    {"pid", static_cast<int>(getpid())}}));
}

}  // namespace tq
