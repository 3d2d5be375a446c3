// What a reload of tqd.toml changes, and what it leaves for a restart.
#include <doctest/doctest.h>

#include "core/config/config_diff.h"

namespace tq {
namespace {

using Keys = std::vector<std::string>;

Config ParsedConfig(const std::string& toml) {
  auto c = ParseConfig(toml, "tqd.toml");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  return *c;
}

TEST_CASE("a reload names the keys it changes and those that need a restart") {
  const struct {
    const char* name;
    std::string before, after;
    Keys changed, needs_restart;
  } cases[] = {
      {"nothing", "max_running = 2\n", "max_running = 2\n", {}, {}},
      {"limits",
       "max_running = 2\n",
       "max_running = 3\nkill_grace = \"5s\"\n",
       {"max_running", "kill_grace"},
       {}},
      {"a queue added, one changed, one removed",
       "[queues.a]\nconcurrency = 1\n[queues.b]\n",
       "[queues.a]\nconcurrency = 2\n[queues.c]\npriority_mix = \"strict\"\n",
       {"queues.a", "queues.b", "queues.c"},
       {}},
      {"a user's limits", "", "[users.alice]\nmax_running = 1\n", {"users.alice"}, {}},
      {"resources added, changed and removed",
       "[resources]\ngpu = 2\nfpga = 1\n",
       "[resources]\ngpu = [\"0\", \"1\", \"2\"]\nlicence = 1\n",
       {"resources.fpga", "resources.gpu", "resources.licence"},
       {}},
      {"the same units spelled two ways",
       "[resources]\ngpu = 2\n",
       "[resources]\ngpu = [\"0\", \"1\"]\n",
       {},
       {}},
      {"who may use tqd",
       "",
       "deny_users = [\"mallory\"]\nadmin_group = \"ops\"\n",
       {"admin_group", "deny_users"},
       {}},
      {"paths and durability need a restart",
       "",
       "socket = \"/tmp/x.sock\"\nstate_dir = \"/tmp/s\"\ndurability = \"normal\"\n"
       "max_running = 9\n",
       {"max_running"},
       {"durability", "socket", "state_dir"}},
      {"the store and the host name need a restart",
       "",
       "store = \"postgresql:///tq\"\nhost = \"web-2\"\n",
       {},
       {"store", "host"}},
      {"a host's lease applies at once", "", "host_lease = \"10s\"\n", {"host_lease"}, {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const ConfigDiff diff = DiffConfig(ParsedConfig(c.before), ParsedConfig(c.after));
    CHECK(diff.changed == c.changed);
    CHECK(diff.needs_restart == c.needs_restart);
  }
}

TEST_CASE("what a reload puts in force keeps what needs a restart as it runs") {
  const Config running = ParsedConfig("socket = \"/run/a.sock\"\nmax_running = 2\n");
  const Config read = ParsedConfig(
      "socket = \"/run/b.sock\"\nmax_running = 5\ndurability = \"normal\"\n"
      "store = \"postgresql:///tq\"\nhost = \"web-2\"\n");
  const Config in_force = InForce(running, read);
  CHECK(in_force.socket == "/run/a.sock");
  CHECK(in_force.store.empty());
  CHECK(in_force.host.empty());
  CHECK(in_force.durability_full);
  CHECK(in_force.max_running == 5);
  CHECK(DiffConfig(in_force, read).changed.empty());
}

}  // namespace
}  // namespace tq
