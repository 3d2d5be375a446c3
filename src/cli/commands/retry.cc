// tq retry: put failed or cancelled tasks back in the queue by hand.
#include <algorithm>
#include <cstdio>
#include <set>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/selector_flags.h"

namespace tq {

Command AddRetry(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("retry", "Re-queue failed or cancelled tasks");
  struct Flags {
    SelectorFlags select;
    bool failed = false;
    bool from_start = false;
    std::string from;
  };
  auto f = std::make_shared<Flags>();
  f->select.AddTo(sub, "task ids", "failed (the default) or cancelled");
  sub->add_flag("--failed", f->failed, "every failed task of yours (with the filters given)");
  auto* from_start = sub->add_flag(
      "--from-start", f->from_start,
      "a task with stages runs every stage again (default: it resumes at the stage it stopped at)");
  sub->add_option("--from", f->from,
                  "a task with stages resumes at stage NAME (at or before where it stopped)")
      ->option_text("NAME")
      ->excludes(from_start);
  return {sub, [f, &g]() {
            auto select = f->select.Selector(RetryableStates());
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
            // A named task that was not failed or cancelled is left as it is: the others were
            // re-queued, but the request was not done, so exit 1 naming each.
            std::set<long long> left(named.begin(), named.end()), requeued;
            for (const auto& id : ids) requeued.insert(id.get<long long>());
            for (long long id : requeued) left.erase(id);
            int status = 0;
            for (long long id : left) {
              auto task = client->Call(StatusRequest{.id = id});
              if (task.ok() && task->contains("group")) {
                // A group's id (SPEC 12) is done when any of its shards went back in the queue.
                const auto& group = (*task)["group"];
                bool any = false;
                for (const auto& shard : group["shards"])
                  any = any || requeued.count(shard["id"].get<long long>()) > 0;
                if (any) continue;
                std::fprintf(stderr,
                             "tq: group %lld was not re-queued: no shard of it failed or was "
                             "cancelled (its state is %s)\n",
                             id, group.value("state", "").c_str());
              } else {
                const std::string state =
                    task.ok() ? (*task)["task"].value("state", "") : std::string("unknown");
                std::fprintf(stderr,
                             "tq: task %lld was not re-queued: its state is %s, not failed or "
                             "cancelled\n",
                             id, state.c_str());
              }
              status = 1;
            }
            return status;
          }};
}

}  // namespace tq
