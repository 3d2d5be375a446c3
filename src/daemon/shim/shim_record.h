/* The contract between tq-shim and tqd: status record format, signal meanings, exit codes.
 * Macros only, so it is usable from C and C++ alike (nothing here needs extern "C"). */
#ifndef TQ_DAEMON_SHIM_SHIM_RECORD_H_
#define TQ_DAEMON_SHIM_SHIM_RECORD_H_

#include <signal.h>

/* The first line of every status record is "<magic> <version>\n". A record ends at the end of
 * its file or at its first NUL: a reused file is blanked by a NUL at its start, and a shorter
 * record is padded with NULs over what the file held, so its block is never freed. */
#define TQ_SHIM_RECORD_MAGIC "tq-shim-status"
/* The version this shim writes. Readers accept it and the previous one. */
#define TQ_SHIM_RECORD_VERSION 5

/* The keys of version 1, one "key=value" line each, all decimal integers. Readers ignore
 * keys they do not know, so later versions may add lines. */
#define TQ_SHIM_KEY_FINISHED "finished"             /* 0 while the shim runs, 1 at the end */
#define TQ_SHIM_KEY_SHIM_PID "shim_pid"             /* the shim's own pid */
#define TQ_SHIM_KEY_PID "pid"                       /* the task's pid (= its pgid), 0 before fork */
#define TQ_SHIM_KEY_PID_START_TIME "pid_start_time" /* /proc/PID/stat field 22, clock ticks */
#define TQ_SHIM_KEY_STARTED_MS "started_ms"         /* CLOCK_REALTIME ms at fork, 0 before */
#define TQ_SHIM_KEY_ENDED_MS "ended_ms"             /* CLOCK_REALTIME ms at the end, 0 before */
#define TQ_SHIM_KEY_EXIT_CODE "exit_code"           /* exit status, -1 unless it exited */
#define TQ_SHIM_KEY_SIGNAL "signal"                 /* terminating signal, 0 unless killed */
#define TQ_SHIM_KEY_SPAWN_ERRNO "spawn_errno"       /* why the task never ran (see below), or 0 */
#define TQ_SHIM_KEY_USER_CPU_US "user_cpu_us"       /* wait4 rusage of the task, microseconds */
#define TQ_SHIM_KEY_SYSTEM_CPU_US "system_cpu_us"
#define TQ_SHIM_KEY_MAX_RSS_KB "max_rss_kb" /* peak resident set size (ru_maxrss), KiB */
/* Added in version 2, so a restarted daemon can prove a live shim is the one it started. */
#define TQ_SHIM_KEY_BOOT_ID "boot_id" /* /proc/sys/kernel/random/boot_id when the shim began */
#define TQ_SHIM_KEY_SHIM_START_TIME "shim_start_time" /* the shim's /proc stat field 22 */
/* Added in version 3, so `tq status` can say why a task never ran: the step that failed, one of
 * the words below (the only key that is not a number). */
#define TQ_SHIM_KEY_SPAWN_STEP "spawn_step"
/* Added in version 4: the peak memory use of the task's cgroup (memory.peak), in bytes; 0 when
 * the task had no cgroup or its memory controller was not enabled. */
#define TQ_SHIM_KEY_MEMORY_PEAK "memory_peak"
/* Added in version 5: where a stream's output was cut because its file could not be written
 * (ENOSPC, EDQUOT, EIO, EFBIG, or it could not be created): the bytes its file holds, -1 when
 * nothing was cut, and the errno, 0 then. The disk that refused the output may refuse a marker
 * too; the record's block is already the file's, so the cut is told here and tqd adds the marker
 * where the output is read (`tq logs`). */
#define TQ_SHIM_KEY_STDOUT_CUT_AT "stdout_cut_at"
#define TQ_SHIM_KEY_STDOUT_CUT_ERRNO "stdout_cut_errno"
#define TQ_SHIM_KEY_STDERR_CUT_AT "stderr_cut_at"
#define TQ_SHIM_KEY_STDERR_CUT_ERRNO "stderr_cut_errno"

/* The steps of starting a task, as spawn_step names them. (Earlier shims created the output files
 * first and could fail at "stdout" or "stderr"; this one creates each when the task first writes
 * to it, and a file it cannot create loses that stream's output, said on its stderr.) */
#define TQ_SHIM_STEP_NONE "none"   /* the task started (spawn_errno is 0) */
#define TQ_SHIM_STEP_SETUP "setup" /* the shim's own pipes and signalfd, reading --env-fd */
#define TQ_SHIM_STEP_FORK "fork"
#define TQ_SHIM_STEP_CGROUP "cgroup"       /* creating --cgroup, its limits, moving the task in */
#define TQ_SHIM_STEP_STDIN "stdin"         /* opening --stdin (or /dev/null) onto descriptor 0 */
#define TQ_SHIM_STEP_PAM "pam"             /* the PAM account check or session of --user (EACCES) */
#define TQ_SHIM_STEP_RESOURCES "resources" /* --nice, --ioprio and the --limit-* limits */
#define TQ_SHIM_STEP_IDENTITY "identity"   /* becoming --uid, --gid and --groups */
#define TQ_SHIM_STEP_CWD "cwd"             /* chdir to --cwd */
#define TQ_SHIM_STEP_EXEC "exec"           /* execvp of PROGRAM */

/* The descriptor on which the daemon hands the shim its status file, created and flocked before
 * the shim is started (`--status-fd 3`): the lock then proves a shim is alive from the instant it
 * exists, so a daemon that dies while starting one never takes a live attempt for a lost one. */
#define TQ_SHIM_STATUS_FD 3

/* The descriptor on which the daemon hands the shim the task's environment (`--env-fd 4`):
 * entries NAME=value, each ended by a NUL byte. The shim itself runs with an empty environment,
 * so nothing a submitter sets (LD_PRELOAD, ...) acts on it; only the task's exec gets these. */
#define TQ_SHIM_ENV_FD 4
#define TQ_SHIM_ENV_MAX_BYTES (64u << 20) /* a larger environment is refused (E2BIG) */

/* Signals the daemon sends to the shim (never to the task directly). After either, the shim
 * stays until every descendant is gone, and sends KILL itself when --kill-grace runs out. With
 * --cgroup, every KILL also goes to the whole task cgroup at once (cgroup.kill). */
#define TQ_SHIM_SIG_TERMINATE SIGTERM /* TERM (or the signal in its value) to all of the task */
#define TQ_SHIM_SIG_KILL SIGUSR1      /* KILL the task's process group and all descendants */

/* When the task's main process ends, descendants it left running get TERM, then KILL after
 * --kill-grace MS (default 10000), and the shim waits until all are gone; --keep-background
 * leaves them running instead (the shim then exits once the task's output has drained). */

/* The shim's own exit status. */
#define TQ_SHIM_EXIT_OK 0     /* a final record (finished=1) was written */
#define TQ_SHIM_EXIT_FAILED 1 /* the status record could not be opened, locked or written */
#define TQ_SHIM_EXIT_USAGE 2  /* bad command line; no status file was touched */
/* The first record could not be written for want of space (ENOSPC, EDQUOT): the task was never
 * started, and the daemon makes it pending again without using a retry (SPEC 6). */
#define TQ_SHIM_EXIT_NO_SPACE 3

/* exit_code recorded when the task could not be started. spawn_errno is then the errno of the
 * step that failed: creating an output file, pipe or fork (pid stays 0), or, in the child,
 * opening --stdin, chdir to --cwd or execvp (pid is set; the child is already reaped). */
#define TQ_SHIM_EXIT_CODE_NOT_FOUND 127 /* any spawn failure but the two below */
#define TQ_SHIM_EXIT_CODE_NOT_EXEC 126  /* spawn_errno EACCES or ENOEXEC */

/* The fork server, `tq-shim --fork-server FD`: tqd starts it once, and it makes each shim without
 * an exec, a dynamic loader or the C library's start-up. On the SOCK_SEQPACKET socket FD tqd
 * sends one message per shim: the shim's arguments after argv[0], each ended by a NUL byte, at
 * most TQ_FORK_SERVER_MAX_BYTES in all, with three descriptors (SCM_RIGHTS): the status record
 * and the environment, which the shim gets as TQ_SHIM_STATUS_FD and TQ_SHIM_ENV_FD, and the
 * write end of a pipe. The server makes the shim by clone(CLONE_PARENT): the shim is tqd's child,
 * in a session of its own, exactly as if tqd had started it, and outlives the server. The shim
 * first writes its pid (an int) to the pipe and closes it; the server closes its copy at once, so
 * an end of file without a pid says no shim was made (the server failed, or is gone). The
 * server's one message is TQ_FORK_SERVER_READY, when it starts; it exits when tqd closes the
 * socket. */
#define TQ_FORK_SERVER_ARG "--fork-server"
#define TQ_FORK_SERVER_MAX_BYTES (64u << 10) /* a larger one tqd starts itself */
#define TQ_FORK_SERVER_MAX_ARGS 4300 /* the task's arguments (4096 at most) and the shim's */
#define TQ_FORK_SERVER_READY 0

#endif /* TQ_DAEMON_SHIM_SHIM_RECORD_H_ */
