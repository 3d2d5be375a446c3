// tq retry: put failed or cancelled tasks back in the queue by hand (with --succeeded, run
// succeeded ones again).
#include <algorithm>
#include <cstdio>
#include <set>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/selector_flags.h"

namespace tq {

namespace {
// Says on stderr why each task of `named` not among the re-queued `ids` was left as it is (in
// another state; `succeeded`: tq retry --succeeded). The others were re-queued, but the request
// was not done: 1 when a task was left, else 0.
int SayNotRequeued(Client& client, const std::vector<long long>& named, const nlohmann::json& ids,
                   bool succeeded) {
  std::set<long long> left(named.begin(), named.end()), requeued;
  for (const auto& id : ids) requeued.insert(id.get<long long>());
  for (long long id : requeued) left.erase(id);
  int status = 0;
  for (long long id : left) {
    auto task = client.Call(StatusRequest{.id = id});
    if (task.ok() && task->contains("group")) {
      // A group's id (SPEC 12) is done when any of its shards went back in the queue.
      const auto& group = (*task)["group"];
      bool any = false;
      for (const auto& shard : group["shards"])
        any = any || requeued.count(shard["id"].get<long long>()) > 0;
      if (any) continue;
      std::fprintf(
          stderr, "tq: group %lld was not re-queued: no shard of it %s (its state is %s)\n", id,
          succeeded ? "has ended" : "failed or was cancelled", group.value("state", "").c_str());
    } else {
      const std::string state =
          task.ok() ? (*task)["task"].value("state", "") : std::string("unknown");
      const bool ran_well = state == "succeeded" || state == "expired";
      std::fprintf(
          stderr, "tq: task %lld was not re-queued: its state is %s, not %s%s\n", id, state.c_str(),
          succeeded ? "failed, cancelled, succeeded or expired" : "failed or cancelled",
          ran_well && !succeeded ? " (tq retry --succeeded runs a succeeded or expired task again)"
                                 : "");
    }
    status = 1;
  }
  return status;
}
}  // namespace

Command AddRetry(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("retry", "Re-queue failed or cancelled tasks");
  struct Flags {
    SelectorFlags select;
    bool failed = false;
    bool succeeded = false;
    bool from_start = false;
    std::string from;
  };
  auto f = std::make_shared<Flags>();
  f->select.AddTo(sub, "task ids",
                  "failed (the default) or cancelled; with --succeeded also succeeded or expired");
  sub->add_flag("--failed", f->failed, "every failed task of yours (with the filters given)");
  sub->add_flag("--succeeded", f->succeeded,
                "run succeeded (or expired) tasks again too, from their first stage; filters "
                "without --state then match those");
  auto* from_start = sub->add_flag(
      "--from-start", f->from_start,
      "a task with stages runs every stage again (default: it resumes at the stage it stopped at)");
  sub->add_option("--from", f->from,
                  "a task with stages resumes at stage NAME (at or before where it stopped)")
      ->option_text("NAME")
      ->excludes(from_start);
  return {sub, [f, &g]() {
            auto select = f->select.Selector(RetryableStates(f->succeeded));
            if (!select.ok()) return Fail(select.status());
            if (f->failed && !select->ids.empty())
              return Fail(Status::Invalid("ids", "give task ids or --failed, not both"));
            auto& states = select->states;
            if (f->failed &&
                std::find(states.begin(), states.end(), TaskState::kFailed) == states.end())
              states.push_back(TaskState::kFailed);
            if (!NeedsSome(*select).ok())
              return Fail(Status::Invalid("ids",
                                          "retry needs task ids (tq retry ID...), --failed or "
                                          "a filter (--state, --queue, --label, --user)"));
            const std::vector<long long>& named = f->select.ids;
            RetryRequest req;
            req.select = std::move(*select);
            req.from_start = f->from_start;
            req.succeeded = f->succeeded;
            if (!f->from.empty()) req.from_stage = f->from;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(req);
            // tqd names the request's field; the user typed --from.
            if (!r.ok() && r.status().message().starts_with("from_stage:"))
              return Fail(Status(r.status().code(), "--from",
                                 "--from" + r.status().message().substr(sizeof("from_stage") - 1)));
            if (!r.ok()) return Fail(r.status());
            const auto& ids = (*r)["ids"];
            if (ids.empty() && named.empty() && !g.json)
              std::fputs("tq: no task matches\n", stderr);
            if (g.json) {
              std::printf("%s\n", nlohmann::json{{"ids", ids}}.dump().c_str());
            } else {
              for (const auto& id : ids) std::printf("%lld\n", id.get<long long>());
            }
            return SayNotRequeued(*client, named, ids, f->succeeded);
          }};
}

}  // namespace tq
