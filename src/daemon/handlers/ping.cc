#include <unistd.h>

#include "daemon/handlers/handlers.h"

namespace tq {

void HandlePing(RequestContext& ctx, ConnId conn, const Owner&, const PingRequest&) {
  ctx.server.Send(conn, OkResponse({{"version", TQ_VERSION},
                                    {"proto", kProtoVersion},
                                    {"pid", static_cast<int>(getpid())}}));
}

}  // namespace tq
