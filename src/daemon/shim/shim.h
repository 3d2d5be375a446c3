/* The parts of tq-shim and what they share: the parsed command line (shim_options.c), the task's
 * child process (shim_child.c), its PAM session (shim_pam.c; shim_pam_none.c
 * in the static build, which has none), its cgroup (shim_cgroup.c), and
 * the status record and supervision (shim.c), its log lines (shim_log.c). Private to the shim. */
#ifndef TQ_DAEMON_SHIM_SHIM_H_
#define TQ_DAEMON_SHIM_SHIM_H_

#include <stddef.h>
#include <sys/types.h>

/* The parsed command line. */
struct options {
  const char *status, *out, *err, *in, *cwd;
  const char* order; /* where the order of stdout and stderr is kept (output_order.h); NULL: not */
  const char* cwd_fallback; /* entered when cwd cannot be (a hook's); NULL: that is a failure */
  unsigned long long output_max; /* 0: unlimited */
  int status_fd;                 /* the status file, opened and locked by the daemon; -1: none */
  long long kill_grace_ms;       /* TERM to KILL, for a stop and for leftover descendants */
  int keep_background;           /* leave descendants running when the task's main process ends */
  unsigned long long nofile;     /* the task's soft descriptor limit; 0: the shim's own */
  int env_fd;                    /* the task's environment (TQ_SHIM_ENV_FD); -1: the shim's own */
  int switch_identity;           /* the task runs as uid, gid and groups, not as the shim */
  uid_t uid;
  gid_t gid;
  gid_t* groups; /* the supplementary groups, malloc'ed; PAM's (pam_group) are added */
  size_t ngroups;
  const char* pam_service; /* open a PAM session of `user` for this service; NULL: none */
  const char* pam_dir;     /* where its configuration is; NULL: the system's (/etc/pam.d) */
  const char* user;        /* the task's user name, for PAM */
  const char *nice, *ioprio, *limit_nofile, *limit_nproc, *limit_core; /* as given; NULL: unset */
  const char* cgroup; /* the task's own cgroup, created here; NULL: none */
  const char *memory_max, *cpu_weight, *pids_max; /* its limits, as given; NULL: unset */
  char** argv;                                    /* PROGRAM [ARG...], NULL-terminated */
  const char* log_name; /* what the shim's log lines name (tqd's "task 12 attempt 1"); NULL: none */
  int log_journal;      /* --log-style journal: tqd's stderr is the journal */
};

/* The shim: supervises the task `argv` describes (shim_record.h) and exits. */
_Noreturn void supervise(int argc, char** argv);
/* The fork server (`tq-shim --fork-server FD`, its argc and argv; shim_record.h): makes a shim
 * for each request until tqd closes the socket; returns the exit status when it cannot serve. */
int fork_server(int argc, char** argv);

/* Parses argv strictly into *o (each option once, non-empty values, `--` and PROGRAM
 * required); a usage error exits with TQ_SHIM_EXIT_USAGE and touches no file. */
void parse_args(int argc, char** argv, struct options* o);
/* Parses a decimal count into *out; 0 on success. */
int parse_count(const char* text, unsigned long long* out);

/* Names the shim's log lines `name` (NULL: "tq-shim"), for the journal when `journal`. */
void shim_log_setup(const char* name, int journal);
/* Writes one line to stderr, tqd's log, as tqd writes its own: the time and level (or the
 * journal's priority), the name, the message made by printf from `format` (no newline). The
 * priority is syslog's: 3 an error, 4 a warning. */
void shim_log(int priority, const char* format, ...) __attribute__((format(printf, 2, 3)));

/* Records that the task could not be started at `step` (err is the errno) and exits. */
_Noreturn void spawn_failed(const char* step, int err);

/* What the child sends through the error pipe when a step fails. */
struct child_error {
  int err, step;
};
/* The TQ_SHIM_STEP_* word of a child_error's step. */
const char* child_step_name(int step);
/* In the forked child: default signals, the task's cgroup, own process group, stdio, resources,
 * the task's user, cwd (with that user's rights), then exec with the task's environment (`env`,
 * or the shim's own when NULL). A failed step goes to `errfd` as a child_error. */
_Noreturn void run_child(const struct options* o, char** env, int out_w, int err_w, int errfd);

/* Checks the account of o->user and opens its session (as cron does: account, credentials,
 * session), adds the groups the session's credentials gave (pam_group) to o->groups, and adds
 * the session's variables (pam_env's) that `env` lacks; returns the new environment. Fails the
 * start at TQ_SHIM_STEP_PAM (EACCES) when PAM refuses, and always in the static build (ELIBACC). */
char** pam_begin(struct options* o, char** env);
/* Closes the session pam_begin opened, if any. */
void pam_finish(void);

/* Creates the task's cgroup o->cgroup (its parent must exist) and writes its limits; fails the
 * start at TQ_SHIM_STEP_CGROUP when it cannot. Nothing without --cgroup. */
void cgroup_create(const struct options* o);
/* In the child: moves this process into the task's cgroup; 0 (also without one) or -1. */
int cgroup_join(void);
/* KILLs every process in the task's cgroup at once (cgroup.kill), forks in flight included. */
void cgroup_kill(void);
/* The task cgroup's peak memory use (memory.peak) in bytes; 0 when unknown. */
unsigned long long cgroup_memory_peak(void);
/* Removes the task's cgroup once its processes are gone; kept ones keep it (tqd removes it
 * later). */
void cgroup_remove(void);

#endif /* TQ_DAEMON_SHIM_SHIM_H_ */
