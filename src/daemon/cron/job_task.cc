#include "daemon/cron/job_task.h"

#include "core/jobs/job_command.h"

namespace tq {

TaskSpec JobTaskSpec(const JobDef& job, const std::string& home, RetryPolicy retry,
                     WallMs not_before, bool exclusive) {
  TaskSpec spec;
  SetJobCommand(job, &spec);
  spec.queue = job.queue;
  spec.priority = job.priority;
  spec.stdin_data = job.stdin_data;
  spec.cwd = job.cwd.empty() ? home : job.cwd;
  spec.env = job.env;
  spec.clean_env = true;
  spec.not_before = not_before;
  spec.labels = {kJobLabelPrefix + job.name};
  spec.timeout_ms = job.timeout_ms;
  spec.notify = job.notify;
  spec.retry = std::move(retry);
  spec.pending_ttl_ms = job.pending_ttl_ms;
  spec.job = job.name;
  spec.job_exclusive = exclusive;
  spec.use = job.use;
  if (job.shards > 0) spec.shard = ShardOf{0, 0, job.shards};  // Fire makes the group
  return spec;
}

}  // namespace tq
