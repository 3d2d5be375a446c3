// tq cancel: pending tasks end at once; running ones get TERM, then KILL after the grace.
#include <unistd.h>

#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/model/duration.h"

namespace tq {

namespace {

// What a person at a terminal is told while running tasks are given their grace period.
std::string StoppingLine(const nlohmann::json& frame) {
  const int64_t n = frame.value("stopping", int64_t{0});
  return "tq: waiting up to " + FormatDuration(frame.value("grace_ms", int64_t{0})) + " for " +
         std::to_string(n) + (n == 1 ? " running task" : " running tasks") +
         " to exit after TERM (then KILL)\n";
}

}  // namespace

Command AddCancel(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("cancel", "Cancel tasks; returns once they have ended");
  auto ids = std::make_shared<std::vector<long long>>();
  sub->add_option("ids", *ids, "task ids")->required();
  return {sub, [ids, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            const bool progress = isatty(STDERR_FILENO) == 1;
            Status sent = client->Send(CancelRequest{{ids->begin(), ids->end()}, progress});
            if (!sent.ok()) return Fail(sent);
            auto r = client->Read();
            while (r.ok() && r->contains("stopping")) {
              std::fputs(StoppingLine(*r).c_str(), stderr);
              r = client->Read();
            }
            if (!r.ok()) return Fail(r.status());
            if (Status st = ResponseStatus(*r); !st.ok()) return Fail(st);
            for (const auto& t : (*r)["tasks"]) {
              if (g.json) {
                std::printf("%s\n", t.dump().c_str());
              } else {
                std::printf("%lld %s\n", t["id"].get<long long>(), DescribeEnd(t).c_str());
              }
            }
            return 0;
          }};
}

}  // namespace tq
