/* tq-test-gated-shim: stands in for tq-shim in the restart tests. While the file named by
   TQ_TEST_SHIM_GATE in the task's environment does not exist it waits, holding whatever
   descriptors the daemon handed it, then becomes the real shim (TQ_SHIM_PATH) with the same
   arguments. It plays a shim that the daemon started but that has not yet written its first
   status record. It is no fork server (shim_record.h): asked to be one, it exits, and tqd then
   starts each shim itself, through this stand-in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/shim/shim_record.h"

/* The gate's path from the task's environment, which the daemon hands the shim on
   TQ_SHIM_ENV_FD (read with pread, so the real shim still reads it whole); NULL when absent. */
static const char* gate_path(void) {
  static char env[1 << 20];
  const ssize_t n = pread(TQ_SHIM_ENV_FD, env, sizeof env - 1, 0);
  if (n <= 0) return NULL;
  env[n] = '\0';
  static const char key[] = "TQ_TEST_SHIM_GATE=";
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(env + i) + 1)
    if (strncmp(env + i, key, sizeof key - 1) == 0) return env + i + sizeof key - 1;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], TQ_FORK_SERVER_ARG) == 0) return 1;
  const char* gate = gate_path();
  const struct timespec tick = {0, 10 * 1000 * 1000};
  while (gate != NULL && access(gate, F_OK) != 0) nanosleep(&tick, NULL);
  argv[0] = (char*)"tq-shim";
  execv(TQ_SHIM_PATH, argv);
  perror("tq-test-gated-shim: exec " TQ_SHIM_PATH);
  return 1;
}
