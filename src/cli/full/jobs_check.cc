// tq jobs check FILE...: reads job files as tqd reads them and reports each, here in the client,
// so a file can be checked before it is installed or reloaded. Users are looked up here; when a
// daemon answers, the names are also checked against the jobs it has in force and the resource
// units against its [resources] (else the check says it could not).
#include <pwd.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/client.h"
#include "cli/full/full_runs.h"
#include "cli/job_file_text.h"
#include "core/jobs/file_errors.h"
#include "core/jobs/job_file.h"
#include "core/jobs/job_host_check.h"
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

// The jobs the daemon of `client` has in force, by name; none when it does not answer in time
// (or refuses), as the check then stands on the files alone.
std::map<std::string, InForce> JobsInForce(Client& client) {
  std::map<std::string, InForce> out;
  JobsRequest request;
  for (;;) {
    if (!client.Send(request).ok() || !client.Readable(kDaemonAnswerMs)) return {};
    auto r = client.Read();
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

// The resources of the daemon of `client` and their configured units (tqd.toml's [resources]).
Result<UnitPools> DaemonPools(Client& client) {
  if (Status sent = client.Send(ResourcesRequest{}); !sent.ok()) return sent;
  if (!client.Readable(kDaemonAnswerMs))
    return Status(ErrorCode::kUnavailable, "socket", "tqd at " + client.path() + " did not answer");
  auto r = client.Read();
  if (!r.ok()) return r.status();
  if (Status st = ResponseStatus(*r); !st.ok()) return st;
  UnitPools pools;
  for (const auto& resource : r->value("resources", nlohmann::json::array())) {
    std::vector<std::string> units;
    for (const auto& unit : resource.value("units", nlohmann::json::array()))
      if (unit.value("configured", true)) units.push_back(unit.value("name", std::string()));
    if (!units.empty()) pools[resource.value("name", std::string())] = std::move(units);
  }
  return pools;
}

// The account `name` in this machine's password database, looked up as tqd looks it up.
AccountFound LookUpAccountHere(const std::string& name) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  const int rc = getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found);
  if (found != nullptr) return {AccountFound::Kind::kFound, pw.pw_uid, ""};
  if (rc != 0) return {AccountFound::Kind::kError, 0, std::strerror(rc)};
  return {AccountFound::Kind::kMissing, 0, ""};
}

// What the check learns of the daemon: the jobs it has in force, and what it runs jobs with.
struct DaemonView {
  std::map<std::string, InForce> in_force;
  JobHost host{LookUpAccountHere, std::nullopt, std::nullopt};
  std::string resources_unchecked;  // why host.pools is unknown
};

// Asks the daemon at `socket` (--socket, else $TQ_SOCKET and the usual places); a daemon that
// cannot be reached leaves the check to the files and this machine's accounts.
DaemonView LookAtDaemon(const std::string& socket) {
  DaemonView view;
  auto client = Client::Connect(socket);
  if (!client.ok()) {
    view.resources_unchecked = client.status().message();
    return view;
  }
  Result<UnitPools> pools = DaemonPools(*client);
  if (!pools.ok()) {
    view.resources_unchecked = pools.status().message();
    return view;
  }
  view.host.pools = std::move(*pools);
  // tqd made its socket: the socket's owner is the user it runs as.
  struct stat st {};
  if (stat(client->path().c_str(), &st) == 0) view.host.daemon_uid = st.st_uid;
  view.in_force = JobsInForce(*client);
  return view;
}

// What one file gave: its jobs, or why it is refused.
struct Checked {
  std::string path;
  Result<JobFile> file;
};

}  // namespace

int RunJobsCheck(const std::vector<std::string>& paths, const GlobalOptions& g) {
  const bool json = g.json;
  const DaemonView daemon = LookAtDaemon(g.socket);
  const std::map<std::string, InForce>& in_force = daemon.in_force;
  bool asks_units = false;  // some good file has a job with `use`
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
    if (file.ok()) {
      FileErrors errors(path);
      for (const JobDef& j : file->jobs) {
        errors.Add(CheckJobOnHost(j, daemon.host));
        asks_units = asks_units || !j.use.empty();
      }
      if (errors.count() > 0) file = errors.Joined();
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
  if (asks_units && !daemon.host.pools)
    std::fprintf(stderr, "tq: resources not checked: %s\n", daemon.resources_unchecked.c_str());
  return all_good ? 0 : 2;  // a bad file is a bad value, as with tq cron next
}

}  // namespace tq
