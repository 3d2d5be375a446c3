// tq jobs run NAME [--force]: a run of a job now, obeying its overlap unless --force; prints the
// new run's task id.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// What tq says when the daemon created no run, and the exit code: a skip ran nothing (1); a
// coalesced run is covered by the run already waiting (0).
int Explain(const std::string& action, const std::string& name) {
  if (action == "skip") {
    std::fprintf(stderr,
                 "tq: jobs run: skipped: a run of %s is pending or running (overlap = skip); use "
                 "--force to run it anyway\n",
                 Quote(name).c_str());
    return 1;
  }
  std::fprintf(stderr,
               "tq: jobs run: coalesced: a run of %s already waits behind the running one "
               "(overlap = queue) and covers this one; use --force to run another\n",
               Quote(name).c_str());
  return 0;
}

}  // namespace

Command AddJobsRun(CLI::App& jobs, const GlobalOptions& g) {
  auto* sub = jobs.add_subcommand(
      "run", "Run a job now (obeying its overlap unless --force) and print the task id");
  auto req = std::make_shared<JobRunRequest>();
  sub->add_option("name", req->name, "job name")->required();
  sub->add_flag("--force", req->force,
                "run even while another run is pending or running, alongside it");
  return {sub, [req, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(*req);
            if (!r.ok()) return Fail(r.status());
            if (g.json) std::printf("%s\n", r->dump().c_str());
            const nlohmann::json task = r->value("task", nlohmann::json());
            if (task.is_number_integer()) {
              if (!g.json) std::printf("%s\n", task.dump().c_str());
              return 0;
            }
            return Explain(r->value("action", ""), req->name);
          }};
}

}  // namespace tq
