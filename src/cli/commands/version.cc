// tq version: the client's version, and the daemon's when it answers.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "core/proto/protocol.h"

namespace tq {

Command AddVersion(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("version", "Print the versions of tq and tqd");
  return {sub, [&g]() {
            nlohmann::json daemon;
            if (auto client = Client::Connect(g.socket); client.ok()) {
              if (auto r = client->Call(PingRequest{}); r.ok()) daemon = (*r)["version"];
            }
            if (g.json) {
              std::printf(
                  "%s\n",
                  nlohmann::json{{"tq", TQ_VERSION}, {"proto", kProtoVersion}, {"tqd", daemon}}
                      .dump()
                      .c_str());
            } else {
              std::printf("tq %s (protocol %d)\n", TQ_VERSION, kProtoVersion);
              std::printf("tqd %s\n",
                          daemon.is_string() ? daemon.get<std::string>().c_str() : "not reachable");
            }
            return 0;
          }};
}

}  // namespace tq
