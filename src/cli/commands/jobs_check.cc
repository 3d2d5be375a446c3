// tq jobs check FILE...: reads job files as tqd reads them and reports each, here in the client,
// so a file can be checked before it is installed or reloaded; when a daemon answers, the names
// are also checked against the jobs it has in force.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_file_text.h"
#include "core/jobs/job_file.h"
#include "core/model/quote.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {

// Where a job in force is defined: "FILE:LINE", and the file's base name.
struct InForce {
  std::string where;
  std::string base;
};

// How long a daemon has to answer each page before the check stands on the files alone.
constexpr int kDaemonAnswerMs = 2000;

// The jobs the daemon at `socket` has in force, by name; none when no daemon answers in time (or
// it refuses), as the check then stands on the files alone.
std::map<std::string, InForce> JobsInForce(const std::string& socket) {
  std::map<std::string, InForce> out;
  auto client = Client::Connect(socket);
  if (!client.ok()) return out;
  JobsRequest request;
  for (;;) {
    if (!client->Send(request).ok() || !client->Readable(kDaemonAnswerMs)) return {};
    auto r = client->Read();
    if (!r.ok() || !ResponseStatus(*r).ok()) return {};
    const nlohmann::json& page = (*r)["jobs"];
    for (const auto& j : page) {
      auto file = BytesFromJson(j.value("file", nlohmann::json()), "file");
      if (!file.ok()) continue;
      out[j.value("name", "")] = {*file + ":" + std::to_string(j.value("line", 0)),
                                  std::filesystem::path(*file).filename().string()};
    }
    if (!r->value("more", false) || page.empty()) break;
    request.after = page.back().value("name", "");
  }
  return out;
}

// What one file gave: its jobs, or why it is refused.
struct Checked {
  std::string path;
  Result<JobFile> file;
};

int Run(const std::vector<std::string>& paths, const GlobalOptions& g) {
  const bool json = g.json;
  const std::map<std::string, InForce> in_force = JobsInForce(g.socket);
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
        // A file of the same name would replace the one in force, and its jobs with it.
        auto live = in_force.find(j.name);
        if (live != in_force.end() &&
            live->second.base != std::filesystem::path(path).filename().string()) {
          file = Status(ErrorCode::kConfig, "name",
                        here + ": name: " + Quote(j.name) + " is already defined at " +
                            live->second.where +
                            ", in force in the daemon (job names are unique across the job files)");
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
      "check",
      "Check job files as tqd would read them (locally; names also against a running daemon)");
  auto paths = std::make_shared<std::vector<std::string>>();
  sub->add_option("file", *paths, "the job files (TOML) to check")->required();
  return {sub, [paths, &g]() { return Run(*paths, g); }};
}

}  // namespace tq
