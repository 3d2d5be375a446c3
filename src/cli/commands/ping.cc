// tq ping: is the daemon there, and which version is it?
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

Command AddPing(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("ping", "Check that the daemon answers");
  return {sub, [&g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(PingRequest{});
            if (!r.ok()) return Fail(r.status());
            if (g.json) {
              r->erase("ok");
              std::printf("%s\n", r->dump().c_str());
            } else {
              std::printf("tqd %s (pid %d) at %s\n", (*r)["version"].get<std::string>().c_str(),
                          (*r)["pid"].get<int>(), client->path().c_str());
            }
            return 0;
          }};
}

}  // namespace tq
