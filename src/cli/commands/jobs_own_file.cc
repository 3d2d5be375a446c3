// tq jobs install FILE, tq jobs cat, tq jobs remove [-u USER]: the caller's own job file, kept
// by the daemon and run as the caller (what `crontab FILE`, `crontab -l` and `crontab -r` do).
#include <cstdio>
#include <memory>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_file_text.h"
#include "cli/render.h"
#include "core/model/bytes.h"

namespace tq {

namespace {
// What one of the three commands says about itself.
struct OwnFileCommand {
  const char* name;
  const char* help;
  CrontabRequest::Action action;
};
constexpr OwnFileCommand kCommands[] = {
    {"install",
     "Install FILE ('-': standard input) as your own job file, its jobs run as you; a file that "
     "does not load changes nothing",
     CrontabRequest::Action::kInstall},
    {"cat", "Print your own job file", CrontabRequest::Action::kCat},
    {"remove", "Remove your own job file: its jobs stop firing", CrontabRequest::Action::kRemove},
};
}  // namespace

Result<nlohmann::json> InstallOwnJobFile(Client& client, const std::string& user,
                                         const std::string& text, const std::string& name) {
  if (!IsValidUtf8(text))
    return Status::Invalid("file", "file: a job file is TOML, which is UTF-8 text; this is not");
  CrontabRequest req;
  req.action = CrontabRequest::Action::kInstall;
  req.user = user;
  req.text = text;
  req.name = name;
  return client.Call(req);
}

std::vector<Command> AddJobsOwnFile(CLI::App& jobs, const GlobalOptions& g) {
  std::vector<Command> commands;
  for (const OwnFileCommand& c : kCommands) {
    auto* sub = jobs.add_subcommand(c.name, c.help);
    auto req = std::make_shared<CrontabRequest>();
    req->action = c.action;
    auto file = std::make_shared<std::string>();
    if (c.action == CrontabRequest::Action::kInstall)
      sub->add_option("file", *file, "the job file (tq-jobs(5)), or - for standard input")
          ->required();
    sub->add_option("-u,--user", req->user, "another user's job file (root only)");
    commands.push_back({sub, [req, file, &g]() {
                          auto client = Client::Connect(g.socket);
                          if (!client.ok()) return Fail(client.status());
                          Result<nlohmann::json> r = Status::Ok();
                          if (req->action == CrontabRequest::Action::kInstall) {
                            auto text = ReadJobFileText(*file);
                            if (!text.ok()) return Fail(text.status());
                            r = InstallOwnJobFile(*client, req->user, *text,
                                                  *file == "-" ? "<stdin>" : *file);
                          } else {
                            r = client->Call(*req);
                          }
                          if (!r.ok()) return Fail(r.status());
                          if (g.json) {
                            std::printf("%s\n", r->dump().c_str());
                          } else if (req->action == CrontabRequest::Action::kCat) {
                            const std::string text = (*r)["text"].get<std::string>();
                            std::fwrite(text.data(), 1, text.size(), stdout);
                          } else if (req->action == CrontabRequest::Action::kInstall) {
                            std::printf("installed %zu job(s)\n", (*r)["jobs"].size());
                          }
                          return 0;
                        }});
  }
  return commands;
}

}  // namespace tq
