// tq jobs: the group of commands about cron jobs; on its own it lists every job in force with its
// schedule, next and last firing and last result, then the job files' load errors.
#include <algorithm>
#include <cstdio>
#include <iterator>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_render.h"
#include "cli/render.h"
#include "cli/state_colour.h"

namespace tq {

namespace {

// Prints the load errors of `answer` (the first page) after the table, if any.
void PrintLoadErrors(const nlohmann::json& answer) {
  const std::vector<std::string> errors = LoadErrorLines(answer);
  if (errors.empty()) return;
  std::printf("\nload errors:\n");
  for (const std::string& line : errors) std::printf("  %s\n", line.c_str());
}

// `tq jobs --json`: every job as the daemon lists it, a page at a time; the load errors come
// with the first page.
int ListJobsJson(const GlobalOptions& g) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  nlohmann::json jobs = nlohmann::json::array();
  nlohmann::json first;
  JobsRequest request;
  for (;;) {
    auto r = client->Call(request);
    if (!r.ok()) return Fail(r.status());
    if (first.is_null())
      first = {{"errors", std::move((*r)["errors"])},
               {"errors_left_out", r->value("errors_left_out", 0)}};
    nlohmann::json& page = (*r)["jobs"];
    const bool more = r->value("more", false) && !page.empty();
    if (more) request.after = page.back().value("name", "");
    for (auto& j : page) jobs.push_back(std::move(j));
    if (!more) break;
  }
  std::printf("%s\n", nlohmann::json{{"jobs", std::move(jobs)},
                                     {"errors", first["errors"]},
                                     {"errors_left_out", first["errors_left_out"]}}
                          .dump()
                          .c_str());
  return 0;
}

// `tq jobs`: the table of every job, read page by page straight into rows (ReadJobPage).
int ListJobsTable(const GlobalOptions& g) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  std::vector<JobRow> jobs;
  nlohmann::json first;
  JobsRequest request;
  for (;;) {
    Status sent = client->Send(request);
    if (!sent.ok()) return Fail(sent);
    auto text = client->ReadText();
    if (!text.ok()) return Fail(text.status());
    auto page = ReadJobPage(*text);
    if (!page.ok()) return Fail(page.status());
    if (Status st = ResponseStatus(page->rest); !st.ok()) return Fail(st);
    const bool more = page->rest.value("more", false) && !page->jobs.empty();
    if (first.is_null()) first = std::move(page->rest);
    if (more) request.after = page->jobs.back().name;
    jobs.insert(jobs.end(), std::make_move_iterator(page->jobs.begin()),
                std::make_move_iterator(page->jobs.end()));
    if (!more) break;
  }
  if (jobs.empty()) {
    std::printf("no jobs\n");
  } else {
    PrintTable(JobRows(jobs, RealClock().WallNow(), StdoutColour(g.json)));
  }
  if (std::any_of(jobs.begin(), jobs.end(), [](const JobRow& j) { return j.from_last_good; }))
    std::printf("* its file failed to load: its last good definition stays in force\n");
  PrintLoadErrors(first);
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
  for (Command& c : AddJobsOwnFile(*sub, g)) subcommands->push_back(std::move(c));
  subcommands->push_back(AddJobsEdit(*sub, g));
  return {sub, [subcommands, &g]() {
            for (const Command& c : *subcommands)
              if (c.app->parsed()) return c.run();
            return g.json ? ListJobsJson(g) : ListJobsTable(g);
          }};
}

}  // namespace tq
