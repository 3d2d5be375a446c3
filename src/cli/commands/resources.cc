// tq resources: each resource of tqd.toml's [resources], how many of its units are in use, and
// which task holds each (SPEC 14).
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

namespace {

// "0:task 12, 2:task 13": the held units of `resource` and their holders.
std::string HeldBy(const nlohmann::json& resource) {
  std::string out;
  for (const auto& unit : resource.value("units", nlohmann::json::array())) {
    if (!unit.value("in_use", false)) continue;
    const nlohmann::json task = unit.value("task", nlohmann::json());
    std::string who = task.is_number() ? "task " + task.dump() : "another user's task";
    if (!unit.value("configured", true)) who += " (unit removed)";
    out += (out.empty() ? "" : ", ") + unit.value("name", std::string()) + ":" + who;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

Command AddResources(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "resources", "Show the units of each resource of tqd.toml's [resources] and who holds them");
  return {sub, [&g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(ResourcesRequest{});
            if (!r.ok()) return Fail(r.status());
            const nlohmann::json list = r->value("resources", nlohmann::json::array());
            if (g.json) {
              std::printf("%s\n", list.dump().c_str());
              return 0;
            }
            if (list.empty()) {
              std::printf("no resources (name them in tqd.toml's [resources], e.g. gpu = 4)\n");
              return 0;
            }
            std::vector<std::vector<std::string>> rows = {
                {"RESOURCE", "UNITS", "IN USE", "FREE", "HELD BY"}};
            for (const auto& res : list) {
              const int total = res.value("total", 0), in_use = res.value("in_use", 0);
              rows.push_back({res.value("name", std::string()), std::to_string(total),
                              std::to_string(in_use), std::to_string(total - in_use), HeldBy(res)});
            }
            PrintTable(rows);
            return 0;
          }};
}

}  // namespace tq
