// tq reload: the daemon reads tqd.toml and its job files again (as on SIGHUP) and says what
// changed and what needs a restart; a file that failed to load is named with its line and
// reason, and tq exits 2, as `tq jobs check` does for a bad file.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_render.h"
#include "cli/render.h"

namespace tq {

Command AddReload(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "reload", "Read tqd.toml and the job files again; a job file that fails keeps its jobs");
  return {sub, [&g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(ReloadRequest{});
            if (!r.ok()) return Fail(r.status());
            const std::vector<std::string> errors = LoadErrorLines(*r);
            if (g.json) {
              std::printf("%s\n", r->dump().c_str());
            } else {
              std::printf("%s files, %s jobs: %s added, %s removed, %s changed\n",
                          r->value("files", nlohmann::json()).dump().c_str(),
                          r->value("jobs", nlohmann::json()).dump().c_str(),
                          r->value("added", nlohmann::json()).dump().c_str(),
                          r->value("removed", nlohmann::json()).dump().c_str(),
                          r->value("changed", nlohmann::json()).dump().c_str());
              const nlohmann::json config = r->value("config", nlohmann::json::object());
              for (const auto& key : config.value("changed", nlohmann::json::array()))
                std::printf("tqd.toml: %s changed\n", key.get<std::string>().c_str());
              for (const auto& key : config.value("needs_restart", nlohmann::json::array()))
                std::fprintf(stderr, "tq: reload: tqd.toml: %s needs a restart of tqd\n",
                             key.get<std::string>().c_str());
              for (const std::string& line : errors)
                std::fprintf(stderr, "tq: reload: %s\n", line.c_str());
            }
            return errors.empty() ? 0 : ExitCodeFor(ErrorCode::kInvalid);
          }};
}

}  // namespace tq
