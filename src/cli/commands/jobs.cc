// tq jobs: the group of commands about cron jobs; on its own it lists every job in force with its
// schedule, next and last firing and last result, then the job files' load errors.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_render.h"
#include "cli/render.h"

namespace tq {

namespace {

// Every job, a page at a time; the load errors come with the first page.
int ListJobs(const GlobalOptions& g) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  nlohmann::json jobs = nlohmann::json::array();
  nlohmann::json first;
  JobsRequest request;
  for (;;) {
    auto r = client->Call(request);
    if (!r.ok()) return Fail(r.status());
    if (first.is_null()) first = *r;
    const nlohmann::json& page = (*r)["jobs"];
    for (const auto& j : page) jobs.push_back(j);
    if (!r->value("more", false) || page.empty()) break;
    request.after = page.back().value("name", "");
  }
  if (g.json) {
    std::printf("%s\n", nlohmann::json{{"jobs", std::move(jobs)},
                                       {"errors", first["errors"]},
                                       {"errors_left_out", first.value("errors_left_out", 0)}}
                            .dump()
                            .c_str());
    return 0;
  }
  const WallMs now = RealClock().WallNow();
  if (jobs.empty()) {
    std::printf("no jobs\n");
  } else {
    PrintTable(JobRows(jobs, now));
  }
  bool last_good = false;
  for (const auto& j : jobs) last_good = last_good || j.value("from_last_good", false);
  if (last_good)
    std::printf("* its file failed to load: its last good definition stays in force\n");
  const std::vector<std::string> errors = LoadErrorLines(first);
  if (!errors.empty()) {
    std::printf("\nload errors (the last good jobs of these files stay in force):\n");
    for (const std::string& line : errors) std::printf("  %s\n", line.c_str());
  }
  return 0;
}

}  // namespace

Command AddJobs(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "jobs",
      "List the cron jobs (name, schedule, zone, next and last firing, last result, load "
      "errors); show, run, enable or disable one; check job files");
  sub->require_subcommand(0, 1);
  auto subcommands = std::make_shared<std::vector<Command>>();
  subcommands->push_back(AddJobsShow(*sub, g));
  subcommands->push_back(AddJobsRun(*sub, g));
  subcommands->push_back(AddJobsEnable(*sub, g, true));
  subcommands->push_back(AddJobsEnable(*sub, g, false));
  subcommands->push_back(AddJobsCheck(*sub, g));
  return {sub, [subcommands, &g]() {
            for (const Command& c : *subcommands)
              if (c.app->parsed()) return c.run();
            return ListJobs(g);
          }};
}

}  // namespace tq
