// tq jobs show NAME: every field of one job, its next and last firing and its last result.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_render.h"
#include "cli/render.h"
#include "cli/state_colour.h"

namespace tq {

Command AddJobsShow(CLI::App& jobs, const GlobalOptions& g) {
  auto* sub = jobs.add_subcommand("show", "Show every field of one job");
  auto name = std::make_shared<std::string>();
  sub->add_option("name", *name, "job name")->required();
  return {sub, [name, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(JobsRequest{.name = *name, .after = ""});
            if (!r.ok()) return Fail(r.status());
            const nlohmann::json& list = (*r)["jobs"];
            if (!list.is_array() || list.size() != 1)
              return Fail(Status(ErrorCode::kProto, "jobs", "the daemon answered no single job"));
            if (g.json) {
              std::printf("%s\n", list[0].dump().c_str());
            } else {
              PrintTable(JobShowRows(list[0], RealClock().WallNow(), StdoutColour(false)));
            }
            return 0;
          }};
}

}  // namespace tq
