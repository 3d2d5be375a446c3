/* tq-shim --fork-server FD: makes each shim tqd asks for by clone, from this small process,
 * instead of tqd executing tq-shim for each task (the protocol is in shim_record.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

/* In the new shim: its pid to tqd, a session of its own, the status record on
 * TQ_SHIM_STATUS_FD and the environment on TQ_SHIM_ENV_FD (both without close-on-exec, as
 * posix_spawn's dup2 leaves them), nothing else of the server's; then the shim itself. */
_Noreturn static void become_shim(int sock, const int fds[3], int argc, char** argv,
                                  char** server_argv) {
  const int status_fd = fds[0], env_fd = fds[1];
  const pid_t pid = getpid();
  ssize_t n;
  do n = write(fds[2], &pid, sizeof pid);
  while (n < 0 && errno == EINTR);
  close(fds[2]);
  if (n != (ssize_t)sizeof pid) _exit(TQ_SHIM_EXIT_FAILED); /* tqd did not learn of it */
  close(sock);
  /* ps shows "tq-shim", not the server's "tq-shim --fork-server FD" (its arguments, which the
   * kernel keeps one after the other, are blanked). */
  for (int i = 1; server_argv[i] != NULL; i++) memset(server_argv[i], '\0', strlen(server_argv[i]));
  setsid();
  const int env_high = fcntl(env_fd, F_DUPFD_CLOEXEC, TQ_SHIM_ENV_FD + 1);
  if (env_high < 0 || dup2(status_fd, TQ_SHIM_STATUS_FD) < 0 || dup2(env_high, TQ_SHIM_ENV_FD) < 0)
    _exit(TQ_SHIM_EXIT_FAILED);
  close(env_high);
  if (status_fd != TQ_SHIM_STATUS_FD && status_fd != TQ_SHIM_ENV_FD) close(status_fd);
  if (env_fd != TQ_SHIM_STATUS_FD && env_fd != TQ_SHIM_ENV_FD) close(env_fd);
  supervise(argc, argv);
}

/* One request: its arguments into argv (after "tq-shim"), its three descriptors into fds (-1
 * for each one missing). 0 when the request is whole. */
static int read_request(int sock, char* buf, char** argv, int* argc, int fds[3]) {
  union { /* aligned for the cmsghdr it holds */
    char bytes[CMSG_SPACE(3 * sizeof(int))];
    struct cmsghdr header;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = TQ_FORK_SERVER_MAX_BYTES};
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.bytes,
                       .msg_controllen = sizeof control.bytes};
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n == 0) exit(0); /* tqd closed the socket, or is gone */
  if (n < 0) exit(TQ_SHIM_EXIT_FAILED);
  fds[0] = fds[1] = fds[2] = -1;
  int nfds = 0;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int i = 0; i < count; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (nfds < 3)
        fds[nfds] = fd;
      else
        close(fd);
      nfds++;
    }
  }
  if (nfds != 3 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || n == 0 || buf[n - 1] != '\0')
    return EINVAL;
  *argc = 0;
  argv[(*argc)++] = (char*)"tq-shim";
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
    if (*argc >= TQ_FORK_SERVER_MAX_ARGS) return E2BIG;
    argv[(*argc)++] = buf + i;
  }
  argv[*argc] = NULL;
  return 0;
}

int fork_server(int server_argc, char** server_argv) {
  const char* const fd_text = server_argv[server_argc - 1];
  char* end = NULL;
  const long sock = strtol(fd_text, &end, 10);
  if (end == fd_text || *end != '\0' || sock < 0 || sock > 1024) return TQ_SHIM_EXIT_USAGE;
  static char buf[TQ_FORK_SERVER_MAX_BYTES];
  static char* argv[TQ_FORK_SERVER_MAX_ARGS + 1];
  prctl(PR_SET_NAME, "tq-fork-server"); /* not "N", of /proc/self/fd/N, in ps and top */
  const int ready = TQ_FORK_SERVER_READY;
  if (send((int)sock, &ready, sizeof ready, MSG_NOSIGNAL) != (ssize_t)sizeof ready)
    return TQ_SHIM_EXIT_FAILED;
  for (;;) {
    int argc = 0, fds[3];
    /* A request that is not whole makes no shim: the pipe's end of file tells tqd so. */
    if (read_request((int)sock, buf, argv, &argc, fds) == 0) {
      /* CLONE_PARENT: tqd is the shim's parent, reaps it and reads its exit status. */
      const pid_t pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
      if (pid == 0) become_shim((int)sock, fds, argc, argv, server_argv);
    }
    for (int i = 0; i < 3; i++)
      if (fds[i] >= 0) close(fds[i]);
  }
}
