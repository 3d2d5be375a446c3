// Spreading a group's shards over the hosts of a shared store (SPEC 12): no host takes another
// shard of a group while a host that could take it runs fewer of the group's shards, so N shards
// on H free hosts run N/H to a host.
#pragma once

#include <string>
#include <vector>

namespace tq {

/// A host as the spread of one group's shards weighs it.
struct ShardHost {
  std::string name;
  int shards = 0;     ///< the group's shards running on it
  bool open = false;  ///< live, allowed by the shard's queue, and with a free slot
};

/// True when host `self` should leave the group's next shard to another host: some other open
/// host in `hosts` runs fewer of the group's shards than `self` does (a host not in `hosts` runs
/// none).
bool LeavesShard(const std::string& self, const std::vector<ShardHost>& hosts);

}  // namespace tq
