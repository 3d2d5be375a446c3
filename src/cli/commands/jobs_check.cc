// tq jobs check FILE...: reads job files as tqd reads them and reports each, here in the client
// (no daemon), so a file can be checked before it is installed or reloaded.
#include <cstdio>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/job_file_text.h"
#include "core/jobs/job_file.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// What one file gave: its jobs, or why it is refused.
struct Checked {
  std::string path;
  Result<JobFile> file;
};

int Run(const std::vector<std::string>& paths, bool json) {
  std::vector<Checked> checked;
  std::map<std::string, std::string> where_by_name;  // job name -> "FILE:LINE" of its first use
  for (const std::string& path : paths) {
    Result<std::string> text = ReadJobFileText(path);
    Result<JobFile> file = text.ok() ? ParseJobFile(*text, path) : Result<JobFile>(text.status());
    if (file.ok()) {
      for (const JobDef& j : file->jobs) {
        const std::string here = path + ":" + std::to_string(j.line);
        auto [it, fresh] = where_by_name.emplace(j.name, here);
        if (!fresh) {
          file = Status(ErrorCode::kConfig, "name",
                        here + ": name: " + Quote(j.name) + " is already the name of the job at " +
                            it->second + " (names must be unique across the job files)");
          break;
        }
      }
    }
    checked.push_back({path, std::move(file)});
  }

  bool all_good = true;
  for (const Checked& c : checked) {
    all_good = all_good && c.file.ok();
    if (json) {
      nlohmann::json out = {{"file", c.path}, {"ok", c.file.ok()}};
      if (c.file.ok()) {
        nlohmann::json names = nlohmann::json::array();
        for (const JobDef& j : c.file->jobs) names.push_back(j.name);
        out["jobs"] = names;
      } else {
        out["error"] = c.file.status().message();
      }
      std::printf("%s\n",
                  out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (c.file.ok()) {
      const size_t n = c.file->jobs.size();
      std::printf("%s: %zu %s\n", c.path.c_str(), n, n == 1 ? "job" : "jobs");
    } else {
      std::fflush(stdout);
      std::fprintf(stderr, "%s\n", c.file.status().message().c_str());
    }
  }
  std::fflush(stdout);
  return all_good ? 0 : 2;  // a bad file is a bad value, as with tq cron next
}

}  // namespace

Command AddJobsCheck(CLI::App& jobs, const GlobalOptions& g) {
  auto* sub = jobs.add_subcommand(
      "check", "Check job files as tqd would read them (locally; no daemon needed)");
  auto paths = std::make_shared<std::vector<std::string>>();
  sub->add_option("file", *paths, "the job files (TOML) to check")->required();
  return {sub, [paths, &g]() { return Run(*paths, g.json); }};
}

}  // namespace tq
