// tq clean: remove finished tasks and their output now (pueue clean, tsp -C).
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/model/duration.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// The states `--state NAME` stands for: "succeeded" takes in expired tasks (succeeded ones past
// their retention), "all-finished" every finished state.
Result<std::vector<TaskState>> CleanStates(const std::vector<std::string>& names) {
  std::vector<TaskState> states;
  for (const std::string& name : names) {
    if (name == "all-finished") {
      states.insert(states.end(), CleanableStates().begin(), CleanableStates().end());
    } else if (name == "succeeded") {
      states.insert(states.end(), {TaskState::kSucceeded, TaskState::kExpired});
    } else if (name == "failed" || name == "cancelled" || name == "expired") {
      states.push_back(*StateFromName(name));
    } else {
      return Status::Invalid("--state", "--state: " + Quote(name) +
                                            " is not one of succeeded failed cancelled expired "
                                            "all-finished");
    }
  }
  return states;
}

}  // namespace

Command AddClean(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("clean", "Remove finished tasks and their output now");
  struct Flags {
    std::vector<long long> ids;
    std::vector<std::string> states;
    std::string queue, label, user, older_than;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("ids", f->ids, "finished tasks to remove (default: by the filters)");
  sub->add_option("--state", f->states,
                  "succeeded (the default), failed, cancelled, expired or all-finished; "
                  "repeat or separate with commas")
      ->delimiter(',');
  sub->add_option("-q,--queue", f->queue, "only tasks of this queue");
  sub->add_option("--label", f->label, "only tasks with this label");
  sub->add_option("-u,--user", f->user, "only this user's tasks (another's: admins only)");
  sub->add_option("--older-than", f->older_than,
                  "only tasks that finished at least this long ago (2d, 12h)");
  return {
      sub, [f, &g]() {
        CleanRequest req;
        req.select.ids.assign(f->ids.begin(), f->ids.end());
        auto states = CleanStates(f->states);
        if (!states.ok()) return Fail(states.status());
        req.select.states = std::move(*states);
        if (!f->queue.empty()) req.select.queue = f->queue;
        if (!f->label.empty()) req.select.label = f->label;
        if (!f->user.empty()) req.select.user = f->user;
        if (!req.select.ids.empty() &&
            (!f->states.empty() || !f->queue.empty() || !f->label.empty() || !f->user.empty()))
          return Fail(
              Status::Invalid("ids", "give task ids or --state/--queue/--label/--user, not both"));
        if (!f->older_than.empty()) {
          auto age = ParseDuration(f->older_than, "--older-than");
          if (!age.ok()) return Fail(age.status());
          req.older_than_ms = *age;
        }
        auto client = Client::Connect(g.socket);
        if (!client.ok()) return Fail(client.status());
        auto r = client->Call(req);
        if (!r.ok()) return Fail(r.status());
        const int64_t removed = r->value("removed", int64_t{0});
        const int64_t bytes = r->value("output_bytes", int64_t{0});
        if (g.json) {
          std::printf("%s\n",
                      nlohmann::json{{"removed", removed}, {"output_bytes", bytes}}.dump().c_str());
        } else {
          std::printf("removed %lld task%s, %s of output\n", static_cast<long long>(removed),
                      removed == 1 ? "" : "s", HumanBytes(bytes).c_str());
        }
        return 0;
      }};
}

}  // namespace tq
