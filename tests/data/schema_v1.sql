-- A tq store at schema v1, as tqd 0.1 wrote it (see src/core/migrations.cc, migration 1), with
-- a few rows. Frozen: tests/core/migrations_test.cc loads it and migrates it to the current
-- schema. Never edit it to follow a newer schema; add a schema_vN.sql for a new version instead.
-- Byte strings are BLOBs; lists are elements each followed by NUL; envs are keyed by FNV-1a 64.
BEGIN;
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

INSERT INTO queues(name) VALUES ('default'), ('batch');
-- HOME=/home/alice NUL PATH=/usr/bin:/bin NUL, and the empty environment
INSERT INTO envs(hash, data) VALUES
  ('205206fbd8a043e7', X'484f4d453d2f686f6d652f616c69636500504154483d2f7573722f62696e3a2f62696e00'),
  ('cbf29ce484222325', X'');

-- 1: echo hi, succeeded
INSERT INTO tasks(id, owner_uid, owner_gid, owner_name, argv, shell, queue, priority, stdin_data,
                  cwd, env_hash, clean_env, not_before, timeout_ms, labels, state, reason,
                  attempt_count, exit_code, signal, created, finished, ready, deps_left)
VALUES (1, 1000, 1000, 'alice', X'6563686f00686900', NULL, 'default', 3, NULL,
        X'2f686f6d652f616c696365', '205206fbd8a043e7', 0, 0, 0, '["nightly","job:report"]',
        'succeeded', 'exit', 1, 0, 0, 1000, 2000, 0, 0);
-- 2: printf 0xff '' with stdin "abc\n", after 1, ready
INSERT INTO tasks(id, owner_uid, owner_gid, owner_name, argv, shell, queue, priority, stdin_data,
                  cwd, env_hash, clean_env, not_before, timeout_ms, labels, state, reason,
                  attempt_count, exit_code, signal, created, finished, ready, deps_left)
VALUES (2, 1000, 1000, 'alice', X'7072696e746600ff0000', NULL, 'batch', 1, X'6162630a',
        X'2f746d70', '205206fbd8a043e7', 0, 0, 60000, '["nightly"]',
        'pending', '', 0, -1, 0, 3000, 0, 1, 0);
-- 3: bob's delayed shell command with the clean environment
INSERT INTO tasks(id, owner_uid, owner_gid, owner_name, argv, shell, queue, priority, stdin_data,
                  cwd, env_hash, clean_env, not_before, timeout_ms, labels, state, reason,
                  attempt_count, exit_code, signal, created, finished, ready, deps_left)
VALUES (3, 1001, 1001, 'bob', X'', X'736c656570203130', 'default', 5, NULL,
        X'2f686f6d652f626f62', 'cbf29ce484222325', 1, 9999999999999, 0, '[]',
        'pending', '', 0, -1, 0, 4000, 0, 0, 0);
-- 4: false, failed
INSERT INTO tasks(id, owner_uid, owner_gid, owner_name, argv, shell, queue, priority, stdin_data,
                  cwd, env_hash, clean_env, not_before, timeout_ms, labels, state, reason,
                  attempt_count, exit_code, signal, created, finished, ready, deps_left)
VALUES (4, 1000, 1000, 'alice', X'66616c736500', NULL, 'default', 3, NULL,
        X'2f686f6d652f616c696365', '205206fbd8a043e7', 0, 0, 0, '["job:report"]',
        'failed', 'exit', 1, 1, 0, 5000, 6000, 0, 0);

INSERT INTO task_deps(task_id, dep_id) VALUES (2, 1);
INSERT INTO attempts(task_id, number, started, ended, pid, shim_pid, exit_code, signal, reason)
VALUES (1, 1, 1500, 2000, 4242, 4241, 0, 0, 'exit'),
       (4, 1, 5500, 6000, 4343, 4342, 1, 0, 'exit');

PRAGMA user_version = 1;
COMMIT;
