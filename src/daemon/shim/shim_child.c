/* The task's side of tq-shim's fork: everything between fork and exec, in order: the task's
 * cgroup, its own process group, stdio, resources (as root), the task's user, its cwd (with that
 * user's rights), exec. A failed step is reported to the shim through the error pipe. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

/* Closes every descriptor from 3 up except `keep`. */
static void close_other_fds(int keep) {
#ifdef SYS_close_range
  if ((keep <= 3 || syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U) == 0) &&
      syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U) == 0)
    return;
#endif
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) {
    for (int fd = 3; fd < 65536; fd++)
      if (fd != keep) close(fd);
    return;
  }
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    int fd = atoi(e->d_name);
    if (fd >= 3 && fd != keep && fd != dirfd(d)) close(fd);
  }
  closedir(d);
}

/* The steps of starting the task in the child, in the order they run; sent as an index. */
static const char* const kChildSteps[] = {TQ_SHIM_STEP_CGROUP,    TQ_SHIM_STEP_STDIN,
                                          TQ_SHIM_STEP_RESOURCES, TQ_SHIM_STEP_IDENTITY,
                                          TQ_SHIM_STEP_CWD,       TQ_SHIM_STEP_EXEC};
enum { kStepCgroup, kStepStdin, kStepResources, kStepIdentity, kStepCwd, kStepExec, kStepCount };

const char* child_step_name(int step) {
  return step >= 0 && step < kStepCount ? kChildSteps[step] : TQ_SHIM_STEP_EXEC;
}

/* Sends errno and the failed step through the error pipe and exits as a failed exec would. */
_Noreturn static void child_fail(int errfd, int step) {
  struct child_error e = {errno, step};
  ssize_t ignored = write(errfd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

/* Lowers the soft descriptor limit to `nofile` (the one tqd started with, before it raised its
 * own), so a task sees the limit it would have had; 0 or a higher value leaves it. */
static void restore_nofile(unsigned long long nofile) {
  struct rlimit lim;
  if (nofile == 0 || getrlimit(RLIMIT_NOFILE, &lim) != 0 || nofile >= lim.rlim_cur) return;
  lim.rlim_cur = (rlim_t)nofile;
  setrlimit(RLIMIT_NOFILE, &lim);
}

/* Sets one resource limit, soft and hard, from its checked decimal text (NULL: leaves it). */
static int set_limit(int resource, const char* text) {
  if (text == NULL) return 0;
  unsigned long long n = 0;
  parse_count(text, &n);
  struct rlimit lim = {(rlim_t)n, (rlim_t)n};
  return setrlimit(resource, &lim);
}

/* Applies --nice, --ioprio and the --limit-* limits to this process, while it is still root
 * (a negative nice, a realtime I/O class and a raised limit need it); 0, or -1 with errno. */
static int apply_resources(const struct options* o) {
  if (o->nice != NULL && setpriority(PRIO_PROCESS, 0, atoi(o->nice)) != 0) return -1;
  if (o->ioprio != NULL &&
      syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, atoi(o->ioprio)) != 0)
    return -1;
  if (set_limit(RLIMIT_NOFILE, o->limit_nofile) != 0 ||
      set_limit(RLIMIT_NPROC, o->limit_nproc) != 0 || set_limit(RLIMIT_CORE, o->limit_core) != 0)
    return -1;
  return 0;
}

/* Becomes the task's user: groups, then gid, then uid (each while still allowed to), and then
 * proves that real, effective and saved ids all changed and that root cannot be regained.
 * 0, or -1 with errno: the task must then not run. */
static int become_user(const struct options* o) {
  if (setgroups(o->ngroups, o->groups) != 0 || setresgid(o->gid, o->gid, o->gid) != 0 ||
      setresuid(o->uid, o->uid, o->uid) != 0)
    return -1;
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0) return -1;
  const int dropped = ruid == o->uid && euid == o->uid && suid == o->uid && rgid == o->gid &&
                      egid == o->gid && sgid == o->gid && getgroups(0, NULL) == (int)o->ngroups;
  if (!dropped || (o->uid != 0 && setuid(0) == 0)) {
    errno = EPERM;
    return -1;
  }
  return 0;
}

_Noreturn void run_child(const struct options* o, char** env, int out_w, int err_w, int errfd) {
  /* The shim starts with every disposition the default (tqd's spawn resets them) and has no
   * handler (its signals come through a signalfd): the two it ignores are all to put back. */
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXFSZ, SIG_DFL);
  /* posix_spawn leaves the C library's own two signals (32 and 33, below SIGRTMIN) ignored in
   * the shim, and its sigaction will not touch them: the system call itself puts them back, so
   * a program that uses them (one not built on glibc) finds them as a fresh process would. */
  const struct {
    void* handler;
    unsigned long flags;
    void* restorer;
    unsigned long long mask;
  } dfl = {SIG_DFL, 0, NULL, 0};
  for (int sig = 32; sig < SIGRTMIN; sig++)
    syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (cgroup_join() != 0) child_fail(errfd, kStepCgroup);
  setpgid(0, 0);
  int in = open(o->in != NULL ? o->in : "/dev/null", O_RDONLY | O_CLOEXEC);
  if (in < 0 || dup2(in, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
    child_fail(errfd, kStepStdin);
  close_other_fds(errfd);
  if (apply_resources(o) != 0) child_fail(errfd, kStepResources);
  if (o->switch_identity && become_user(o) != 0) child_fail(errfd, kStepIdentity);
  if (o->limit_nofile == NULL) restore_nofile(o->nofile);
  if (o->cwd != NULL && chdir(o->cwd) != 0 &&
      (o->cwd_fallback == NULL || chdir(o->cwd_fallback) != 0))
    child_fail(errfd, kStepCwd);
  if (env != NULL) environ = env; /* execvp searches the task's PATH, and passes all of it */
  execvp(o->argv[0], o->argv);
  child_fail(errfd, kStepExec);
}
