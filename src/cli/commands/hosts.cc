// tq hosts: the hosts of the store (SPEC 12), whether each is live, silent, stopped or fenced, when
// it last beat and what it runs.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"

namespace tq {

namespace {

// The HEARTBEAT cell of `host`, an entry of a hosts answer: how long ago its last heartbeat was
// ("2.0s ago"); "-" when the store is not `shared` (SQLite), where no host beats.
std::string HostHeartbeatAgo(const nlohmann::json& host, bool shared) {
  if (!shared) return "-";
  const nlohmann::json age = host.value("heartbeat_age_ms", nlohmann::json());
  return age.is_number() ? ShortDuration(age) + " ago" : "-";
}

// The RUNNING cell of `host`: its running attempts out of its max_running ("3/8").
std::string HostRunning(const nlohmann::json& host) {
  return std::to_string(host.value("running", 0)) + "/" +
         std::to_string(host.value("max_running", 0));
}

// The STARTED cell of `host`: when it joined the store, in local time.
std::string HostStarted(const nlohmann::json& host) {
  return LocalTime(host.value("started", nlohmann::json()));
}

}  // namespace

Command AddHosts(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "hosts", "Show the hosts of the store: live, silent, stopped or fenced, and what each runs");
  return {sub, [&g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(HostsRequest{});
            if (!r.ok()) return Fail(r.status());
            if (g.json) {
              r->erase("ok");
              std::printf("%s\n", r->dump().c_str());
              return 0;
            }
            const bool shared = r->value("shared", false);
            std::vector<std::vector<std::string>> rows = {
                {"HOST", "STATE", "HEARTBEAT", "RUNNING", "VERSION", "STARTED"}};
            for (const auto& host : r->value("hosts", nlohmann::json::array())) {
              std::string name = host.value("name", std::string());
              if (host.value("this", false)) name += "*";
              rows.push_back({name, host.value("state", std::string()),
                              HostHeartbeatAgo(host, shared), HostRunning(host),
                              host.value("version", std::string()), HostStarted(host)});
            }
            PrintTable(rows);
            return 0;
          }};
}

}  // namespace tq
