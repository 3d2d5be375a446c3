/* tq-shim: the per-task supervisor. Starts one task, captures its output (capped head + tail),
 * forwards the daemon's kill requests to every process of the task, reaps it with wait4 and
 * leaves a status record that outlives the daemon. Linked statically against libc alone, so no
 * dynamic loader runs at each task's start; tq-shim-pam, the same sources linked dynamically,
 * runs the tasks that have a PAM session and loads libpam for them. Its parts are in shim.h. The
 * contract (invocation, record format, signals, exit codes) is in shim_record.h and SPEC sections 6
 * and 8.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

enum {
  kDrainIdleMs = 100,   /* after the task exits, stop once its pipes were quiet this long */
  kDrainMaxMs = 2000,   /* ... and in any case this long after it exited */
  kKillScanRounds = 16, /* /proc scans per kill request, while new descendants appear */
  kKillRetryMs = 100,   /* after KILL, how often it goes out again while descendants remain */
  kChunk = 65536,       /* pipe read size */
};

/* The status record, rewritten whole each time it changes. */
struct record {
  int finished, shim_pid, pid;
  unsigned long long pid_start_time;
  long long started_ms, ended_ms;
  int exit_code, signal, spawn_errno;
  const char* spawn_step; /* a TQ_SHIM_STEP_* word, "" when the task started */
  long long user_cpu_us, system_cpu_us, max_rss_kb;
  unsigned long long memory_peak; /* the task cgroup's, bytes; 0: unknown */
  long long cut_at[2];            /* stdout's and stderr's: where a failed write cut it; -1: not */
  int cut_errno[2];               /* ... and why; 0: not cut */
  char boot_id[40];
  unsigned long long shim_start_time;
};

/* One captured stream: pipe -> file, keeping the first and last `half` bytes when limited. The
 * file is created when the first byte arrives: a stream the task never writes leaves no file. */
struct stream {
  int pipe_fd; /* read end; -1 after EOF */
  int file_fd; /* -1 until the first byte */
  const char* path;
  const struct options* owner; /* whose file it is (--uid, --gid) */
  int unlimited;
  unsigned long long half;  /* output_max / 2 */
  unsigned long long total; /* bytes read from the pipe */
  unsigned long long head;  /* bytes written straight to the file */
  char* ring;               /* the tail, allocated when the head is full */
  size_t ring_start, ring_len;
  int ring_failed;
  unsigned long long written; /* bytes in the file */
  int write_errno;            /* why a write to the file failed (then the rest is cut); 0: none */
  char tag;                   /* 'o' or 'e', as the order file names it */
  struct order* order;        /* shared by both streams */
};

/* The order file (--order): which stream the task wrote to when, kept while both files hold
 * exactly what was written (see output_order.h in tqd). */
struct order {
  const char* path; /* NULL: not kept */
  const struct options* owner;
  int fd;                    /* -1 until the first switch */
  const struct stream* last; /* the stream read last; NULL before any byte */
  int over;                  /* "end" was written (or the file failed): nothing more */
};

static int g_status_fd = -1;
static struct record g_rec;
static int g_record_len; /* the length of the record on disk */

/* Milliseconds on the given clock. */
static long long now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* write() until everything is written; 0 or -1 with errno. */
static int write_all(int fd, const char* buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Rewrites the status record from g_rec: one pwrite at offset 0. A record shorter than what the
 * file holds (a spare's earlier record, blanked by tqd) is padded with NULs, where readers stop,
 * rather than trimmed: a truncate that frees a block waits for the device on a file system
 * mounted with `discard`. Only a file longer than the buffer is trimmed. */
static int write_record(void) {
  const struct record* r = &g_rec;
  char buf[4096];
  int len = snprintf(
      buf, sizeof buf,
      "%s %d\n" TQ_SHIM_KEY_FINISHED "=%d\n" TQ_SHIM_KEY_SHIM_PID "=%d\n" TQ_SHIM_KEY_PID
      "=%d\n" TQ_SHIM_KEY_PID_START_TIME "=%llu\n" TQ_SHIM_KEY_STARTED_MS
      "=%lld\n" TQ_SHIM_KEY_ENDED_MS "=%lld\n" TQ_SHIM_KEY_EXIT_CODE "=%d\n" TQ_SHIM_KEY_SIGNAL
      "=%d\n" TQ_SHIM_KEY_SPAWN_ERRNO "=%d\n" TQ_SHIM_KEY_USER_CPU_US
      "=%lld\n" TQ_SHIM_KEY_SYSTEM_CPU_US "=%lld\n" TQ_SHIM_KEY_MAX_RSS_KB
      "=%lld\n" TQ_SHIM_KEY_BOOT_ID "=%s\n" TQ_SHIM_KEY_SHIM_START_TIME
      "=%llu\n" TQ_SHIM_KEY_SPAWN_STEP "=%s\n" TQ_SHIM_KEY_MEMORY_PEAK
      "=%llu\n" TQ_SHIM_KEY_STDOUT_CUT_AT "=%lld\n" TQ_SHIM_KEY_STDOUT_CUT_ERRNO
      "=%d\n" TQ_SHIM_KEY_STDERR_CUT_AT "=%lld\n" TQ_SHIM_KEY_STDERR_CUT_ERRNO "=%d\n",
      TQ_SHIM_RECORD_MAGIC, TQ_SHIM_RECORD_VERSION, r->finished, r->shim_pid, r->pid,
      r->pid_start_time, r->started_ms, r->ended_ms, r->exit_code, r->signal, r->spawn_errno,
      r->user_cpu_us, r->system_cpu_us, r->max_rss_kb, r->boot_id, r->shim_start_time,
      r->spawn_step[0] != '\0' ? r->spawn_step : TQ_SHIM_STEP_NONE, r->memory_peak, r->cut_at[0],
      r->cut_errno[0], r->cut_at[1], r->cut_errno[1]);
  if (len < 0 || (size_t)len >= sizeof buf) return -1;
  if (len < g_record_len && (size_t)g_record_len <= sizeof buf) {
    memset(buf + len, 0, (size_t)(g_record_len - len));
    len = g_record_len;
  }
  for (size_t done = 0; done < (size_t)len;) {
    ssize_t n = pwrite(g_status_fd, buf + done, (size_t)len - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    done += (size_t)n;
  }
  if (len < g_record_len && ftruncate(g_status_fd, len) != 0) return -1;
  g_record_len = len;
  return 0;
}

/* The kernel's id of this boot (a UUID), or "unknown"; `buf` holds at least 37 bytes. */
static void read_boot_id(char* buf, size_t size) {
  snprintf(buf, size, "unknown");
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n <= 0) {
    snprintf(buf, size, "unknown");
    return;
  }
  buf[n] = '\0';
  for (ssize_t i = 0; i < n; i++)
    if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f') || buf[i] == '-'))
      buf[i] = '\0';
}

/* Marks the record finished, writes it and exits; the lock goes with the descriptor. The task's
 * cgroup, read for its peak memory, is removed and the PAM session, if one is open, closed
 * first: the task is gone. */
_Noreturn static void finish(void) {
  g_rec.memory_peak = cgroup_memory_peak();
  cgroup_remove();
  pam_finish();
  g_rec.finished = 1;
  g_rec.ended_ms = now_ms(CLOCK_REALTIME);
  if (write_record() != 0) {
    shim_log(3, "cannot write the status record: %s", strerror(errno));
    exit(TQ_SHIM_EXIT_FAILED);
  }
  exit(TQ_SHIM_EXIT_OK);
}

_Noreturn void spawn_failed(const char* step, int err) {
  g_rec.spawn_step = step;
  g_rec.spawn_errno = err;
  g_rec.exit_code =
      (err == EACCES || err == ENOEXEC) ? TQ_SHIM_EXIT_CODE_NOT_EXEC : TQ_SHIM_EXIT_CODE_NOT_FOUND;
  finish();
}

/* Copies the task's rusage into the record. */
static void record_rusage(const struct rusage* ru) {
  g_rec.user_cpu_us = (long long)ru->ru_utime.tv_sec * 1000000 + ru->ru_utime.tv_usec;
  g_rec.system_cpu_us = (long long)ru->ru_stime.tv_sec * 1000000 + ru->ru_stime.tv_usec;
  g_rec.max_rss_kb = ru->ru_maxrss;
}

/* Reads field `field` (1-based, >= 3) of /proc/PID/stat; 0 on success. */
static int read_stat_field(int pid, int field, unsigned long long* value) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char* p = strrchr(buf, ')'); /* the command name may contain anything, even ')' */
  if (p == NULL) return -1;
  p++;
  for (int f = 3; f < field; f++) { /* skip " STATE PPID ..." up to the wanted field */
    while (*p == ' ') p++;
    while (*p != ' ' && *p != '\0') p++;
  }
  char* end = NULL;
  *value = strtoull(p, &end, 10);
  return end == p ? -1 : 0;
}

/* A (pid, ppid) pair from /proc. */
struct proc {
  int pid, ppid;
};

/* Lists every process as (pid, ppid); returns the count, *out is malloc'ed (NULL on failure). */
static size_t scan_proc(struct proc** out) {
  size_t n = 0, cap = 0;
  *out = NULL;
  DIR* d = opendir("/proc");
  if (d == NULL) return 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    char* end = NULL;
    long pid = strtol(e->d_name, &end, 10);
    unsigned long long ppid = 0;
    if (*end != '\0' || pid <= 0 || read_stat_field((int)pid, 4, &ppid) != 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      struct proc* grown = realloc(*out, cap * sizeof **out);
      if (grown == NULL) break;
      *out = grown;
    }
    (*out)[n++] = (struct proc){(int)pid, (int)ppid};
  }
  closedir(d);
  return n;
}

/* True if pid is among the first n of set. */
static int contains(const int* set, size_t n, int pid) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == pid) return 1;
  return 0;
}

/* Sends sig to `pid` if it is still the process the scan saw as a child of `ppid`. The shim is
 * root and the task's processes are not: a pid that was freed between the scan and the signal
 * may already be another process's, anyone's. The pidfd pins one process; while it has not
 * exited, its pid and /proc entry are its own, so its parent is checked after the pidfd is open
 * and the signal goes through the pidfd. */
static void signal_if_child(int pid, int ppid, int sig) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return;
  unsigned long long now_ppid = 0;
  struct pollfd exited = {.fd = fd, .events = POLLIN};
  if (read_stat_field(pid, 4, &now_ppid) == 0 && (int)now_ppid == ppid && poll(&exited, 1, 0) == 0)
    syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
  close(fd);
}

/* Sends sig to the task's process group (while its leader is unreaped, so the pgid cannot
 * have been reused) and to every descendant of the shim, rescanning /proc while new ones
 * appear: that also finds processes that left the group or called setsid(). Each scan builds
 * the tree afresh from the shim itself (orphans are reparented to it, the subreaper), so a pid
 * seen once and reused since never makes another process's children look like the task's. */
static void kill_task(int sig, int child, int child_alive) {
  if (child_alive) kill(-child, sig);
  int self = getpid();
  int* signalled = NULL;
  size_t nsignalled = 0, cap = 0;
  for (int round = 0; round < kKillScanRounds; round++) {
    struct proc* procs = NULL;
    size_t n = scan_proc(&procs);
    int* tree = n > 0 ? malloc(n * sizeof *tree) : NULL;
    size_t ntree = 0;
    int found = 0;
    for (int grew = 1; grew && tree != NULL;) { /* close the tree over this snapshot */
      grew = 0;
      for (size_t i = 0; i < n; i++) {
        const struct proc* p = &procs[i];
        if (contains(tree, ntree, p->pid)) continue;
        if (p->ppid != self && !contains(tree, ntree, p->ppid)) continue;
        tree[ntree++] = p->pid;
        grew = 1;
        signal_if_child(p->pid, p->ppid, sig);
        if (contains(signalled, nsignalled, p->pid)) continue;
        found = 1;
        if (nsignalled == cap) {
          size_t want = cap ? cap * 2 : 64;
          int* bigger = realloc(signalled, want * sizeof *signalled);
          if (bigger == NULL) continue; /* signalled, just not remembered */
          signalled = bigger;
          cap = want;
        }
        signalled[nsignalled++] = p->pid;
      }
    }
    free(tree);
    free(procs);
    if (!found) break;
  }
  free(signalled);
}

/* Reaps every exited child; the task's own wait4 status and rusage go to *status and *ru.
 * Returns 1 when no child is left at all (the task and every descendant it left are gone). */
static int reap(int child, int* child_done, int* status, struct rusage* ru) {
  for (;;) {
    struct rusage r;
    int st = 0;
    pid_t p = wait4(-1, &st, WNOHANG, &r);
    if (p < 0 && errno == EINTR) continue;
    if (p <= 0) return p < 0 && errno == ECHILD;
    if (p == child) {
      *child_done = 1;
      *status = st;
      *ru = r;
    }
  }
}

/* Creates a file of the attempt's, owned by the task's user when it has one; its descriptor, or
 * -1 with errno. */
static int open_owned(const char* path, const struct options* o) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0 && o->switch_identity && fchown(fd, o->uid, o->gid) != 0) {
    const int e = errno;
    close(fd);
    fd = -1;
    errno = e;
  }
  return fd;
}

/* Creates a stream's file; 0, or -1 with errno. */
static int stream_open(struct stream* s) {
  s->file_fd = open_owned(s->path, s->owner);
  return s->file_fd >= 0 ? 0 : -1;
}

/* Notes that the stream's output is cut where its file ends, for `err`, and says so once. */
static void stream_cut(struct stream* s, const char* doing, int err) {
  s->write_errno = err;
  shim_log(4, "%s cut at %llu bytes: cannot %s %s: %s", s->tag == 'o' ? "stdout" : "stderr",
           s->written, doing, s->path, strerror(err));
}

/* Writes to a stream's file, creating it first; after a failure (a full disk, a quota, an I/O
 * error) the rest is cut: noted once and discarded, and the task goes on. */
static void stream_write(struct stream* s, const char* buf, size_t len) {
  if (s->write_errno != 0 || len == 0) return;
  if (s->file_fd < 0 && stream_open(s) != 0) {
    stream_cut(s, "create", errno);
    return;
  }
  while (len > 0) {
    ssize_t n = write(s->file_fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stream_cut(s, "write", n < 0 ? errno : ENOSPC);
      return;
    }
    s->written += (unsigned long long)n;
    buf += n;
    len -= (size_t)n;
  }
}

/* Copies where and why a stream was cut into the record (its slot: 0 stdout, 1 stderr). */
static void record_cut(const struct stream* s, int slot) {
  g_rec.cut_at[slot] = s->write_errno != 0 ? (long long)s->written : -1;
  g_rec.cut_errno[slot] = s->write_errno;
}

/* Keeps the last `half` bytes of what passes through in the ring, allocating it on first use. */
static void ring_push(struct stream* s, const char* buf, size_t len) {
  if (s->ring == NULL && !s->ring_failed) {
    s->ring = (s->half > 0 && s->half <= SIZE_MAX) ? malloc((size_t)s->half) : NULL;
    s->ring_failed = s->ring == NULL; /* then the whole tail counts as cut */
  }
  if (s->ring == NULL) return;
  size_t cap = (size_t)s->half;
  if (len >= cap) {
    memcpy(s->ring, buf + len - cap, cap);
    s->ring_start = 0;
    s->ring_len = cap;
    return;
  }
  size_t end = (s->ring_start + s->ring_len) % cap;
  size_t first = len < cap - end ? len : cap - end;
  memcpy(s->ring + end, buf, first);
  memcpy(s->ring, buf + first, len - first);
  if (s->ring_len + len > cap) {
    s->ring_start = (s->ring_start + s->ring_len + len - cap) % cap;
    s->ring_len = cap;
  } else {
    s->ring_len += len;
  }
}

/* How far a stream's file is while it holds exactly what was written. */
static unsigned long long stream_position(const struct stream* s) {
  return s->unlimited ? s->total : s->head;
}

/* Appends a line to the order file, creating it first; a failure ends the order. */
static void order_append(struct order* o, const char* line, size_t len) {
  if (o->fd < 0) o->fd = open_owned(o->path, o->owner);
  if (o->fd < 0 || write_all(o->fd, line, len) != 0) o->over = 1;
}

/* Notes that `s` is about to be written to: a switch from the other stream is recorded first.
 * Called with the bytes just read, before they reach the file. */
static void order_before(struct stream* s) {
  struct order* o = s->order;
  if (o->path == NULL || o->over) return;
  if (o->last != NULL && o->last != s) {
    char line[32];
    int len = snprintf(line, sizeof line, "%c %llu\n", o->last->tag, stream_position(o->last));
    order_append(o, line, (size_t)len);
  }
  o->last = s;
}

/* Once `s` goes past what its file keeps in place (half the output limit; the rest may be cut),
 * closes its run and ends the order: its file no longer says where later bytes are. */
static void order_after(struct stream* s) {
  struct order* o = s->order;
  if (o->path == NULL || o->over || s->unlimited || s->total <= s->head) return;
  char line[40];
  int len = snprintf(line, sizeof line, "%c %llu\nend\n", s->tag, s->head);
  order_append(o, line, (size_t)len);
  o->over = 1;
}

/* Reads what the pipe has and files it: head to the file, the rest through the ring. */
static void stream_pump(struct stream* s) {
  static char buf[kChunk];
  ssize_t n = read(s->pipe_fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(s->pipe_fd);
    s->pipe_fd = -1;
    return;
  }
  size_t len = (size_t)n;
  const char* p = buf;
  order_before(s);
  s->total += len;
  if (!s->unlimited && s->head < s->half) {
    size_t room = s->half - s->head < len ? (size_t)(s->half - s->head) : len;
    stream_write(s, p, room);
    s->head += room;
    p += room;
    len -= room;
  }
  if (s->unlimited)
    stream_write(s, p, len);
  else if (len > 0)
    ring_push(s, p, len);
  order_after(s);
}

/* Appends the cut marker (if anything was dropped) and the tail, then closes the file. */
static void stream_finish(struct stream* s) {
  if (s->pipe_fd >= 0) close(s->pipe_fd);
  if (!s->unlimited) {
    unsigned long long cut = s->total - s->head - s->ring_len;
    if (cut > 0) {
      char marker[64];
      int len = snprintf(marker, sizeof marker, "\n[tq: %llu bytes cut]\n", cut);
      stream_write(s, marker, (size_t)len);
    }
    size_t cap = (size_t)s->half;
    size_t first = s->ring_len < cap - s->ring_start ? s->ring_len : cap - s->ring_start;
    if (s->ring_len > 0) {
      stream_write(s, s->ring + s->ring_start, first);
      stream_write(s, s->ring, s->ring_len - first);
    }
  }
  free(s->ring);
  if (s->file_fd >= 0) close(s->file_fd);
}

/* Reads the task's environment from `fd` (NAME=value entries, each ended by a NUL; a last
 * entry without one counts too) and closes it; NULL with errno when it cannot. */
static char** read_env(int fd) {
  char* buf = NULL;
  size_t len = 0, cap = 0;
  int err = 0;
  while (err == 0) {
    if (cap - len < kChunk) {
      cap = cap == 0 ? kChunk : cap * 2;
      char* grown = realloc(buf, cap + 1);
      if (grown == NULL) {
        err = ENOMEM;
        break;
      }
      buf = grown;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno != EINTR) err = errno;
    if (n == 0) break;
    if (n > 0) len += (size_t)n;
    if (len > TQ_SHIM_ENV_MAX_BYTES) err = E2BIG;
  }
  close(fd);
  if (err != 0) {
    free(buf);
    errno = err;
    return NULL;
  }
  buf[len] = '\0'; /* the loop's first pass allocated it */
  size_t count = 0;
  for (size_t i = 0; i < len; i++)
    if (buf[i] == '\0') count++;
  if (len > 0 && buf[len - 1] != '\0') count++;
  char** env = calloc(count + 1, sizeof *env);
  if (env == NULL) {
    free(buf);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < len; i += strlen(buf + i) + 1) env[k++] = buf + i;
  if (k == 0) free(buf);
  return env; /* buf lives as long as the shim: the child execs with it */
}

/* Makes sure 0, 1 and 2 are open so no file of ours lands on a standard descriptor. */
static void ensure_std_fds(void) {
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) exit(TQ_SHIM_EXIT_FAILED);
}

/* Reports why the status record is unusable and exits: there is nothing to record into. */
_Noreturn static void status_failed(const char* what, const char* path) {
  shim_log(3, "cannot %s the status record %s: %s", what, path, strerror(errno));
  exit(TQ_SHIM_EXIT_FAILED);
}

/* Opens and locks the status file and writes the first "running" record. With `fd` >= 0 the
 * daemon already created and locked the file and handed it over, so the lock is held from before
 * this process existed; the descriptor must be that very file. */
static void open_status(const char* path, int fd) {
  if (fd >= 0) {
    g_status_fd = fd;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) status_failed("use the descriptor of", path);
  } else {
    g_status_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (g_status_fd < 0) status_failed("open", path);
  }
  struct stat st, by_path;
  if (fstat(g_status_fd, &st) != 0) status_failed("stat", path);
  g_record_len = st.st_size > INT_MAX ? INT_MAX : (int)st.st_size;
  if (!S_ISREG(st.st_mode)) {
    errno = EINVAL;
    status_failed("use", path);
  }
  if (fd >= 0) {
    if (stat(path, &by_path) != 0) status_failed("stat", path);
    if (st.st_dev != by_path.st_dev || st.st_ino != by_path.st_ino) {
      errno = EBADF;
      status_failed("match --status-fd to", path);
    }
  }
  /* Blocking: a daemon probing the lock holds it only for an instant. On a handed-over
   * descriptor this lock is already ours (one open file, one lock) and returns at once. */
  while (flock(g_status_fd, LOCK_EX) != 0)
    if (errno != EINTR) status_failed("lock", path);
  g_rec =
      (struct record){.shim_pid = getpid(), .exit_code = -1, .spawn_step = "", .cut_at = {-1, -1}};
  read_boot_id(g_rec.boot_id, sizeof g_rec.boot_id);
  read_stat_field(g_rec.shim_pid, 22, &g_rec.shim_start_time);
  if (write_record() != 0) {
    if (errno != ENOSPC && errno != EDQUOT) status_failed("write", path);
    shim_log(3, "cannot write the status record %s: %s; the task is not started", path,
             strerror(errno));
    exit(TQ_SHIM_EXIT_NO_SPACE);
  }
}

/* What the main loop tracks about the task and the processes it left. */
struct supervision {
  int child, child_done, status, no_children;
  struct rusage ru;
  long long settled_at; /* monotonic ms when nothing of the task had to be waited for any more */
  long long kill_at;    /* monotonic ms when KILL goes out; 0: not scheduled */
  int killed;           /* KILL went out; it is repeated while descendants remain */
};

/* Sends `sig` to every process of the task; the group only while its leader is unreaped. */
static void signal_all(struct supervision* v, int sig) {
  if (sig == SIGKILL) cgroup_kill(); /* at once, forks in flight included */
  kill_task(sig, v->child, !v->child_done);
  if (sig == SIGKILL) v->killed = 1;
}

/* Schedules KILL `grace_ms` from now unless it is due sooner already. */
static void schedule_kill(struct supervision* v, long long grace_ms) {
  long long at = now_ms(CLOCK_MONOTONIC) + grace_ms;
  if (v->kill_at == 0 || at < v->kill_at) v->kill_at = at;
}

/* The signal a stop sends first: the one the daemon's TQ_SHIM_SIG_TERMINATE carries in its value
 * (tq cancel --signal), else TERM. */
static int stop_signal(const struct signalfd_siginfo* si) {
  int sig = si->ssi_code == SI_QUEUE ? si->ssi_int : 0;
  return sig > 0 && sig < 32 && sig != SIGKILL && sig != SIGSTOP ? sig : SIGTERM;
}

/* Handles the signals that arrived: reaping, and the daemon's TERM and KILL requests. A stop
 * always ends every descendant (KILL after the grace even with no daemon to send it); when the
 * main process ends, the leftovers get TERM and KILL after the grace unless they are kept. */
static void on_signals(int sigfd, struct supervision* v, const struct options* o) {
  struct signalfd_siginfo si;
  while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
    if (si.ssi_signo == SIGCHLD) {
      int was_done = v->child_done;
      v->no_children = reap(v->child, &v->child_done, &v->status, &v->ru);
      if (v->child_done && !was_done && !o->keep_background && !v->no_children) {
        signal_all(v, SIGTERM);
        schedule_kill(v, o->kill_grace_ms);
      }
    } else if (v->child_done && o->keep_background) {
      continue; /* the attempt is over; what it left running is kept on purpose */
    } else if (si.ssi_signo == TQ_SHIM_SIG_KILL) {
      schedule_kill(v, 0);
      signal_all(v, SIGKILL);
    } else {
      signal_all(v, stop_signal(&si));
      schedule_kill(v, o->kill_grace_ms);
    }
  }
}

/* True while the shim must stay for the task's processes: the main one, and unless they are
 * kept (and no stop was asked), its leftover descendants. */
static int must_wait(const struct supervision* v, const struct options* o) {
  if (!v->child_done) return 1;
  return !v->no_children && (!o->keep_background || v->kill_at != 0);
}

/* Starts the task, supervises it until it is gone, then writes the final record. */
_Noreturn void supervise(int argc, char** argv) {
  ensure_std_fds();
  /* Its name in ps and top: tqd executes it as /proc/self/fd/N, which would name it "N". */
  prctl(PR_SET_NAME, "tq-shim");
  struct options o;
  parse_args(argc, argv, &o);
  shim_log_setup(o.log_name, o.log_journal);

  sigset_t handled; /* blocked from the start so a TERM during set-up is not lost */
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, TQ_SHIM_SIG_TERMINATE);
  sigaddset(&handled, TQ_SHIM_SIG_KILL);
  sigprocmask(SIG_BLOCK, &handled, NULL);
  open_status(o.status, o.status_fd);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a file size limit (pam_limits) fails a write, never the shim */

  struct order order = {.path = o.order, .owner = &o, .fd = -1};
  struct stream out = {.file_fd = -1,
                       .path = o.out,
                       .owner = &o,
                       .unlimited = o.output_max == 0,
                       .half = o.output_max / 2,
                       .tag = 'o',
                       .order = &order};
  struct stream err = {.file_fd = -1,
                       .path = o.err,
                       .owner = &o,
                       .unlimited = o.output_max == 0,
                       .half = o.output_max / 2,
                       .tag = 'e',
                       .order = &order};
  static char** env = NULL; /* static: held to the end, as leak checkers see */
  if (o.env_fd >= 0 && (env = read_env(o.env_fd)) == NULL) spawn_failed(TQ_SHIM_STEP_SETUP, errno);
  if (o.pam_service != NULL) env = pam_begin(&o, env);
  cgroup_create(&o);
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  int sigfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd < 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(exec_pipe, O_CLOEXEC) != 0)
    spawn_failed(TQ_SHIM_STEP_SETUP, errno);

  g_rec.started_ms = now_ms(CLOCK_REALTIME);
  pid_t child = fork();
  if (child < 0) spawn_failed(TQ_SHIM_STEP_FORK, errno);
  if (child == 0) run_child(&o, env, out_pipe[1], err_pipe[1], exec_pipe[1]);
  setpgid(child, child); /* also in the parent, so kill(-child) works from here on */
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  out.pipe_fd = out_pipe[0];
  err.pipe_fd = err_pipe[0];
  g_rec.pid = child;
  read_stat_field(child, 22, &g_rec.pid_start_time);
  /* Named at once, so a daemon that finds this shim dead can find and end the task. */
  if (write_record() != 0) shim_log(3, "cannot update the status record: %s", strerror(errno));

  struct supervision v;
  memset(&v, 0, sizeof v);
  v.child = child;
  struct child_error failure = {0, 0};
  ssize_t n;
  do n = read(exec_pipe[0], &failure, sizeof failure);
  while (n < 0 && errno == EINTR);
  close(exec_pipe[0]);
  if (n == (ssize_t)sizeof failure) {
    while (wait4(child, &v.status, 0, &v.ru) < 0 && errno == EINTR) {
    }
    record_rusage(&v.ru);
    spawn_failed(child_step_name(failure.step), failure.err);
  }
  for (;;) {
    const long long now = now_ms(CLOCK_MONOTONIC);
    if (v.kill_at != 0 && now >= v.kill_at && !v.no_children &&
        (!v.killed || now >= v.kill_at + kKillRetryMs)) {
      signal_all(&v, SIGKILL); /* again while descendants remain: one may have just forked */
      v.kill_at = now;
    }
    int timeout = -1;
    if (must_wait(&v, &o)) {
      v.settled_at = 0;
      if (v.kill_at != 0) {
        long long left = (v.killed ? v.kill_at + kKillRetryMs : v.kill_at) - now;
        timeout = left <= 0 ? 0 : (int)(left < kKillRetryMs ? left : kKillRetryMs);
      }
    } else {
      if (out.pipe_fd < 0 && err.pipe_fd < 0) break;
      if (v.settled_at == 0) v.settled_at = now;
      long long left = v.settled_at + kDrainMaxMs - now;
      if (left <= 0) break;
      timeout = left < kDrainIdleMs ? (int)left : kDrainIdleMs;
    }
    struct pollfd fds[3] = {{.fd = sigfd, .events = POLLIN},
                            {.fd = out.pipe_fd, .events = POLLIN},
                            {.fd = err.pipe_fd, .events = POLLIN}};
    int ready = poll(fds, 3, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      shim_log(3, "poll: %s", strerror(errno));
      while (!v.child_done && wait4(child, &v.status, 0, &v.ru) < 0 && errno == EINTR) {
      }
      break;
    }
    if (ready == 0 && !must_wait(&v, &o)) break; /* quiet for kDrainIdleMs once all settled */
    if (fds[1].revents != 0) stream_pump(&out);
    if (fds[2].revents != 0) stream_pump(&err);
    if (fds[0].revents != 0) on_signals(sigfd, &v, &o);
  }

  stream_finish(&out);
  stream_finish(&err);
  record_cut(&out, 0);
  record_cut(&err, 1);
  if (order.fd >= 0) close(order.fd);
  record_rusage(&v.ru);
  g_rec.exit_code = WIFEXITED(v.status) ? WEXITSTATUS(v.status) : -1;
  g_rec.signal = WIFSIGNALED(v.status) ? WTERMSIG(v.status) : 0;
  finish();
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], TQ_FORK_SERVER_ARG) == 0) return fork_server(argc, argv);
  supervise(argc, argv);
}
