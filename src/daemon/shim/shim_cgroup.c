/* The task's own cgroup (cgroup v2, under a subtree delegated to tqd): created by tq-shim before
 * it forks the task, joined by the task's process before anything else, its limits written by
 * the shim (as root: the task cannot raise them), killed as a whole through cgroup.kill, read for
 * its peak memory, and removed when the task is gone. The shim itself stays outside it, so
 * killing the task's cgroup never kills its supervisor. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

enum {
  kRemoveTries = 50,  /* rmdir while the last exits are still leaving the cgroup ... */
  kRemoveWaitMs = 10, /* ... this long apart */
};

static int g_dir = -1;          /* the task's cgroup directory; -1: none */
static const char* g_path = ""; /* its path, for messages and rmdir */
static int g_kept;              /* --keep-background: processes may stay in it after the end */

/* Writes `value` to the cgroup file `name`; 0 or -1 with errno. */
static int write_knob(const char* name, const char* value) {
  int fd = openat(g_dir, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  ssize_t n;
  do n = write(fd, value, strlen(value));
  while (n < 0 && errno == EINTR);
  const int err = n < 0 ? errno : EIO; /* a short write is a failure too */
  close(fd);
  if (n == (ssize_t)strlen(value)) return 0;
  errno = err;
  return -1;
}

/* Writes one limit; on failure removes the cgroup and fails the start naming the file. */
static void set_knob(const char* name, const char* value) {
  if (value == NULL || write_knob(name, value) == 0) return;
  const int err = errno;
  shim_log(3, "cannot set %s/%s to %s: %s%s", g_path, name, value, strerror(err),
           err == ENOENT ? " (its controller is not enabled there)" : "");
  cgroup_remove();
  spawn_failed(TQ_SHIM_STEP_CGROUP, err);
}

void cgroup_create(const struct options* o) {
  if (o->cgroup == NULL) return;
  g_path = o->cgroup;
  g_kept = o->keep_background;
  if (mkdir(g_path, 0755) != 0) {
    const int err = errno;
    shim_log(3, "cannot create the cgroup %s: %s", g_path, strerror(err));
    spawn_failed(TQ_SHIM_STEP_CGROUP, err);
  }
  g_dir = open(g_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (g_dir < 0) {
    const int err = errno;
    rmdir(g_path);
    spawn_failed(TQ_SHIM_STEP_CGROUP, err);
  }
  set_knob("memory.max", o->memory_max);
  if (o->memory_max != NULL) set_knob("memory.oom.group", "1"); /* an OOM kill ends the task */
  set_knob("cpu.weight", o->cpu_weight);
  set_knob("pids.max", o->pids_max);
}

int cgroup_join(void) {
  return g_dir < 0 ? 0 : write_knob("cgroup.procs", "0");
}

void cgroup_kill(void) {
  if (g_dir >= 0 && write_knob("cgroup.kill", "1") != 0 && errno != ENOENT)
    shim_log(3, "cannot kill the cgroup %s: %s", g_path, strerror(errno));
}

unsigned long long cgroup_memory_peak(void) {
  if (g_dir < 0) return 0;
  int fd = openat(g_dir, "memory.peak", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long peak = 0;
  buf[strcspn(buf, "\n")] = '\0';
  return parse_count(buf, &peak) == 0 ? peak : 0;
}

void cgroup_remove(void) {
  if (g_dir < 0) return;
  close(g_dir);
  g_dir = -1;
  /* A process that just exited may leave the cgroup a moment after its parent reaped it; one
   * kept running on purpose holds it on (tqd removes it once they are gone). */
  const struct timespec wait = {0, kRemoveWaitMs * 1000000L};
  for (int i = 0; rmdir(g_path) != 0 && errno == EBUSY && !g_kept && i < kRemoveTries; i++)
    nanosleep(&wait, NULL);
}
