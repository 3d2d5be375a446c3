#include "core/config/config.h"
#include "support/temp_dir.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tq {
namespace {

Config MustParse(const std::string& text) {
  Result<Config> r = ParseConfig(text, "tqd.toml");
  if (!r.ok()) FAIL(r.status().message());
  return *r;
}

TEST_CASE("config: an empty file gives the defaults") {
  Config c = MustParse("");
  CHECK(c.max_running >= 1);
  CHECK(c.max_running == DefaultMaxRunning());
  CHECK(c.output_max == 8 * 1024 * 1024);
  CHECK(c.kill_grace_ms == 10000);
  CHECK(c.high_share == doctest::Approx(0.8));
  CHECK(c.durability_full);
  CHECK(c.socket.empty());
  CHECK(c.state_dir.empty());
  CHECK(c.jobs_dir.empty());
  CHECK(c.queues.empty());
  CHECK(Config().max_running == DefaultMaxRunning());
}

TEST_CASE("config: every key") {
  Config c = MustParse(R"(# a comment
max_running = 3
output_max = "512KiB"
kill_grace = "1m30s"
high_share = 0.5
durability = "normal"
socket = "/run/tq-test/tq.sock"
state_dir = "/var/lib/tq-test"
jobs_dir = "/etc/tq-test/jobs.d"

[queues.gpu]
concurrency = 1

[queues."batch.nightly-2"]

[queues.io_bound]
concurrency = 8
)");
  CHECK(c.max_running == 3);
  CHECK(c.output_max == 512 * 1024);
  CHECK(c.kill_grace_ms == 90000);
  CHECK(c.high_share == doctest::Approx(0.5));
  CHECK_FALSE(c.durability_full);
  CHECK(c.socket == "/run/tq-test/tq.sock");
  CHECK(c.state_dir == "/var/lib/tq-test");
  CHECK(c.jobs_dir == "/etc/tq-test/jobs.d");
  REQUIRE(c.queues.size() == 3);
  CHECK(c.queues.at("gpu").concurrency == 1);
  CHECK(c.queues.at("batch.nightly-2").concurrency == 0);
  CHECK(c.queues.at("io_bound").concurrency == 8);
}

TEST_CASE("config: the store and the host name") {
  Config c = MustParse("");
  CHECK(c.store.empty());  // SQLite in the state directory
  CHECK(c.host.empty());   // the machine's hostname
  c = MustParse("store = \"sqlite\"\nhost = \"web-1.example_2\"\n");
  CHECK(c.store.empty());
  CHECK(c.host == "web-1.example_2");
  for (const char* uri : {"postgresql:///tq?host=/run/postgresql", "postgres://db.example/tq"}) {
    CAPTURE(uri);
    CHECK(MustParse(std::string("store = \"") + uri + "\"\n").store == uri);
  }
  // A refused value may carry a password: the refusal never quotes it.
  Result<Config> r = ParseConfig("store = \"mysql://root:hunter2@db\"\n", "tqd.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("hunter2") == std::string::npos);
}

TEST_CASE("config: retention and per-queue retry defaults") {
  auto c = ParseConfig(
      "success_retention = \"2h\"\npurge_after = \"3d\"\n"
      "[queues.net]\nretries = 5\nbackoff = \"fixed\"\nbackoff_base = \"30s\"\n"
      "backoff_max = \"10m\"\njitter = false\nretry_on_exit = [75]\nno_retry_on_exit = [2, 3]\n"
      "retry_priority_penalty = 1\n",
      "tqd.toml");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->success_retention_ms == 2 * 3600 * 1000);
  CHECK(c->purge_after_ms == 3 * 24 * 3600 * 1000LL);
  const QueueConfig& q = c->Queue("net");
  CHECK(q.retry.retries == 5);
  CHECK(q.retry.backoff == BackoffKind::kFixed);
  CHECK(q.retry.base_ms == 30000);
  CHECK(q.retry.max_ms == 600000);
  CHECK_FALSE(q.retry.jitter);
  CHECK(q.retry.retry_on_exit == std::vector<int>{75});
  CHECK(q.retry.no_retry_on_exit == std::vector<int>{2, 3});
  CHECK(q.retry_priority_penalty == 1);
  CHECK(c->Queue("other").retry.retries == 0);  // unlisted queues get the defaults
}

TEST_CASE("config: a queue's users") {
  auto c = ParseConfig(
      "[queues.fast]\nnice = -10\nallow_users = [\"alice\"]\nallow_groups = [\"ops\", \"dev\"]\n"
      "[queues.root_only]\nallow_users = []\n[queues.open]\nnice = 5\n",
      "tqd.toml");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->Queue("fast").users.restricted);
  CHECK(c->Queue("fast").users.users == std::vector<std::string>{"alice"});
  CHECK(c->Queue("fast").users.groups == std::vector<std::string>{"ops", "dev"});
  CHECK(c->Queue("root_only").users.restricted);
  CHECK(c->Queue("root_only").users.users.empty());
  CHECK_FALSE(c->Queue("open").users.restricted);
  CHECK_FALSE(c->Queue("unlisted").users.restricted);
}

TEST_CASE("config: a queue's hosts") {
  auto c = ParseConfig(
      "[queues.anywhere]\nhosts = \"any\"\n[queues.pair]\nhosts = [\"web-1\", \"web-2\", "
      "\"web-1\"]\n",
      "tqd.toml");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->Queue("anywhere").hosts == QueueHosts{true, {}});
  CHECK(c->Queue("pair").hosts == QueueHosts{false, {"web-1", "web-2"}});
  CHECK(c->Queue("unlisted").hosts == QueueHosts());
}

TEST_CASE("config: alternative spellings of values") {
  struct Case {
    const char* toml;
    int64_t output_max;
    int64_t kill_grace_ms;
    double high_share;
  };
  const Case cases[] = {
      {"output_max = 1000\nkill_grace = 5\nhigh_share = 1", 1000, 5000, 1.0},
      {"output_max = \"8M\"\nkill_grace = \"0s\"\nhigh_share = 0", 8 << 20, 0, 0.0},
      {"output_max = \"1GiB\"\nkill_grace = \"250ms\"\nhigh_share = 0.0", 1 << 30, 250, 0.0},
      {"output_max = \"2G\"\nkill_grace = \"1h\"\nhigh_share = 1.0", int64_t{2} << 30, 3600000,
       1.0},
      {"output_max = \"64K\"\nkill_grace = 0\nhigh_share = 0.25", 64 << 10, 0, 0.25},
      {"output_max = \"100B\"\nkill_grace = \"10\"\nhigh_share = 0.99", 100, 10000, 0.99},
      {"queues.gpu.concurrency = 2\ndurability = \"full\"", 8 << 20, 10000, 0.8},
  };
  for (const Case& c : cases) {
    const std::string toml = c.toml;
    CAPTURE(toml);
    Config cfg = MustParse(c.toml);
    CHECK(cfg.output_max == c.output_max);
    CHECK(cfg.kill_grace_ms == c.kill_grace_ms);
    CHECK(cfg.high_share == doctest::Approx(c.high_share));
  }
}

TEST_CASE("config: refusals name file:line, the key, the value and what is allowed") {
  struct Case {
    std::string toml;
    const char* field;
    const char* message;  // all of the message, or a telling part of it
  };
  const Case cases[] = {
      {"max_running = 4\n\nmax_runing = 4\n", "max_runing",
       "tqd.toml:3: max_runing: unknown key (allowed: max_running, output_max, kill_grace, "
       "high_share, durability, store, host, host_lease, socket, state_dir, jobs_dir, "
       "success_retention, purge_after, admin_group, allow_users, deny_users, cgroup, "
       "metrics_textfile, metrics_interval, sendmail, hook_timeout, [queues.NAME], "
       "[user_limits], [users.NAME], [resources])"},
      {"store = 1\n", "store",
       "tqd.toml:1: store: the value is neither \"sqlite\" nor a PostgreSQL URI (use \"sqlite\" "
       "or, e.g., \"postgresql:///tq?host=/run/postgresql\")"},
      {"store = \"mysql://root:hunter2@db\"\n", "store", "tqd.toml:1: store: the value is neither"},
      {"host = \"web 1\"\n", "host",
       "tqd.toml:1: host: host name \"web 1\" is not allowed (use 1 to 64 letters, digits, '.', "
       "'_' and '-', not starting with '.' or '-')"},
      {"host = 7\n", "host", "tqd.toml:1: host: 7 is not allowed (use a host name)"},
      {"host_lease = \"1s\"\n", "host_lease",
       "tqd.toml:1: host_lease: \"1s\" is out of range (use a duration from 3s to 1h, e.g. 30s)"},
      {"host_lease = \"2h\"\n", "host_lease", "is out of range"},
      {"host = \"-web\"\n", "host", "host name \"-web\" is not allowed"},
      {"[user_limits]\nmax_pending = 0\n", "user_limits.max_pending",
       "tqd.toml:2: user_limits.max_pending: 0 is out of range (use an integer from 1 to "},
      {"[user_limits]\nsubmit_rate = 0\n", "user_limits.submit_rate",
       "tqd.toml:2: user_limits.submit_rate: 0 is out of range (use tasks per second, a number "
       "above 0, e.g. 100 or 0.5)"},
      {"[user_limits]\nsubmit_rate = \"fast\"\n", "user_limits.submit_rate",
       "\"fast\" is not a number"},
      {"[user_limits]\nsubmit_burst = 0\n", "user_limits.submit_burst", "0 is out of range"},
      {"[user_limits]\nmax_running = -1\n", "user_limits.max_running", "-1 is out of range"},
      {"[user_limits]\noutput_bytes = \"1 G\"\n", "user_limits.output_bytes",
       "\"1 G\" is not a size"},
      {"[user_limits]\nmax_pendng = 5\n", "user_limits.max_pendng",
       "tqd.toml:2: user_limits.max_pendng: unknown key (allowed: max_pending, submit_rate, "
       "submit_burst, max_running, output_bytes, max_queues)"},
      {"[user_limits]\nmax_queues = -1\n", "user_limits.max_queues", "-1 is out of range"},
      {"user_limits = 5\n", "user_limits", "tqd.toml:1: user_limits: 5 is not a table"},
      {"[users.\"bad name\"]\nmax_running = 1\n", "users",
       "tqd.toml:1: users: \"bad name\" is not a user name"},
      {"[users.alice]\nmax_running = \"2\"\n", "users.alice.max_running",
       "tqd.toml:2: users.alice.max_running: \"2\" is not an integer"},
      {"users = 1\n", "users", "users: 1 is not a table"},
      {"admin_group = \"\"\n", "admin_group",
       "tqd.toml:1: admin_group: \"\" is not a user or group name (1 to 256 characters from A-Z "
       "a-z 0-9 _ . -, not starting with - or ., optionally ending in $)"},
      {"admin_group = 10\n", "admin_group", "admin_group: 10 is not a user or group name"},
      {"admin_group = \"-x\"\n", "admin_group", "\"-x\" is not a user or group name"},
      {"allow_users = \"alice\"\n", "allow_users",
       "tqd.toml:1: allow_users: \"alice\" is not an array (use e.g. [\"alice\", \"bob\"])"},
      {"allow_users = [\"alice\",\n  \"bo b\"]\n", "allow_users",
       "tqd.toml:2: allow_users: \"bo b\" is not a user or group name"},
      {"deny_users = [\"\\u00ff\"]\n", "deny_users", "is not a user or group name"},
      {"deny_users = [1]\n", "deny_users", "deny_users: 1 is not a user or group name"},
      {"[queues.gpu]\nconcurrency = 2\nconcurency = 2\n", "queues.gpu.concurency",
       "tqd.toml:3: queues.gpu.concurency: unknown key (allowed in a queue: concurrency, "
       "priority_mix, retries, "
       "backoff, backoff_base, backoff_max, jitter, retry_on_exit, no_retry_on_exit, "
       "retry_priority_penalty, nice, ionice, nofile, nproc, core, memory_max, cpu_weight, "
       "pids_max, allow_users, allow_groups, hosts)"},
      {"[queues.q]\nallow_groups = \"ops\"\n", "queues.q.allow_groups",
       "tqd.toml:2: queues.q.allow_groups: \"ops\" is not an array (use e.g. [\"alice\", "
       "\"bob\"])"},
      {"[queues.q]\nhosts = \"all\"\n", "queues.q.hosts",
       "tqd.toml:2: queues.q.hosts: \"all\" is not hosts (use \"any\" or an array of 1 to 256 "
       "host names, e.g. [\"web-1\", \"web-2\"])"},
      {"[queues.q]\nhosts = []\n", "queues.q.hosts", "an array of 0 host names (use"},
      {"[queues.q]\nhosts = [\"a\", 2]\n", "queues.q.hosts", "2 is not a host name"},
      {"[queues.q]\nhosts = [\"-a\"]\n", "queues.q.hosts",
       "tqd.toml:2: queues.q.hosts: host name \"-a\" is not allowed"},
      {"[queues.q]\nnice = 20\n", "queues.q.nice",
       "tqd.toml:2: queues.q.nice: 20 is out of range (use an integer from -20 to 19)"},
      {"[queues.q]\nionice = \"fast\"\n", "queues.q.ionice",
       "tqd.toml:2: queues.q.ionice: \"fast\" is not an I/O class (use idle, best-effort or "
       "realtime, optionally with a level :0 (first) to :7, e.g. \"best-effort:7\")"},
      {"[queues.q]\nnofile = 0\n", "queues.q.nofile", "0 is out of range (use an integer from 1"},
      {"[queues.q]\ncore = -1\n", "queues.q.core", "-1 is out of range"},
      {"[queues.q]\ncore = \"1 G\"\n", "queues.q.core", "\"1 G\" is not a size"},
      {"[queues.q]\nretries = -1\n", "queues.q.retries",
       "tqd.toml:2: queues.q.retries: -1 is out of range (use an integer from 0 to 1000)"},
      {"[queues.q]\npriority_mix = \"70/30\"\n", "queues.q.priority_mix",
       "tqd.toml:2: queues.q.priority_mix: \"70/30\" is not a priority mix (use \"80/20\" or "
       "\"strict\")"},
      {"[queues.q]\nbackoff = \"linear\"\n", "queues.q.backoff",
       "tqd.toml:2: queues.q.backoff: \"linear\" is not a backoff (use fixed, exponential or "
       "progressive)"},
      {"[queues.q]\nretry_on_exit = [75, 300]\n", "queues.q.retry_on_exit",
       "queues.q.retry_on_exit: 300 is out of range (use an integer from 0 to 255)"},
      {"[queues.q]\nno_retry_on_exit = 2\n", "queues.q.no_retry_on_exit", "2 is not an array"},
      {"[queues.q]\njitter = \"no\"\n", "queues.q.jitter", "\"no\" is not true or false"},
      {"[queues.q]\nretry_priority_penalty = 5\n", "queues.q.retry_priority_penalty",
       "5 is out of range (use an integer from 0 to 4)"},
      {"success_retention = \"1 day\"\n", "success_retention", "is not a duration"},
      {"[limits]\nx = 1\n", "limits", "tqd.toml:1: limits: unknown key"},
      {"max_running = 0\n", "max_running",
       "tqd.toml:1: max_running: 0 is out of range (use an integer from 1 to 2147483647)"},
      {"max_running = 3000000000\n", "max_running",
       "tqd.toml:1: max_running: 3000000000 is out of range"},
      {"max_running = \"4\"\n", "max_running",
       "tqd.toml:1: max_running: \"4\" is not an integer (use an integer from 1 to 2147483647)"},
      {"max_running = 2.5\n", "max_running", "tqd.toml:1: max_running: 2.5 is not an integer"},
      {"output_max = \"8MB\"\n", "output_max",
       "tqd.toml:1: output_max: \"8MB\" is not a size: unknown unit \"MB\" (use <integer><unit>, "
       "units B KiB MiB GiB or K M G, e.g. 8MiB or 512KiB)"},
      {"output_max = \"8 MiB\"\n", "output_max", "tqd.toml:1: output_max: \"8 MiB\" is not a size"},
      {"output_max = \"-1K\"\n", "output_max", "tqd.toml:1: output_max: \"-1K\" is not a size"},
      {"output_max = \"99999999999G\"\n", "output_max", "\"99999999999G\" is too large"},
      {"output_max = 0\n", "output_max", "tqd.toml:1: output_max: 0 is not at least 1 byte"},
      {"output_max = true\n", "output_max", "tqd.toml:1: output_max: true is not a size"},
      {"\nkill_grace = \"5x\"\n", "kill_grace",
       "tqd.toml:2: kill_grace: \"5x\" is not a duration: unknown unit \"x\""},
      {"kill_grace = \"1h 30m\"\n", "kill_grace", "spaces are not allowed"},
      {"kill_grace = -5\n", "kill_grace", "tqd.toml:1: kill_grace: \"-5\" is not a duration"},
      {"kill_grace = 1.5\n", "kill_grace", "tqd.toml:1: kill_grace: 1.5 is not a duration"},
      {"high_share = 1.5\n", "high_share",
       "tqd.toml:1: high_share: 1.5 is out of range (use a number from 0 to 1, e.g. 0.8)"},
      {"high_share = -0.1\n", "high_share", "high_share: -0.1 is out of range"},
      {"high_share = nan\n", "high_share", "high_share: nan is out of range"},
      {"high_share = 2\n", "high_share", "high_share: 2 is out of range"},
      {"high_share = \"0.5\"\n", "high_share", "high_share: \"0.5\" is not a number"},
      {"durability = \"fast\"\n", "durability",
       "tqd.toml:1: durability: \"fast\" is not allowed (use \"full\" or \"normal\")"},
      {"durability = true\n", "durability", "durability: true is not allowed"},
      {"socket = \"tq.sock\"\n", "socket",
       "tqd.toml:1: socket: \"tq.sock\" is not an absolute path"},
      {"socket = 5\n", "socket", "tqd.toml:1: socket: 5 is not a string"},
      {"socket = \"/" + std::string(120, 'a') + "\"\n", "socket", "bytes long (at most 107)"},
      {"state_dir = \"./state\"\n", "state_dir", "state_dir: \"./state\" is not an absolute path"},
      {"state_dir = \"/a\\u0000b\"\n", "state_dir", "contains a NUL byte"},
      {"jobs_dir = \"jobs.d\"\n", "jobs_dir",
       "tqd.toml:1: jobs_dir: \"jobs.d\" is not an absolute path"},
      {"jobs_dir = [\"/etc\"]\n", "jobs_dir", "jobs_dir: an array is not a string"},
      {"jobs_dir = \"/" + std::string(5000, 'j') + "\"\n", "jobs_dir", "bytes long (at most 4095)"},
      {"queues = 3\n", "queues", "tqd.toml:1: queues: 3 is not a table"},
      {"[queues]\ngpu = 3\n", "queues.gpu", "tqd.toml:2: queues.gpu: 3 is not a table"},
      {"[queues.\"bad name\"]\n", "queues",
       "tqd.toml:1: queues: \"bad name\" is not a valid queue name (use 1 to 64 characters from "
       "A-Z a-z 0-9 _ . -)"},
      {"[queues.gpu]\nconcurrency = 0\n", "queues.gpu.concurrency",
       "tqd.toml:2: queues.gpu.concurrency: 0 is out of range (use an integer from 1 to "
       "2147483647)"},
      {"[queues.gpu]\nconcurrency = \"2\"\n", "queues.gpu.concurrency",
       "queues.gpu.concurrency: \"2\" is not an integer"},
      {"[[queues]]\nname = \"gpu\"\n", "queues", "tqd.toml:1: queues: an array is not a table"},
      {"[queues.gpu]\nmemory_max = \"512K\"\n", "queues.gpu.memory_max",
       "tqd.toml:2: queues.gpu.memory_max: \"512K\" is too small (use at least 1MiB)"},
      {"[queues.gpu]\nmemory_max = \"lots\"\n", "queues.gpu.memory_max", "\"lots\""},
      {"[queues.gpu]\ncpu_weight = 0\n", "queues.gpu.cpu_weight",
       "tqd.toml:2: queues.gpu.cpu_weight: 0 is out of range (use an integer from 1 to 10000)"},
      {"[queues.gpu]\npids_max = 0\n", "queues.gpu.pids_max",
       "tqd.toml:2: queues.gpu.pids_max: 0 is out of range (use an integer from 1 to "
       "2147483647)"},
      {"cgroup = \"\"\n", "cgroup",
       "tqd.toml:1: cgroup: \"\" is not allowed (use \"auto\", \"off\" or the absolute path of a "
       "delegated cgroup v2 directory)"},
      {"cgroup = \"sys/fs/cgroup\"\n", "cgroup", "is not an absolute path"},
      {"cgroup = 1\n", "cgroup", "1 is not a string"},
      {"metrics_textfile = \"tq.prom\"\n", "metrics_textfile", "is not an absolute path"},
      {"metrics_interval = \"500ms\"\n", "metrics_interval",
       "tqd.toml:1: metrics_interval: \"500ms\" is out of range (use a duration from 1s to 1d, "
       "e.g. 60s)"},
      {"metrics_interval = \"2d\"\n", "metrics_interval", "is out of range"},
      {"metrics_interval = \"soon\"\n", "metrics_interval", "soon"},
      {"sendmail = \"sendmail\"\n", "sendmail", "is not an absolute path"},
      {"sendmail = \"\"\n", "sendmail",
       "tqd.toml:1: sendmail: \"\" is not allowed (use the absolute path of sendmail)"},
      {"hook_timeout = \"100ms\"\n", "hook_timeout",
       "tqd.toml:1: hook_timeout: \"100ms\" is out of range (use a duration from 1s to 1d, e.g. "
       "60s)"},
      {"hook_timeout = \"2d\"\n", "hook_timeout", "is out of range"},
      {"hook_timeout = true\n", "hook_timeout", "true"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.toml);
    Result<Config> r = ParseConfig(c.toml, "tqd.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kConfig);
    CHECK(r.status().field() == c.field);
    const std::string& msg = r.status().message();
    CAPTURE(msg);
    CHECK(msg.find(c.message) != std::string::npos);
  }
}

TEST_CASE("config: metrics_textfile and metrics_interval") {
  const Config none = MustParse("");
  CHECK(none.metrics_textfile.empty());
  CHECK(none.metrics_interval_ms == 60000);
  const Config set = MustParse(
      "metrics_textfile = \"/var/lib/node_exporter/tq.prom\"\nmetrics_interval = \"15s\"\n");
  CHECK(set.metrics_textfile == "/var/lib/node_exporter/tq.prom");
  CHECK(set.metrics_interval_ms == 15000);
}

TEST_CASE("config: sendmail and hook_timeout") {
  const Config none = MustParse("");
  CHECK(none.sendmail == "/usr/sbin/sendmail");
  CHECK(none.hook_timeout_ms == 60000);
  const Config set = MustParse("sendmail = \"/usr/local/bin/msmtp\"\nhook_timeout = \"5m\"\n");
  CHECK(set.sendmail == "/usr/local/bin/msmtp");
  CHECK(set.hook_timeout_ms == 300000);
}

TEST_CASE("config: admin_group, allow_users and deny_users") {
  const Config none = MustParse("");
  CHECK(none.users.admin_group.empty());
  CHECK_FALSE(none.users.allow_users.has_value());
  CHECK(none.users.deny_users.empty());
  const Config c = MustParse(
      "admin_group = \"tq-admin\"\nallow_users = [\"alice\", \"svc.backup\", \"host$\"]\n"
      "deny_users = [\"mallory\"]\n");
  CHECK(c.users.admin_group == "tq-admin");
  CHECK(c.users.allow_users == std::vector<std::string>{"alice", "svc.backup", "host$"});
  CHECK(c.users.deny_users == std::vector<std::string>{"mallory"});
  // An empty allow_users lets nobody but root in: set, and empty.
  const Config closed = MustParse("allow_users = []\n");
  REQUIRE(closed.users.allow_users.has_value());
  CHECK(closed.users.allow_users->empty());
}

TEST_CASE("config: [user_limits] and [users.NAME] overrides over them, in any order") {
  const Config none = MustParse("");
  CHECK(none.LimitsFor("alice").max_pending == 100000);
  CHECK(none.LimitsFor("alice").submit_rate == 100);
  CHECK(none.LimitsFor("alice").submit_burst == 1000);
  CHECK(none.LimitsFor("alice").max_running == 0);
  CHECK(none.LimitsFor("alice").output_bytes == int64_t{8} << 30);
  // [users.alice] comes first in the file and still inherits what [user_limits] sets.
  const Config c = MustParse(
      "[users.alice]\nmax_running = 2\n[user_limits]\nmax_pending = 50\nsubmit_rate = 0.5\n"
      "submit_burst = 3\nmax_running = 4\noutput_bytes = \"1GiB\"\n"
      "[users.\"svc.build\"]\noutput_bytes = 1024\n");
  const UserLimits& alice = c.LimitsFor("alice");
  CHECK(alice.max_running == 2);
  CHECK(alice.max_pending == 50);
  CHECK(alice.submit_rate == 0.5);
  CHECK(alice.output_bytes == int64_t{1} << 30);
  const UserLimits& build = c.LimitsFor("svc.build");
  CHECK(build.output_bytes == 1024);
  CHECK(build.max_running == 4);
  const UserLimits& bob = c.LimitsFor("bob");
  CHECK(bob.max_running == 4);
  CHECK(bob.submit_burst == 3);
}

TEST_CASE("config: a queue's nice, ionice and limits") {
  const Config c = MustParse(
      "[queues.batch]\nnice = 10\nionice = \"best-effort:7\"\nnofile = 4096\nnproc = 512\n"
      "core = \"0\"\n[queues.urgent]\nnice = -5\nionice = \"realtime\"\n");
  const Resources& batch = c.Queue("batch").resources;
  CHECK(batch.nice == 10);
  CHECK(batch.ionice == "best-effort:7");
  CHECK(batch.nofile == 4096);
  CHECK(batch.nproc == 512);
  CHECK(batch.core == 0);
  CHECK(c.Queue("urgent").resources.nice == -5);
  CHECK(c.Queue("other").resources == Resources{});
}

TEST_CASE("config: a queue's cgroup limits and where the cgroups are") {
  CHECK(MustParse("").cgroup == "auto");
  CHECK(MustParse("cgroup = \"off\"\n").cgroup == "off");
  CHECK(MustParse("cgroup = \"/sys/fs/cgroup/tq\"\n").cgroup == "/sys/fs/cgroup/tq");
  const Config c = MustParse(
      "[queues.batch]\nmemory_max = \"512MiB\"\ncpu_weight = 50\npids_max = 100\n"
      "[queues.raw]\nmemory_max = 1048576\n");
  const Resources& batch = c.Queue("batch").resources;
  CHECK(batch.memory_max == 512LL << 20);
  CHECK(batch.cpu_weight == 50);
  CHECK(batch.pids_max == 100);
  CHECK(c.Queue("raw").resources.memory_max == 1 << 20);
  Resources job;
  job.cpu_weight = 200;
  CHECK(batch.With(job).cpu_weight == 200);
  CHECK(batch.With(job).memory_max == 512LL << 20);
}

TEST_CASE("config: [resources] as counts or unit names") {
  Config c = MustParse("[resources]\ngpu = 3\nlicence = [\"a\", \"GPU-1f/0\"]\n");
  CHECK(c.unit_pools.at("gpu") == std::vector<std::string>{"0", "1", "2"});
  CHECK(c.unit_pools.at("licence") == std::vector<std::string>{"a", "GPU-1f/0"});
  CHECK(MustParse("").unit_pools.empty());
  CHECK(MustParse("[resources]\n").unit_pools.empty());
}

TEST_CASE("config: [resources] refusals name the resource, the value and what is allowed") {
  const struct {
    const char* toml;
    const char* field;
    const char* message;
  } cases[] = {
      {"resources = 4\n", "resources", "tqd.toml:1: resources: 4 is not a table"},
      {"[resources]\ngpu = 0\n", "resources.gpu", "tqd.toml:2: resources.gpu: 0 is out of range"},
      {"[resources]\ngpu = 1025\n", "resources.gpu", "1025 is out of range"},
      {"[resources]\ngpu = -1\n", "resources.gpu", "-1 is out of range"},
      {"[resources]\nGPU = 1\n", "resources",
       "tqd.toml:2: resources: \"GPU\" is not a valid resource name (use 1 to 32 characters"},
      {"[resources]\n\"a-b\" = 1\n", "resources", "is not a valid resource name"},
      {"[resources]\ngpu = []\n", "resources.gpu", "has 0 units"},
      {"[resources]\ngpu = [\"0\", \"0\"]\n", "resources.gpu", "\"0\" is named twice"},
      {"[resources]\ngpu = [\"a,b\"]\n", "resources.gpu",
       "\"a,b\" is not a unit name (use 1 to 64 characters from"},
      {"[resources]\ngpu = [1]\n", "resources.gpu", "1 is not a unit name"},
      {"[resources]\ngpu = \"4\"\n", "resources.gpu", "\"4\" is not a count of units"},
      {"[resources]\ngpu = 2.5\n", "resources.gpu", "is not a count of units"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.toml);
    Result<Config> r = ParseConfig(c.toml, "tqd.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == c.field);
    CAPTURE(r.status().message());
    CHECK(r.status().message().find(c.message) != std::string::npos);
  }
  std::string many = "[resources]\n";
  for (int i = 0; i < 65; ++i) many += "r" + std::to_string(i) + " = 1\n";
  Result<Config> r = ParseConfig(many, "tqd.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("65 resources is too many (at most 64)") != std::string::npos);
}

TEST_CASE("ValidAccountName") {
  for (const char* good : {"a", "root", "svc.backup", "Build_01", "host$", "x-y", "_apt"}) {
    CAPTURE(std::string(good));
    CHECK(ValidAccountName(good));
  }
  for (const char* bad :
       {"", "$", "-x", ".", "..", ".x", "a b", "a:b", "a/b", "a$b", "\xff", "a\n"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(ValidAccountName(bad));
  }
  CHECK(ValidAccountName(std::string(256, 'u')));
  CHECK_FALSE(ValidAccountName(std::string(257, 'u')));
}

TEST_CASE("config: TOML syntax errors carry file:line") {
  const char* cases[] = {
      "max_running = 4\nmax_running = \n",
      "max_running = 4\n\nmax_running = 5\n",  // a key defined twice
      "max_running = 4\n[queues.gpu\n",
      "max_running = 4\nsocket = \"/unterminated\n",
  };
  for (const char* text : cases) {
    const std::string toml = text;
    CAPTURE(toml);
    Result<Config> r = ParseConfig(text, "/etc/tq/tqd.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kConfig);
    const std::string& msg = r.status().message();
    CAPTURE(msg);
    CHECK((msg.rfind("/etc/tq/tqd.toml:2: ", 0) == 0 || msg.rfind("/etc/tq/tqd.toml:3: ", 0) == 0));
  }
}

TEST_CASE("config: TOML syntax errors say what is wrong in plain words") {
  struct Case {
    const char* toml;
    const char* message;  // all of the message when it ends with ")", else its start
  };
  const Case cases[] = {
      {"max_running = 4\nmax_running 5\n",
       "tqd.toml:2: a key is not followed by = and a value (write key = value, e.g. max_running = "
       "4; quote a key holding spaces)"},
      {"socket = \"/run/tq.sock\nmax_running = 4\n",
       "tqd.toml:1: a string is not closed: its closing \" is missing on this line (use "
       "\"\"\"three quotes\"\"\" for text over several lines)"},
      {"socket = '/run/tq.sock\n",
       "tqd.toml:1: a string is not closed: its closing ' is missing on this line (use '''three "
       "quotes''' for text over several lines)"},
      {"socket = \"/run/tq.sock\r\n", "tqd.toml:1: a string is not closed: its closing \""},
      {"socket = \"/run/\x01tq.sock\"\n",
       "tqd.toml:1: a string holds a control character (write it as an escape, e.g. \\t or "
       "\\u0007)"},
      {"max_running = 4\n\nmax_running = 5\n",
       "tqd.toml:3: max_running: defined a second time (define each key, and each [table], once "
       "in a file)"},
      {"[queues.gpu]\nconcurrency = 1\n[queues.gpu]\n",
       "tqd.toml:3: queues.gpu: defined a second time (define each key, and each [table], once in "
       "a file)"},
      {"max_running = \n",
       "tqd.toml:1: a value is missing after = (write text in quotes, e.g. \"hello\"; numbers, "
       "true, false, [arrays] and { tables } go without)"},
      {"durability = full\n",
       "tqd.toml:1: the value is not one TOML knows (write text in quotes, e.g. \"hello\"; "
       "numbers, true, false, [arrays] and { tables } go without)"},
      {"max_running = 4 5\n",
       "tqd.toml:1: text follows the value (write one key = value a line; a comment starts with "
       "#)"},
      {"[queues.gpu\n",
       "tqd.toml:1: a [table] header is not closed (write e.g. [queues.gpu], or [[job]] for one of "
       "a list)"},
      {"deny_users = [\"a\",\n", "tqd.toml:1: an array is not closed: the file ends before its ]"},
      {"deny_users = [\"a\" \"b\"]\n",
       "tqd.toml:1: an array is not written as items separated by commas in [ ] (write e.g. "
       "[\"alice\", \"bob\"])"},
      {"sendmail = \"C:\\q\"\n",
       "tqd.toml:1: a \"string\" holds \\q, which is not an escape (write \\\\ for a backslash, or "
       "use 'single quotes' for text with backslashes)"},
      {"= 3\n",
       "tqd.toml:1: a line is not key = value, a [table] header or a # comment (a key is letters, "
       "digits, _ and -, or quoted)"},
      {"max_running = 99999999999999999999\n",
       "tqd.toml:1: a number is too large (integers run from -9223372036854775808 to "
       "9223372036854775807)"},
      {"max_running = tru\n", "tqd.toml:1: the value is not one TOML knows"},
      {"max_running = \"\xff\"\n", "tqd.toml:1: the file is not UTF-8 text (save it as UTF-8)"},
  };
  for (const Case& c : cases) {
    const std::string toml = c.toml;
    CAPTURE(toml);
    Result<Config> r = ParseConfig(toml, "tqd.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kConfig);
    const std::string& msg = r.status().message();
    const std::string want = c.message;
    if (want.back() == ')') {
      CHECK(msg == want);
    } else {
      CHECK(msg.rfind(want, 0) == 0);
    }
    CHECK(msg.find("Error while parsing") == std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("config: user and group names that name no account are warned of, with file and line") {
  const Config c = MustParse(
      "admin_group = \"tq-no-such-group\"\nallow_users = [\"root\",\n  \"tq-no-such-user\"]\n"
      "deny_users = [\"tq-no-such-user-2\"]\n[queues.gpu]\nallow_groups = [\"root\", "
      "\"tq-no-such-group-2\"]\nallow_users = [\"root\"]\n[users.tq-no-such-user-3]\n"
      "max_running = 1\n[users.root]\nmax_running = 2\n");
  const std::string then =
      " exists (a misspelling? tqd uses the name as given, so it takes "
      "effect once the ";
  CHECK(AccountWarnings(c, "/etc/tq/tqd.toml") ==
        std::vector<std::string>{
            "/etc/tq/tqd.toml:1: admin_group: no group \"tq-no-such-group\"" + then +
                "group is created)",
            "/etc/tq/tqd.toml:3: allow_users: no user \"tq-no-such-user\"" + then +
                "user is created)",
            "/etc/tq/tqd.toml:4: deny_users: no user \"tq-no-such-user-2\"" + then +
                "user is created)",
            "/etc/tq/tqd.toml:6: queues.gpu.allow_groups: no group \"tq-no-such-group-2\"" + then +
                "group is created)",
            "/etc/tq/tqd.toml:8: users.tq-no-such-user-3: no user \"tq-no-such-user-3\"" + then +
                "user is created)",
        });
  CHECK(
      AccountWarnings(MustParse("admin_group = \"root\"\ndeny_users = [\"root\"]\n"), "f").empty());
}

TEST_CASE("ValidQueueName") {
  for (const char* ok : {"a", "gpu", "batch.nightly-2", "A_Z", "0"}) {
    const std::string name = ok;
    CAPTURE(name);
    CHECK(ValidQueueName(ok));
  }
  CHECK(ValidQueueName(std::string(64, 'q')));
  CHECK_FALSE(ValidQueueName(std::string(65, 'q')));
  for (const char* bad : {"", "a b", "a/b", "ü", "a:b", "a\n"}) {
    const std::string name = bad;
    CAPTURE(name);
    CHECK_FALSE(ValidQueueName(bad));
  }
}

TEST_CASE("ParseSize") {
  CHECK(*ParseSize("0", "x") == 0);
  CHECK(*ParseSize("1024", "x") == 1024);
  CHECK(*ParseSize("3B", "x") == 3);
  CHECK(*ParseSize("512KiB", "x") == 512 * 1024);
  CHECK(*ParseSize("8MiB", "x") == 8 << 20);
  CHECK(*ParseSize("1G", "x") == 1 << 30);
  for (const char* bad : {"", "K", "1k", "1kb", "1 K", "1.5M", "-1", "1TiB"}) {
    const std::string text = bad;
    CAPTURE(text);
    Result<int64_t> r = ParseSize(bad, "memory_max");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "memory_max");
    CHECK(r.status().message().rfind("memory_max: \"" + text + "\"", 0) == 0);
  }
}

TEST_CASE("LoadConfig: missing, present and unreadable files") {
  TempDir dir("config");
  const std::string file = dir.File("tqd.toml");

  Result<Config> missing = LoadConfig(file, /*must_exist=*/false);
  REQUIRE(missing.ok());
  CHECK(missing->kill_grace_ms == 10000);

  Result<Config> required = LoadConfig(file, /*must_exist=*/true);
  REQUIRE_FALSE(required.ok());
  CHECK(required.status().code() == ErrorCode::kConfig);
  CHECK(required.status().message().find(file + ": cannot open") == 0);

  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("max_running = 2\n\n[queues.gpu]\nconcurrency = 1\nbogus = 1\n", f);
  std::fclose(f);
  Result<Config> bad = LoadConfig(file, false);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        file +
            ":5: queues.gpu.bogus: unknown key (allowed in a queue: concurrency, priority_mix, "
            "retries, "
            "backoff, backoff_base, backoff_max, jitter, retry_on_exit, no_retry_on_exit, "
            "retry_priority_penalty, nice, ionice, nofile, nproc, core, memory_max, cpu_weight, "
            "pids_max, allow_users, allow_groups, hosts)");

  f = std::fopen(file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("max_running = 2\n", f);
  std::fclose(f);
  Result<Config> good = LoadConfig(file, true);
  REQUIRE(good.ok());
  CHECK(good->max_running == 2);

  Result<Config> dir_as_file = LoadConfig(dir.path.string(), false);
  REQUIRE_FALSE(dir_as_file.ok());
  CHECK(dir_as_file.status().message().find(dir.path.string() + ": cannot read") == 0);
}

}  // namespace
}  // namespace tq
