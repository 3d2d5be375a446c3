#include "core/model/shard_spread.h"

#include <algorithm>

namespace tq {

bool LeavesShard(const std::string& self, const std::vector<ShardHost>& hosts) {
  int mine = 0;
  for (const ShardHost& h : hosts)
    if (h.name == self) mine = h.shards;
  return std::any_of(hosts.begin(), hosts.end(), [&](const ShardHost& h) {
    return h.name != self && h.open && h.shards < mine;
  });
}

}  // namespace tq
