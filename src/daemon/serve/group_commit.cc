#include "daemon/serve/group_commit.h"

#include <spdlog/spdlog.h>

namespace tq {

void GroupCommit::Add(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running) {
  group_.emplace_back(conn, SubmitItem{peer, std::move(spec), supersede_running});
  loop_.Defer(this, [this] { Flush(); });
}

Status GroupCommit::Admit(const Owner& peer, int64_t count) {
  int64_t queued = 0;
  for (const auto& [conn, item] : group_) queued += item.owner.uid == peer.uid;
  return limits_.Admit(store_, peer, count, queued);
}

void GroupCommit::Flush() {
  auto group = std::move(group_);
  group_.clear();
  std::vector<SubmitItem> items;
  items.reserve(group.size());
  for (auto& [conn, item] : group) items.push_back(std::move(item));
  const auto results = store_.SubmitGroup(items, clock_.WallNow());
  spdlog::debug("group commit of {} submit(s)", items.size());
  for (size_t i = 0; i < group.size(); ++i) answer_(group[i].first, items[i], results[i]);
}

}  // namespace tq
