// tq jobs enable|disable NAME: whether a job fires, persisted in the daemon's store (a job file's
// `enabled = false` is separate and stays in force).
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

Command AddJobsEnable(CLI::App& jobs, const GlobalOptions& g, bool enable) {
  auto* sub = jobs.add_subcommand(
      enable ? "enable" : "disable",
      enable ? "Let a disabled job fire again (persisted)"
             : "Stop a job from firing until enabled again; runs in progress go on (persisted)");
  auto req = std::make_shared<JobEnableRequest>();
  req->enabled = enable;
  sub->add_option("name", req->name, "job name")->required();
  return {sub, [req, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(*req);
            if (!r.ok()) return Fail(r.status());
            if (g.json) std::printf("%s\n", (*r)["job"].dump().c_str());
            return 0;
          }};
}

}  // namespace tq
