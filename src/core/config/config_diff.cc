#include "core/config/config_diff.h"

#include <functional>
#include <set>

namespace tq {

namespace {

// One top-level key of tqd.toml and whether two configs agree on it.
struct Key {
  const char* name;
  bool restart;  ///< read at start only
  std::function<bool(const Config&, const Config&)> same;
};

// The keys of tqd.toml, tables apart, in tqd.toml(5)'s order.
const std::vector<Key>& Keys() {
  static const std::vector<Key> keys = {
      {"max_running", false, [](auto& a, auto& b) { return a.max_running == b.max_running; }},
      {"output_max", false, [](auto& a, auto& b) { return a.output_max == b.output_max; }},
      {"kill_grace", false, [](auto& a, auto& b) { return a.kill_grace_ms == b.kill_grace_ms; }},
      {"high_share", false, [](auto& a, auto& b) { return a.high_share == b.high_share; }},
      {"durability", true, [](auto& a, auto& b) { return a.durability_full == b.durability_full; }},
      {"store", true, [](auto& a, auto& b) { return a.store == b.store; }},
      {"host", true, [](auto& a, auto& b) { return a.host == b.host; }},
      {"host_lease", false, [](auto& a, auto& b) { return a.host_lease_ms == b.host_lease_ms; }},
      {"success_retention", false,
       [](auto& a, auto& b) { return a.success_retention_ms == b.success_retention_ms; }},
      {"purge_after", false, [](auto& a, auto& b) { return a.purge_after_ms == b.purge_after_ms; }},
      {"socket", true, [](auto& a, auto& b) { return a.socket == b.socket; }},
      {"state_dir", true, [](auto& a, auto& b) { return a.state_dir == b.state_dir; }},
      {"jobs_dir", true, [](auto& a, auto& b) { return a.jobs_dir == b.jobs_dir; }},
      {"cgroup", true, [](auto& a, auto& b) { return a.cgroup == b.cgroup; }},
      {"metrics_textfile", true,
       [](auto& a, auto& b) { return a.metrics_textfile == b.metrics_textfile; }},
      {"metrics_interval", true,
       [](auto& a, auto& b) { return a.metrics_interval_ms == b.metrics_interval_ms; }},
      {"sendmail", false, [](auto& a, auto& b) { return a.sendmail == b.sendmail; }},
      {"hook_timeout", false,
       [](auto& a, auto& b) { return a.hook_timeout_ms == b.hook_timeout_ms; }},
      {"admin_group", false,
       [](auto& a, auto& b) { return a.users.admin_group == b.users.admin_group; }},
      {"allow_users", false,
       [](auto& a, auto& b) { return a.users.allow_users == b.users.allow_users; }},
      {"deny_users", false,
       [](auto& a, auto& b) { return a.users.deny_users == b.users.deny_users; }},
      {"user_limits", false, [](auto& a, auto& b) { return a.user_limits == b.user_limits; }},
  };
  return keys;
}

// The names of a table's entries that differ between `a` and `b` (added, removed or changed),
// each as "PREFIX.NAME".
template <typename Map>
void DiffTable(const char* prefix, const Map& a, const Map& b, std::vector<std::string>& out) {
  std::set<std::string> names;
  for (const auto& [name, value] : a) names.insert(name);
  for (const auto& [name, value] : b) names.insert(name);
  for (const std::string& name : names) {
    auto ia = a.find(name), ib = b.find(name);
    if (ia == a.end() || ib == b.end() || !(ia->second == ib->second))
      out.push_back(std::string(prefix) + "." + name);
  }
}

}  // namespace

ConfigDiff DiffConfig(const Config& running, const Config& read) {
  ConfigDiff diff;
  for (const Key& key : Keys())
    if (!key.same(running, read))
      (key.restart ? diff.needs_restart : diff.changed).push_back(key.name);
  DiffTable("users", running.user_overrides, read.user_overrides, diff.changed);
  DiffTable("queues", running.queues, read.queues, diff.changed);
  DiffTable("resources", running.unit_pools, read.unit_pools, diff.changed);
  return diff;
}

Config InForce(const Config& running, const Config& read) {
  Config out = read;
  out.durability_full = running.durability_full;
  out.store = running.store;
  out.host = running.host;
  out.socket = running.socket;
  out.state_dir = running.state_dir;
  out.jobs_dir = running.jobs_dir;
  out.cgroup = running.cgroup;
  out.metrics_textfile = running.metrics_textfile;
  out.metrics_interval_ms = running.metrics_interval_ms;
  return out;
}

}  // namespace tq
