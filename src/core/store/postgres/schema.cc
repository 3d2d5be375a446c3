#include "core/store/postgres/schema.h"

#include <iterator>
#include <string>

#include "core/store/postgres/pg_db.h"

namespace tq::pg {

namespace {

// Byte strings a caller gave (queue, owner, key, job, label, mailto, a directory, a detail that
// may quote one) are bytea, kept exactly, compared byte by byte as SQLite compares them; words
// the store spells itself (states, reasons, backoff kinds, unit names) are text in the "C"
// collation. Integers are bigint, as SQLite's are 64-bit. `task_deps.rowid` keeps the order edges
// were inserted in, as SQLite's rowid does (statements.cc orders by it). Triggers keep
// task_counts and owner_output as SQLite's do (see there); ON CONFLICT targets are aliased, and
// the BEFORE DELETE trigger returns OLD so the delete goes on.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE tq_schema (version bigint NOT NULL);
CREATE TABLE queues (
  name bytea PRIMARY KEY,
  paused bigint NOT NULL DEFAULT 0,
  concurrency bigint,
  priority_mix text COLLATE "C",
  added bigint NOT NULL DEFAULT 0
);
CREATE TABLE envs (
  hash text COLLATE "C" PRIMARY KEY,
  data bytea NOT NULL
);
CREATE SEQUENCE tasks_id_seq AS bigint;
CREATE TABLE tasks (
  id bigint PRIMARY KEY DEFAULT nextval('tasks_id_seq'),
  owner_uid bigint NOT NULL,
  owner_gid bigint NOT NULL,
  owner_name bytea NOT NULL,
  argv bytea NOT NULL,
  shell bytea,
  queue bytea NOT NULL,
  priority bigint NOT NULL,
  stdin_data bytea,
  cwd bytea NOT NULL,
  env_hash text COLLATE "C" NOT NULL REFERENCES envs(hash),
  clean_env bigint NOT NULL,
  not_before bigint NOT NULL,
  timeout_ms bigint NOT NULL,
  state text COLLATE "C" NOT NULL,
  reason text COLLATE "C" NOT NULL DEFAULT '',
  attempt_count bigint NOT NULL DEFAULT 0,
  exit_code bigint NOT NULL DEFAULT -1,
  signal bigint NOT NULL DEFAULT 0,
  created bigint NOT NULL,
  finished bigint NOT NULL DEFAULT 0,
  ready bigint NOT NULL DEFAULT 0,
  deps_left bigint NOT NULL DEFAULT 0,
  task_key bytea,
  version bigint NOT NULL DEFAULT 0,
  retries bigint NOT NULL DEFAULT 0,
  backoff text COLLATE "C" NOT NULL DEFAULT 'exponential',
  backoff_base_ms bigint NOT NULL DEFAULT 10000,
  backoff_max_ms bigint NOT NULL DEFAULT 3600000,
  jitter bigint NOT NULL DEFAULT 1,
  retry_on_exit text COLLATE "C" NOT NULL DEFAULT '',
  no_retry_on_exit text COLLATE "C" NOT NULL DEFAULT '',
  pending_ttl_ms bigint NOT NULL DEFAULT 0,
  expires_at bigint,
  queued_attempts bigint NOT NULL DEFAULT 0,
  base_priority bigint NOT NULL DEFAULT 3,
  keep_background bigint NOT NULL DEFAULT 0,
  job bytea,
  job_exclusive bigint NOT NULL DEFAULT 0,
  held bigint NOT NULL DEFAULT 0,
  on_failure bytea,
  on_success bytea,
  on_finish bytea,
  mailto bytea NOT NULL DEFAULT '',
  mail_on text COLLATE "C" NOT NULL DEFAULT 'failure',
  uses text COLLATE "C",
  stages bigint NOT NULL DEFAULT 0,
  stage bigint NOT NULL DEFAULT 0,
  shard_group bigint,
  shard_index bigint,
  shard_total bigint
);
ALTER SEQUENCE tasks_id_seq OWNED BY tasks.id;
CREATE INDEX tasks_ready_by_priority ON tasks(queue, owner_uid, priority, id) WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, owner_uid, id) WHERE ready = 1;
CREATE INDEX tasks_delayed ON tasks(not_before)
  WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND held = 0;
CREATE INDEX tasks_by_owner ON tasks(owner_uid, id);
CREATE INDEX tasks_by_state ON tasks(state, id);
CREATE INDEX tasks_by_key ON tasks(owner_uid, task_key) WHERE task_key IS NOT NULL;
CREATE INDEX tasks_pending_ttl ON tasks(expires_at)
  WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX tasks_succeeded ON tasks(finished) WHERE state = 'succeeded';
CREATE INDEX tasks_ended ON tasks(finished) WHERE state IN ('failed', 'cancelled', 'expired');
CREATE INDEX tasks_by_env ON tasks(env_hash);
CREATE INDEX tasks_job_runs ON tasks(job, state, id)
  WHERE job IS NOT NULL AND state IN ('pending', 'running');
CREATE INDEX tasks_pending_by_owner ON tasks(owner_uid) WHERE state = 'pending';
CREATE INDEX tasks_ready_uses ON tasks(uses) WHERE ready = 1 AND uses IS NOT NULL;
CREATE INDEX tasks_shard_group ON tasks(shard_group, shard_index) WHERE shard_group IS NOT NULL;
ALTER TABLE tasks SET (autovacuum_vacuum_scale_factor = 0.05);
CREATE TABLE task_deps (
  task_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  dep_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  rowid bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (task_id, dep_id)
);
CREATE INDEX task_deps_by_dep ON task_deps(dep_id);
CREATE TABLE attempts (
  task_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  number bigint NOT NULL,
  started bigint NOT NULL,
  ended bigint NOT NULL DEFAULT 0,
  pid bigint NOT NULL DEFAULT 0,
  shim_pid bigint NOT NULL DEFAULT 0,
  exit_code bigint NOT NULL DEFAULT -1,
  signal bigint NOT NULL DEFAULT 0,
  reason text COLLATE "C" NOT NULL DEFAULT '',
  user_cpu_us bigint NOT NULL DEFAULT 0,
  system_cpu_us bigint NOT NULL DEFAULT 0,
  max_rss_kb bigint NOT NULL DEFAULT 0,
  stop_reason text COLLATE "C" NOT NULL DEFAULT '',
  stop_task_reason text COLLATE "C" NOT NULL DEFAULT '',
  stop_requested bigint NOT NULL DEFAULT 0,
  detail bytea NOT NULL DEFAULT '',
  output_bytes bigint NOT NULL DEFAULT 0,
  memory_peak_bytes bigint NOT NULL DEFAULT 0,
  units text COLLATE "C",
  stage bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (task_id, number)
);
CREATE TABLE task_labels (
  task_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pos bigint NOT NULL,
  label bytea NOT NULL,
  PRIMARY KEY (task_id, pos)
);
CREATE INDEX task_labels_by_label ON task_labels(label, task_id);
CREATE TABLE task_stages (
  task_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pos bigint NOT NULL,
  name bytea NOT NULL,
  argv bytea NOT NULL,
  shell bytea,
  timeout_ms bigint,
  retries bigint,
  backoff text COLLATE "C",
  backoff_base_ms bigint,
  backoff_max_ms bigint,
  jitter bigint,
  retry_on_exit text COLLATE "C",
  no_retry_on_exit text COLLATE "C",
  PRIMARY KEY (task_id, pos)
);
CREATE TABLE jobs (
  job bytea PRIMARY KEY,
  first_seen bigint NOT NULL,
  last_fired bigint,
  boot_id bytea NOT NULL DEFAULT '',
  disabled bigint NOT NULL DEFAULT 0,
  last_task bigint,
  last_success bigint,
  overdue_alerted bigint
);
CREATE TABLE job_firings (
  job bytea NOT NULL,
  scheduled bigint NOT NULL,
  boot_id bytea NOT NULL DEFAULT '',
  task_id bigint REFERENCES tasks(id) ON DELETE CASCADE,
  PRIMARY KEY (job, scheduled)
);
CREATE INDEX job_firings_by_task ON job_firings(task_id);
CREATE TABLE job_files (
  path bytea PRIMARY KEY,
  text bytea NOT NULL,
  saved bigint NOT NULL
);
CREATE TABLE owner_output (
  owner_uid bigint PRIMARY KEY,
  bytes bigint NOT NULL
);
CREATE TABLE task_counts (
  queue bytea NOT NULL,
  state text COLLATE "C" NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (queue, state)
);
CREATE FUNCTION tq_attempts_output_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO owner_output AS o (owner_uid, bytes)
    SELECT owner_uid, NEW.output_bytes - OLD.output_bytes FROM tasks WHERE id = NEW.task_id
    ON CONFLICT (owner_uid) DO UPDATE SET bytes = o.bytes + excluded.bytes;
  RETURN NULL;
END $$;
CREATE TRIGGER attempts_output_kept AFTER UPDATE OF output_bytes ON attempts FOR EACH ROW
  WHEN (NEW.output_bytes <> OLD.output_bytes) EXECUTE FUNCTION tq_attempts_output_kept();
CREATE FUNCTION tq_tasks_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE owner_output SET bytes = bytes -
    (SELECT coalesce(sum(output_bytes), 0) FROM attempts WHERE task_id = OLD.id)
    WHERE owner_uid = OLD.owner_uid;
  RETURN OLD;
END $$;
CREATE TRIGGER tasks_output_gone BEFORE DELETE ON tasks FOR EACH ROW
  EXECUTE FUNCTION tq_tasks_output_gone();
CREATE FUNCTION tq_attempts_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE owner_output SET bytes = bytes - OLD.output_bytes
    WHERE owner_uid = (SELECT owner_uid FROM tasks WHERE id = OLD.task_id);
  RETURN NULL;
END $$;
CREATE TRIGGER attempts_output_gone AFTER DELETE ON attempts FOR EACH ROW
  EXECUTE FUNCTION tq_attempts_output_gone();
CREATE FUNCTION tq_tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_counts AS c (queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT (queue, state) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_counted AFTER INSERT ON tasks FOR EACH ROW
  EXECUTE FUNCTION tq_tasks_counted();
CREATE FUNCTION tq_tasks_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_uncounted AFTER DELETE ON tasks FOR EACH ROW
  EXECUTE FUNCTION tq_tasks_uncounted();
CREATE FUNCTION tq_tasks_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts WHERE queue = OLD.queue AND state = OLD.state AND n <= 1;
  UPDATE task_counts SET n = n - 1 WHERE queue = OLD.queue AND state = OLD.state;
  INSERT INTO task_counts AS c (queue, state, n) VALUES (NEW.queue, NEW.state, 1)
    ON CONFLICT (queue, state) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_recounted AFTER UPDATE OF state, queue ON tasks FOR EACH ROW
  WHEN (NEW.state <> OLD.state OR NEW.queue <> OLD.queue)
  EXECUTE FUNCTION tq_tasks_recounted();
)sql";

// v2, hosts (SPEC 12): SQLite's v15 (sqlite/migrations.cc).
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE hosts (
  name text COLLATE "C" PRIMARY KEY,
  version text COLLATE "C" NOT NULL,
  epoch bigint NOT NULL,
  beats bigint NOT NULL DEFAULT 0,
  started bigint NOT NULL,
  heartbeat bigint NOT NULL,
  max_running bigint NOT NULL
);
ALTER TABLE attempts ADD COLUMN host text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN holder text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN fence bigint NOT NULL DEFAULT 0;
CREATE INDEX attempts_open_by_holder ON attempts(holder, task_id) WHERE ended = 0;
CREATE INDEX attempts_passed_on ON attempts(host, task_id, number) WHERE holder <> host;
)sql";

// v3, placement and output for every host (SPEC 12): SQLite's v16.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE attempt_output (
  task_id bigint NOT NULL,
  number bigint NOT NULL,
  stdout bytea NOT NULL,
  stderr bytea NOT NULL,
  output_order bytea NOT NULL,
  PRIMARY KEY (task_id, number),
  FOREIGN KEY (task_id, number) REFERENCES attempts(task_id, number) ON DELETE CASCADE
);
ALTER TABLE tasks ADD COLUMN run_on text COLLATE "C" NOT NULL DEFAULT '';
DROP INDEX tasks_ready_by_priority;
DROP INDEX tasks_ready_by_id;
CREATE INDEX tasks_ready_by_priority ON tasks(queue, owner_uid, run_on, priority, id)
  WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, owner_uid, run_on, id) WHERE ready = 1;
)sql";

// v4, a group's end told once across hosts (SPEC 12): SQLite's v17.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE tasks ADD COLUMN group_told bigint NOT NULL DEFAULT 0;
)sql";

// v5, where and why an attempt's output was cut (issue 48): SQLite's v18.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE attempts ADD COLUMN output_cut text NOT NULL DEFAULT '';
)sql";

// v6, several hosts write side by side (issue 50): the counters the triggers keep have a row per
// writer (`slot`: the host's name, set per session as tq.slot; '' for a session of no host), so
// hosts counting tasks of one queue never wait on each other's row. A count is the sum over its
// rows; a writer's row that comes back to zero is deleted (a zero adds nothing), so the rows stay
// few. SQLite has one writer and keeps one row.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE task_counts ADD COLUMN slot text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE task_counts DROP CONSTRAINT task_counts_pkey;
ALTER TABLE task_counts ADD PRIMARY KEY (queue, state, slot);
ALTER TABLE owner_output ADD COLUMN slot text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE owner_output DROP CONSTRAINT owner_output_pkey;
ALTER TABLE owner_output ADD PRIMARY KEY (owner_uid, slot);
CREATE FUNCTION tq_slot() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(current_setting('tq.slot', true), '')
$$;
CREATE FUNCTION tq_count_tasks(q bytea, s text, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  left_n bigint;
BEGIN
  INSERT INTO task_counts AS c (queue, state, slot, n) VALUES (q, s, tq_slot(), delta)
    ON CONFLICT (queue, state, slot) DO UPDATE SET n = c.n + excluded.n RETURNING c.n INTO left_n;
  IF left_n = 0 THEN
    DELETE FROM task_counts WHERE queue = q AND state = s AND slot = tq_slot();
  END IF;
END $$;
CREATE FUNCTION tq_count_output(uid bigint, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  left_bytes bigint;
BEGIN
  IF uid IS NULL OR delta = 0 THEN
    RETURN;
  END IF;
  INSERT INTO owner_output AS o (owner_uid, slot, bytes) VALUES (uid, tq_slot(), delta)
    ON CONFLICT (owner_uid, slot) DO UPDATE SET bytes = o.bytes + excluded.bytes
    RETURNING o.bytes INTO left_bytes;
  IF left_bytes = 0 THEN
    DELETE FROM owner_output WHERE owner_uid = uid AND slot = tq_slot();
  END IF;
END $$;
CREATE OR REPLACE FUNCTION tq_attempts_output_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_output((SELECT owner_uid FROM tasks WHERE id = NEW.task_id),
                          NEW.output_bytes - OLD.output_bytes);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_output(OLD.owner_uid,
    -CAST((SELECT coalesce(sum(output_bytes), 0) FROM attempts WHERE task_id = OLD.id) AS bigint));
  RETURN OLD;
END $$;
CREATE OR REPLACE FUNCTION tq_attempts_output_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_output((SELECT owner_uid FROM tasks WHERE id = OLD.task_id),
                          -OLD.output_bytes);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(NEW.queue, NEW.state, 1);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(OLD.queue, OLD.state, -1);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tq_count_tasks(OLD.queue, OLD.state, -1);
  PERFORM tq_count_tasks(NEW.queue, NEW.state, 1);
  RETURN NULL;
END $$;
)sql";

// v7, a state change counted in one statement (issue 50): the triggers add -1 and +1 in one
// upsert, where they called a function twice that upserted and deleted a row come back to zero.
// A count's row at zero stays (a sum ignores it) until the idle-queue sweep deletes the zeros.
constexpr const char* kSchemaV7 = R"sql(
CREATE OR REPLACE FUNCTION tq_tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_counts AS c (queue, state, slot, n) VALUES (NEW.queue, NEW.state, tq_slot(), 1)
    ON CONFLICT (queue, state, slot) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_counts AS c (queue, state, slot, n) VALUES (OLD.queue, OLD.state, tq_slot(), -1)
    ON CONFLICT (queue, state, slot) DO UPDATE SET n = c.n - 1;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION tq_tasks_recounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_counts AS c (queue, state, slot, n)
    VALUES (OLD.queue, OLD.state, tq_slot(), -1), (NEW.queue, NEW.state, tq_slot(), 1)
    ON CONFLICT (queue, state, slot) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
DROP FUNCTION tq_count_tasks(bytea, text, bigint);
)sql";

// In order; versions are 1, 2, ... without gaps.
constexpr const char* kSchemas[] = {kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4,
                                    kSchemaV5, kSchemaV6, kSchemaV7};

// Two tqd migrating the same schema at once take turns on this lock (per schema).
constexpr const char* kMigrationLock =
    "SELECT pg_advisory_xact_lock(29811, hashtext(current_schema()))";

}  // namespace

int CurrentSchemaVersion() {
  return static_cast<int>(std::size(kSchemas));
}

Status Migrate(Db& db) {
  sql::Transaction tx(db);
  if (Status s = tx.Begin(); !s.ok()) return s;
  if (Status s = db.Exec("migrate", kMigrationLock); !s.ok()) return s;
  Result<int64_t> versioned = db.QueryInt(
      "read schema version",
      "SELECT count(*) FROM pg_class WHERE relname = 'tq_schema' "
      "AND relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())");
  if (!versioned.ok()) return versioned.status();
  int64_t version = 0;
  if (*versioned != 0) {
    Result<int64_t> v = db.QueryInt("read schema version", "SELECT max(version) FROM tq_schema");
    if (!v.ok()) return v.status();
    version = *v;
  } else {
    // An extension's objects (pg_stat_statements puts a view in public) are not the schema's.
    Result<int64_t> tables =
        db.QueryInt("read schema",
                    "SELECT count(*) FROM pg_class AS c WHERE relnamespace = (SELECT oid FROM "
                    "pg_namespace WHERE nspname = current_schema()) AND NOT EXISTS (SELECT 1 "
                    "FROM pg_depend AS d WHERE d.classid = CAST('pg_class' AS regclass) AND "
                    "d.objid = c.oid AND d.deptype = 'e')");
    if (!tables.ok()) return tables.status();
    if (*tables != 0) {
      return sql::StoreError("migrate",
                             "the schema holds tables but no tq schema version: it is "
                             "not a tq store");
    }
  }
  if (version > CurrentSchemaVersion()) {
    return sql::StoreError("migrate", "the store's schema is version " + std::to_string(version) +
                                          ", newer than this tqd's " +
                                          std::to_string(CurrentSchemaVersion()));
  }
  for (int v = static_cast<int>(version) + 1; v <= CurrentSchemaVersion(); ++v) {
    const std::string what = "migration to v" + std::to_string(v);
    if (Status s = db.Exec(what, kSchemas[v - 1]); !s.ok()) return s;
    if (Status s = db.Exec(what, "DELETE FROM tq_schema; INSERT INTO tq_schema VALUES (" +
                                     std::to_string(v) + ")");
        !s.ok())
      return s;
  }
  return tx.Commit();
}

}  // namespace tq::pg
