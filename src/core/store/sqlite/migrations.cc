#include "core/store/sqlite/migrations.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <string>

#include "core/store/sqlite/db.h"

namespace tq {

namespace {

// One step of the schema: `sql` takes a database at version-1 to `version`.
struct Migration {
  int version;
  const char* sql;
};

// v1, the first schema. Byte strings (argv, shell, stdin, cwd, env) are BLOBs; a list of them is
// each element followed by a NUL byte. `ready` = pending, due and with no unfinished dependency;
// `deps_left` counts dependencies not yet succeeded or expired. States and reasons by name.
// Labels are a JSON array of strings in tasks.labels (v2 moves them to rows).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE queues (
  name TEXT PRIMARY KEY
);
CREATE TABLE envs (
  hash TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_uid INTEGER NOT NULL,
  owner_gid INTEGER NOT NULL,
  owner_name TEXT NOT NULL,
  argv BLOB NOT NULL,
  shell BLOB,
  queue TEXT NOT NULL,
  priority INTEGER NOT NULL,
  stdin_data BLOB,
  cwd BLOB NOT NULL,
  env_hash TEXT NOT NULL REFERENCES envs(hash),
  clean_env INTEGER NOT NULL,
  not_before INTEGER NOT NULL,
  timeout_ms INTEGER NOT NULL,
  labels TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  attempt_count INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER NOT NULL DEFAULT -1,
  signal INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  finished INTEGER NOT NULL DEFAULT 0,
  ready INTEGER NOT NULL DEFAULT 0,
  deps_left INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tasks_ready_by_priority ON tasks(queue, priority, id) WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, id) WHERE ready = 1;
CREATE INDEX tasks_delayed ON tasks(not_before)
  WHERE state = 'pending' AND ready = 0 AND deps_left = 0;
CREATE INDEX tasks_by_owner ON tasks(owner_uid, id);
CREATE INDEX tasks_by_state ON tasks(state, id);
CREATE TABLE task_deps (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  dep_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  PRIMARY KEY (task_id, dep_id)
);
CREATE INDEX task_deps_by_dep ON task_deps(dep_id);
CREATE TABLE attempts (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  started INTEGER NOT NULL,
  ended INTEGER NOT NULL DEFAULT 0,
  pid INTEGER NOT NULL DEFAULT 0,
  shim_pid INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER NOT NULL DEFAULT -1,
  signal INTEGER NOT NULL DEFAULT 0,
  reason TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (task_id, number)
) WITHOUT ROWID;
)sql";

// v2: labels become rows (indexed for `list --label`), in their original order; attempts gain
// the task's rusage. A malformed labels column fails the migration rather than losing labels.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE task_labels (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (task_id, pos)
) WITHOUT ROWID;
CREATE INDEX task_labels_by_label ON task_labels(label, task_id);
INSERT INTO task_labels(task_id, pos, label)
  SELECT t.id, j.key, j.value FROM tasks AS t, json_each(t.labels) AS j;
ALTER TABLE tasks DROP COLUMN labels;
ALTER TABLE attempts ADD COLUMN user_cpu_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN system_cpu_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN max_rss_kb INTEGER NOT NULL DEFAULT 0;
)sql";

// v3, the task lifecycle (SPEC 3, 5, 6): the idempotency key and version, the retry policy
// (exit-code lists as decimal text "75,76", see stored_bytes.h), pending_ttl_ms with its deadline
// `expires_at` (created + ttl while the task has not started; NULL otherwise), `queued_attempts`
// (attempt_count when the task was last submitted or re-queued: the retry budget counts from it)
// and `base_priority` (the submitted priority; `priority` may be demoted by retries). Queues gain
// the run-time settings of `tq queue`. Existing rows get no key, no retries, no ttl, and their
// priority as base. The partial indexes keep the ttl and retention sweeps off full scans;
// tasks_by_env lets purge drop unreferenced environments without a scan.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE tasks ADD COLUMN task_key TEXT;
ALTER TABLE tasks ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN backoff TEXT NOT NULL DEFAULT 'exponential';
ALTER TABLE tasks ADD COLUMN backoff_base_ms INTEGER NOT NULL DEFAULT 10000;
ALTER TABLE tasks ADD COLUMN backoff_max_ms INTEGER NOT NULL DEFAULT 3600000;
ALTER TABLE tasks ADD COLUMN jitter INTEGER NOT NULL DEFAULT 1;
ALTER TABLE tasks ADD COLUMN retry_on_exit TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN no_retry_on_exit TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN pending_ttl_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN expires_at INTEGER;
ALTER TABLE tasks ADD COLUMN queued_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN base_priority INTEGER NOT NULL DEFAULT 3;
UPDATE tasks SET base_priority = priority;
CREATE INDEX tasks_by_key ON tasks(owner_uid, task_key) WHERE task_key IS NOT NULL;
CREATE INDEX tasks_pending_ttl ON tasks(expires_at)
  WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX tasks_succeeded ON tasks(finished) WHERE state = 'succeeded';
CREATE INDEX tasks_ended ON tasks(finished) WHERE state IN ('failed', 'cancelled', 'expired');
CREATE INDEX tasks_by_env ON tasks(env_hash);
ALTER TABLE queues ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN concurrency INTEGER;
)sql";

// v4, restarts (SPEC 6): a stop the daemon asked of a running attempt (cancel, supersede,
// timeout) is kept on its row before the signal goes out, so a restarted daemon still knows why
// the attempt ended even when its supervisor finished while no daemon was watching.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE attempts ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN stop_task_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0;
)sql";

// v5, supervision (SPEC 6): a task may keep the background processes its main process leaves
// (`tq submit --keep-background`), and an attempt that could not start says why (`detail`).
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE tasks ADD COLUMN keep_background INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN detail TEXT NOT NULL DEFAULT '';
)sql";

// v6, cron jobs (SPEC 7). A task may be a run of a job (`job`); a run whose overlap is not
// `allow` is `job_exclusive`, and while another run of its job is running it is `held`: not
// ready, and out of tasks_delayed, so neither PromoteDue nor NextDue sees it until the running
// run ends. tasks_job_runs answers "the pending and running runs of job J" without a scan.
// `jobs` keeps what outlives the job files (first_seen, the last firing, the @reboot boot,
// disabled, the latest task); `job_firings` makes each (job, scheduled) fire at most once (a
// purged task takes its firing row with it); `job_files` keeps the last good text of each file.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE tasks ADD COLUMN job TEXT;
ALTER TABLE tasks ADD COLUMN job_exclusive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_job_runs ON tasks(job, state, id)
  WHERE job IS NOT NULL AND state IN ('pending', 'running');
DROP INDEX tasks_delayed;
CREATE INDEX tasks_delayed ON tasks(not_before)
  WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND held = 0;
CREATE TABLE jobs (
  job TEXT PRIMARY KEY,
  first_seen INTEGER NOT NULL,
  last_fired INTEGER,
  boot_id TEXT NOT NULL DEFAULT '',
  disabled INTEGER NOT NULL DEFAULT 0,
  last_task INTEGER
) WITHOUT ROWID;
CREATE TABLE job_firings (
  job TEXT NOT NULL,
  scheduled INTEGER NOT NULL,
  boot_id TEXT NOT NULL DEFAULT '',
  task_id INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
  PRIMARY KEY (job, scheduled)
) WITHOUT ROWID;
CREATE INDEX job_firings_by_task ON job_firings(task_id);
CREATE TABLE job_files (
  path TEXT PRIMARY KEY,
  text BLOB NOT NULL,
  saved INTEGER NOT NULL
);
)sql";

// v7, many users (SPEC 8). The chooser is fair across owners within a priority and honours
// per-user running caps, so the ready indexes lead with the queue and then the owner (their
// names stay; the queries that name them change with them). max_pending counts a user's
// pending tasks on tasks_pending_by_owner. Each attempt keeps the bytes of output it left, and
// owner_output their sum per owner, kept by triggers: an attempt's bytes are added when they are
// recorded and taken away when its row goes (a keyed replace drops a task's attempts) or its
// task's row is purged (the cascade then finds no task row, so nothing is taken twice).
constexpr const char* kSchemaV7 = R"sql(
DROP INDEX tasks_ready_by_priority;
DROP INDEX tasks_ready_by_id;
CREATE INDEX tasks_ready_by_priority ON tasks(queue, owner_uid, priority, id) WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, owner_uid, id) WHERE ready = 1;
CREATE INDEX tasks_pending_by_owner ON tasks(owner_uid) WHERE state = 'pending';
ALTER TABLE attempts ADD COLUMN output_bytes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE owner_output (
  owner_uid INTEGER PRIMARY KEY,
  bytes INTEGER NOT NULL
);
CREATE TRIGGER attempts_output_kept AFTER UPDATE OF output_bytes ON attempts
  WHEN NEW.output_bytes != OLD.output_bytes
BEGIN
  INSERT INTO owner_output(owner_uid, bytes)
    SELECT owner_uid, NEW.output_bytes - OLD.output_bytes FROM tasks WHERE id = NEW.task_id
    ON CONFLICT(owner_uid) DO UPDATE SET bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER tasks_output_gone BEFORE DELETE ON tasks
BEGIN
  UPDATE owner_output SET bytes = bytes -
    (SELECT coalesce(sum(output_bytes), 0) FROM attempts WHERE task_id = OLD.id)
    WHERE owner_uid = OLD.owner_uid;
END;
CREATE TRIGGER attempts_output_gone AFTER DELETE ON attempts
BEGIN
  UPDATE owner_output SET bytes = bytes - OLD.output_bytes
    WHERE owner_uid = (SELECT owner_uid FROM tasks WHERE id = OLD.task_id);
END;
)sql";

// v8, tasks' cgroups (SPEC 8): each attempt keeps the peak memory of its cgroup (memory.peak),
// 0 when it had none.
constexpr const char* kSchemaV8 = R"sql(
ALTER TABLE attempts ADD COLUMN memory_peak_bytes INTEGER NOT NULL DEFAULT 0;
)sql";

// v9, counts for `tq stats` and the daemon's status line: task_counts holds how many tasks each
// (queue, state) pair has, filled from the tasks once here and kept by triggers from then on, so
// reading it never scans the tasks. A new task is counted in its pair; a change of state or queue
// (a start, an end, a retry, a requeue, a keyed replace, expiry) moves it from its old pair to its
// new one; a purge takes it away. A pair whose count falls to 0 loses its row (deleted before the
// decrement would reach 0), so the table holds exactly the pairs that have tasks.
constexpr const char* kSchemaV9 = R"sql(
CREATE TABLE task_counts (
  queue TEXT NOT NULL,
  state TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (queue, state)
) WITHOUT ROWID;
INSERT INTO task_counts(queue, state, n)
  SELECT queue, state, count(*) FROM tasks GROUP BY queue, state;
CREATE TRIGGER tasks_counted AFTER INSERT ON tasks
BEGIN
  INSERT INTO task_counts(queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT(queue, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER tasks_recounted AFTER UPDATE OF state, queue ON tasks
  WHEN NEW.state != OLD.state OR NEW.queue != OLD.queue
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
  INSERT INTO task_counts(queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT(queue, state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER tasks_uncounted AFTER DELETE ON tasks
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
END;
)sql";

// v10, notifications (SPEC 7a): a task's hooks and mail; a job's last success and the one its
// dead man's switch last raised an alert after (expect_success_within), so an alert is raised
// once per overdue stretch, restarts included.
constexpr const char* kSchemaV10 = R"sql(
ALTER TABLE tasks ADD COLUMN on_failure BLOB;
ALTER TABLE tasks ADD COLUMN on_success BLOB;
ALTER TABLE tasks ADD COLUMN on_finish BLOB;
ALTER TABLE tasks ADD COLUMN mailto TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN mail_on TEXT NOT NULL DEFAULT 'failure';
ALTER TABLE jobs ADD COLUMN last_success INTEGER;
ALTER TABLE jobs ADD COLUMN overdue_alerted INTEGER;
)sql";

// v11, queues at run time (issue 26): a queue's own order of its ready tasks (`priority_mix`,
// "80/20" or "strict"; NULL: tqd.toml decides), and whether `tq queue add` made it (`added`: kept
// while idle, until `tq queue delete`).
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE queues ADD COLUMN priority_mix TEXT;
ALTER TABLE queues ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
)sql";

// v12, resource units (SPEC 14): what a task asks for (`uses`, "gpu=2 licence=1"; NULL: none),
// indexed among ready tasks so the chooser learns the different requests without a scan, and the
// units each attempt held (`units`, "gpu=0,2"), which a restart reads back for running attempts.
constexpr const char* kSchemaV12 = R"sql(
ALTER TABLE tasks ADD COLUMN uses TEXT;
ALTER TABLE attempts ADD COLUMN units TEXT;
CREATE INDEX tasks_ready_uses ON tasks(uses) WHERE ready = 1 AND uses IS NOT NULL;
)sql";

// v13, stages (SPEC 13): a task's steps in `task_stages`, in order, each with its command and its
// own timeout and retry settings (NULL: the task's); `tasks.stages` counts them (0: a task without
// stages, whose reads look no further), `tasks.stage` is the index of the current one, and each
// attempt keeps the stage it ran (`attempts.stage`). Existing tasks have no stages.
constexpr const char* kSchemaV13 = R"sql(
CREATE TABLE task_stages (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  name TEXT NOT NULL,
  argv BLOB NOT NULL,
  shell BLOB,
  timeout_ms INTEGER,
  retries INTEGER,
  backoff TEXT,
  backoff_base_ms INTEGER,
  backoff_max_ms INTEGER,
  jitter INTEGER,
  retry_on_exit TEXT,
  no_retry_on_exit TEXT,
  PRIMARY KEY (task_id, pos)
) WITHOUT ROWID;
ALTER TABLE tasks ADD COLUMN stages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN stage INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN stage INTEGER NOT NULL DEFAULT 0;
)sql";

// v14, sharded work (SPEC 12): a shard's group (an id taken from the tasks' sequence, which no
// task has), its index and the group's size, NULL for a task that is no shard; indexed by group,
// so a verb given a group's id finds its shards without a scan.
constexpr const char* kSchemaV14 = R"sql(
ALTER TABLE tasks ADD COLUMN shard_group INTEGER;
ALTER TABLE tasks ADD COLUMN shard_index INTEGER;
ALTER TABLE tasks ADD COLUMN shard_total INTEGER;
CREATE INDEX tasks_shard_group ON tasks(shard_group, shard_index) WHERE shard_group IS NOT NULL;
)sql";

// v15, hosts (SPEC 12): a row per tqd that shares the store (its epoch, the fencing number of
// the attempts it starts, moves on when it joins again or is fenced; its beats count its
// heartbeats). Each attempt keeps the host it ran on and its holder, the host that may record
// its end, with the holder's epoch as its fence: a rescuer becomes the holder. Attempts not
// ended are indexed by holder, so a host's running attempts are found without a scan, and those
// passed on by their host, so a host that returns finds what it must kill. Attempts from before
// have host and holder "".
constexpr const char* kSchemaV15 = R"sql(
CREATE TABLE hosts (
  name TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  beats INTEGER NOT NULL DEFAULT 0,
  started INTEGER NOT NULL,
  heartbeat INTEGER NOT NULL,
  max_running INTEGER NOT NULL
) WITHOUT ROWID;
ALTER TABLE attempts ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN holder TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
CREATE INDEX attempts_open_by_holder ON attempts(holder, task_id) WHERE ended = 0;
CREATE INDEX attempts_passed_on ON attempts(host, task_id, number) WHERE holder <> host;
)sql";

// v16, placement and output for every host (SPEC 12): the host that must run a task (`run_on`;
// '': any host its queue lets take it), leading each owner's part of the ready indexes, so a host
// walks only the tasks placed on it and those placed on none; existing tasks are placed on no
// host. An ended attempt's output as its host captured it, kept with the attempt.
constexpr const char* kSchemaV16 = R"sql(
CREATE TABLE attempt_output (
  task_id INTEGER NOT NULL,
  number INTEGER NOT NULL,
  stdout BLOB NOT NULL,
  stderr BLOB NOT NULL,
  output_order BLOB NOT NULL,
  PRIMARY KEY (task_id, number),
  FOREIGN KEY (task_id, number) REFERENCES attempts(task_id, number) ON DELETE CASCADE
);
ALTER TABLE tasks ADD COLUMN run_on TEXT NOT NULL DEFAULT '';
DROP INDEX tasks_ready_by_priority;
DROP INDEX tasks_ready_by_id;
CREATE INDEX tasks_ready_by_priority ON tasks(queue, owner_uid, run_on, priority, id)
  WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, owner_uid, run_on, id) WHERE ready = 1;
)sql";

// v17, a group's end told once across hosts (SPEC 12): on the row of the group's first shard,
// the end of the group last told of (its shards' latest `finished`, plus one; 0: none), claimed
// by the one host whose conditional update changes it.
constexpr const char* kSchemaV17 = R"sql(
ALTER TABLE tasks ADD COLUMN group_told INTEGER NOT NULL DEFAULT 0;
)sql";

// v18, output cut silently no more (issue 48): where and why the supervisor could not write an
// attempt's output (a full disk...), as EncodeOutputCuts writes it; '' when nothing was cut.
constexpr const char* kSchemaV18 = R"sql(
ALTER TABLE attempts ADD COLUMN output_cut TEXT NOT NULL DEFAULT '';
)sql";

// In order; versions are 1, 2, ... without gaps.
constexpr Migration kMigrations[] = {
    {1, kSchemaV1},   {2, kSchemaV2},   {3, kSchemaV3},   {4, kSchemaV4},   {5, kSchemaV5},
    {6, kSchemaV6},   {7, kSchemaV7},   {8, kSchemaV8},   {9, kSchemaV9},   {10, kSchemaV10},
    {11, kSchemaV11}, {12, kSchemaV12}, {13, kSchemaV13}, {14, kSchemaV14}, {15, kSchemaV15},
    {16, kSchemaV16}, {17, kSchemaV17}, {18, kSchemaV18},
};

bool IsFileBacked(const std::string& path) {
  return !path.empty() && path != ":memory:";
}

Status IoError(const std::string& what, const std::string& file) {
  return sql::StoreError(what + " " + file, std::strerror(errno));
}

Status FsyncPath(const std::string& file, int flags) {
  int fd = ::open(file.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return IoError("open", file);
  int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status::Ok() : IoError("fsync", file);
}

// Copies the live database (WAL included) to BackupPath(path, version): VACUUM INTO a temporary
// file, fsync it, then rename it into place, so a half-written copy never carries the name.
Status Backup(sqlite::Db& db, const std::string& path, int version) {
  const std::string final_path = BackupPath(path, version);
  const std::string tmp_path = final_path + ".tmp";
  ::unlink(tmp_path.c_str());  // VACUUM INTO refuses an existing non-empty file
  {
    Result<sql::Stmt> vacuum = db.Prepare("backup to " + final_path, "VACUUM INTO ?");
    if (!vacuum.ok()) return vacuum.status();
    sql::Query q(*vacuum);
    if (Status s = q.BindText(tmp_path).Run(); !s.ok()) return s;
  }
  if (Status s = FsyncPath(tmp_path, O_RDONLY); !s.ok()) return s;
  if (std::rename(tmp_path.c_str(), final_path.c_str()) != 0) return IoError("rename", tmp_path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return FsyncPath(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY);
}

// Fails if the open transaction left a dangling reference.
Status CheckForeignKeys(sqlite::Db& db, const std::string& what) {
  Result<std::string> table = db.QueryText(what, "PRAGMA foreign_key_check");
  if (!table.ok()) return table.status();
  if (!table->empty()) return sql::StoreError(what, "foreign key violation in table " + *table);
  return Status::Ok();
}

Status RunMigration(sqlite::Db& db, const Migration& m) {
  const std::string what = "migration to v" + std::to_string(m.version);
  sql::Transaction tx(db);
  if (Status s = tx.Begin(); !s.ok()) return s;
  if (Status s = db.Exec(what, m.sql); !s.ok()) return s;
  if (Status s = db.Exec(what, "PRAGMA user_version = " + std::to_string(m.version)); !s.ok()) {
    return s;
  }
  if (Status s = CheckForeignKeys(db, what); !s.ok()) return s;
  return tx.Commit();
}

// Runs the migrations with foreign keys off (they cannot change inside a transaction, and table
// rewrites need them off), then restores the setting the connection had.
Status RunMigrations(sqlite::Db& db, int from, int target) {
  Result<int64_t> fk = db.QueryInt("read foreign_keys", "PRAGMA foreign_keys");
  if (!fk.ok()) return fk.status();
  if (Status s = db.Exec("disable foreign keys", "PRAGMA foreign_keys = OFF"); !s.ok()) return s;
  Status status = Status::Ok();
  for (const Migration& m : kMigrations) {
    if (m.version <= from || m.version > target) continue;
    status = RunMigration(db, m);
    if (!status.ok()) break;
  }
  Status restore = db.Exec("restore foreign keys",
                           *fk != 0 ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF");
  return status.ok() ? restore : status;
}

}  // namespace

int CurrentSchemaVersion() {
  return kMigrations[std::size(kMigrations) - 1].version;
}

std::string BackupPath(const std::string& path, int version) {
  return path + ".bak-v" + std::to_string(version);
}

Status Migrate(sqlite::Db& db, const std::string& path, int target) {
  const int current = CurrentSchemaVersion();
  if (target < 1 || target > current) {
    return sql::StoreError("migrate", "no schema version " + std::to_string(target));
  }
  Result<int64_t> version = db.QueryInt("read schema version", "PRAGMA user_version");
  if (!version.ok()) return version.status();
  if (*version > current) {
    return Status::Internal("database schema v" + std::to_string(*version) +
                            " is newer than this tqd supports (v" + std::to_string(current) + ")")
        .WithFault(StoreFault::kPermanent);
  }
  if (*version >= target) return Status::Ok();
  if (*version == 0) {
    Result<int64_t> objects = db.QueryInt("read schema", "SELECT count(*) FROM sqlite_master");
    if (!objects.ok()) return objects.status();
    if (*objects > 0) {
      return Status::Internal("store: " + path +
                              " is not a tq database (it has tables but no schema version)")
          .WithFault(StoreFault::kPermanent);
    }
  } else if (IsFileBacked(path)) {
    if (Status s = Backup(db, path, static_cast<int>(*version)); !s.ok()) return s;
  }
  return RunMigrations(db, static_cast<int>(*version), target);
}

}  // namespace tq
