// Every SQL statement of the SQL store, prepared once at open (SqlStore::Prepare) and reused
// for the connection's lifetime. Internal to the SQL store and its two databases' own parts.
#pragma once

#include <array>
#include <string>

#include "core/store/sql/connection.h"
#include "core/store/sql/sql_store.h"

namespace tq {

/// The prepared statements, one member per statement; the SQL is in statements.cc.
struct SqlStore::Statements {
  // submit
  sql::Stmt dep_owner_state, deps_of, env_by_hash, insert_env, drop_env_if_unused, drop_unused_envs,
      drop_zero_counts, drop_queue_if_idle, insert_queue, lock_key, insert_task, insert_label,
      insert_dep, key_lookup, task_env_hash, replace_task, delete_attempts, delete_labels,
      delete_deps, reblock_dependents, insert_stage, delete_stages;
  // sharded work (shards.cc)
  sql::Stmt next_task_id, first_task_id, shards_of, group_end, claim_group_end;
  // reads
  sql::Stmt get_task, get_task_summary, get_summaries, task_stages, task_attempts,
      attempts_of_tasks, last_attempt, ended_among, hold_queues, add_queues, queue_states,
      set_queue_paused, set_queue_concurrency, set_queue_priority_mix, add_queue, queue_exists,
      queue_state, queues_named_from, running_attempts, running_counts, task_counts,
      running_by_owner, running_tally, pending_of_owner, output_of_owner;
  // by filter mask and number of states (0 to 6), prepared on first use
  std::array<sql::Stmt, 8 * 7> list;
  // the ready set and attempts
  sql::Stmt first_ready_priority, first_ready_oldest, ready_queues, ready_owners, promote_due,
      promote_due_and_next, next_due, next_due_after;
  // resource units (SPEC 14): the ready set without the tasks whose units are not free
  sql::Stmt first_fitting_priority, first_fitting_oldest, ready_uses, held_units;
  // the same, for the tasks placed on no host and on one host at once
  sql::Stmt first_ready_priority_both, first_ready_oldest_both, first_fitting_priority_both,
      first_fitting_oldest_both;
  sql::Stmt start_task, start_plain_task, start_plain_with_attempt, start_and_read, insert_attempt,
      record_stop, note_attempt, task_run_state, finish_attempt, finish_attempt_and_task,
      finish_task, retry_task, advance_task, release_dependents, pending_dependents, end_pending,
      task_exists, dep_states, requeue_task, failed_since_queued;
  // editing pending tasks (edit.cc)
  sql::Stmt update_task, hold_task, held_run, release_task;
  // retention
  sql::Stmt pending_ttl_due, next_pending_ttl, succeeded_due, expire_task, oldest_succeeded,
      ended_due, delete_task, oldest_ended, finished_task, dependents_of;
  // what a pending task waits for, deleting queues (queue_admin.cc)
  sql::Stmt unfinished_deps, queue_busy, delete_queue, recreate_queue;
  // cron jobs (jobs.cc)
  sql::Stmt runs_of, job_running, lock_job, hold_for_job, hold_runs, release_runs, firing_exists,
      job_fired, insert_job, drop_old_firings, insert_firing, set_last_fired, set_boot_fired,
      set_last_task, job_records, set_job_disabled, job_files, save_job_file, forget_job_file,
      set_last_success, group_unsucceeded, set_overdue_alerted, jobs_with_tasks, forget_job,
      forget_firings, drop_idle_queues, active_queues_of;
  // output kept for every host (saved_output.cc)
  sql::Stmt save_output, saved_output;
  // hosts (hosts.cc)
  sql::Stmt join_host, adopt_attempts, host_current, heartbeat, leave_host, hosts, fence_host,
      take_attempts, take_fenced, context_lost, passed_on;
};

/// The SQL of a planned (hot) query in `dialect`, exactly as the store prepares it.
std::string PlannedSql(sql::Dialect dialect, SqlStore::PlannedQuery query);

}  // namespace tq
