-- A tq store at schema v5, as tqd wrote it before cron jobs (see
-- src/core/store/sqlite/migrations.cc, migrations 1 to 5), with a task in every state, one attempt
-- running and asked to stop, a task keeping its background processes and an attempt that could
-- not start. Frozen: tests/core/store/sqlite/migrations_test.cc loads it and migrates it to the
-- current schema. Never edit it to follow a newer schema; add a schema_vN.sql for a new version
-- instead.
PRAGMA user_version = 5;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE queues (
  name TEXT PRIMARY KEY
, paused INTEGER NOT NULL DEFAULT 0, concurrency INTEGER);
INSERT INTO queues VALUES('default',0,NULL);
INSERT INTO queues VALUES('batch',0,NULL);
CREATE TABLE envs (
  hash TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
INSERT INTO envs VALUES('205206fbd8a043e7',X'484f4d453d2f686f6d652f616c69636500504154483d2f7573722f62696e3a2f62696e00');
INSERT INTO envs VALUES('cbf29ce484222325',X'');
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
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  attempt_count INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER NOT NULL DEFAULT -1,
  signal INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  finished INTEGER NOT NULL DEFAULT 0,
  ready INTEGER NOT NULL DEFAULT 0,
  deps_left INTEGER NOT NULL DEFAULT 0
, task_key TEXT, version INTEGER NOT NULL DEFAULT 0, retries INTEGER NOT NULL DEFAULT 0, backoff TEXT NOT NULL DEFAULT 'exponential', backoff_base_ms INTEGER NOT NULL DEFAULT 10000, backoff_max_ms INTEGER NOT NULL DEFAULT 3600000, jitter INTEGER NOT NULL DEFAULT 1, retry_on_exit TEXT NOT NULL DEFAULT '', no_retry_on_exit TEXT NOT NULL DEFAULT '', pending_ttl_ms INTEGER NOT NULL DEFAULT 0, expires_at INTEGER, queued_attempts INTEGER NOT NULL DEFAULT 0, base_priority INTEGER NOT NULL DEFAULT 3, keep_background INTEGER NOT NULL DEFAULT 0);
INSERT INTO tasks VALUES(1,1000,1000,'alice',X'6563686f00686900',NULL,'default',2,NULL,X'2f746d70','205206fbd8a043e7',0,0,0,'succeeded','exit',1,0,0,1000,2000,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,2,0);
INSERT INTO tasks VALUES(2,1000,1000,'alice',X'66616c736500',NULL,'default',4,NULL,X'2f746d70','205206fbd8a043e7',0,0,0,'failed','exit',1,3,0,5000,6000,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,4,0);
INSERT INTO tasks VALUES(3,1000,1000,'alice',X'736c65657000363000',NULL,'batch',3,NULL,X'2f746d70','205206fbd8a043e7',0,0,600000,'running','',1,-1,0,6500,0,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,3,0);
INSERT INTO tasks VALUES(4,1000,1000,'alice',X'7472756500',NULL,'batch',1,X'696e',X'2f746d70','205206fbd8a043e7',0,0,0,'pending','',0,-1,0,7000,0,1,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,1,1);
INSERT INTO tasks VALUES(5,1001,1001,'bob',X'',X'736c656570203130','default',5,NULL,X'2f','cbf29ce484222325',1,9999999999999,0,'pending','',0,-1,0,7100,0,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,5,0);
INSERT INTO tasks VALUES(6,1000,1000,'alice',X'7472756500',NULL,'default',3,NULL,X'2f746d70','205206fbd8a043e7',0,0,0,'pending','',0,-1,0,7200,0,0,1,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,3,0);
INSERT INTO tasks VALUES(7,1000,1000,'alice',X'7472756500',NULL,'default',3,NULL,X'2f746d70','205206fbd8a043e7',0,0,0,'cancelled','cancelled',0,-1,0,7300,7400,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,3,0);
INSERT INTO tasks VALUES(8,1000,1000,'alice',X'66616c736500',NULL,'default',4,NULL,X'2f746d70','205206fbd8a043e7',0,0,0,'failed','spawn-failed',1,-1,0,7100,7200,0,0,NULL,0,0,'exponential',10000,3600000,1,'','',0,NULL,0,4,0);
CREATE TABLE task_deps (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  dep_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  PRIMARY KEY (task_id, dep_id)
);
INSERT INTO task_deps VALUES(4,1);
INSERT INTO task_deps VALUES(6,3);
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
  user_cpu_us INTEGER NOT NULL DEFAULT 0,
  system_cpu_us INTEGER NOT NULL DEFAULT 0,
  max_rss_kb INTEGER NOT NULL DEFAULT 0, stop_reason TEXT NOT NULL DEFAULT '', stop_task_reason TEXT NOT NULL DEFAULT '', stop_requested INTEGER NOT NULL DEFAULT 0, detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (task_id, number)
) WITHOUT ROWID;
INSERT INTO attempts VALUES(1,1,1500,2000,4242,4241,0,0,'exit',120000,3000,2048,'','',0,'');
INSERT INTO attempts VALUES(2,1,5500,6000,4343,4342,3,0,'exit',1000,1000,1024,'','',0,'');
INSERT INTO attempts VALUES(3,1,6600,0,4444,4443,-1,0,'',0,0,0,'cancelled','cancelled',7000,'');
INSERT INTO attempts VALUES(8,1,7150,7200,0,0,-1,0,'spawn-failed',0,0,0,'','',0,'cwd /gone: No such file or directory');
CREATE TABLE task_labels (
  task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (task_id, pos)
) WITHOUT ROWID;
INSERT INTO task_labels VALUES(3,0,'big');
INSERT INTO task_labels VALUES(1,1,'job:report');
INSERT INTO task_labels VALUES(1,0,'nightly');
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('tasks',8);
CREATE INDEX tasks_ready_by_priority ON tasks(queue, priority, id) WHERE ready = 1;
CREATE INDEX tasks_ready_by_id ON tasks(queue, id) WHERE ready = 1;
CREATE INDEX tasks_delayed ON tasks(not_before)
  WHERE state = 'pending' AND ready = 0 AND deps_left = 0;
CREATE INDEX tasks_by_owner ON tasks(owner_uid, id);
CREATE INDEX tasks_by_state ON tasks(state, id);
CREATE INDEX task_deps_by_dep ON task_deps(dep_id);
CREATE INDEX task_labels_by_label ON task_labels(label, task_id);
CREATE INDEX tasks_by_key ON tasks(owner_uid, task_key) WHERE task_key IS NOT NULL;
CREATE INDEX tasks_pending_ttl ON tasks(expires_at)
  WHERE state = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX tasks_succeeded ON tasks(finished) WHERE state = 'succeeded';
CREATE INDEX tasks_ended ON tasks(finished) WHERE state IN ('failed', 'cancelled', 'expired');
CREATE INDEX tasks_by_env ON tasks(env_hash);
COMMIT;
