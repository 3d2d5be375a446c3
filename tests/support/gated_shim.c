/* tq-test-gated-shim: stands in for tq-shim in the restart tests. While the file named by
   $TQ_TEST_SHIM_GATE does not exist it waits, holding whatever descriptors the daemon handed
   it, then becomes the real shim (TQ_SHIM_PATH) with the same arguments. It plays a shim that
   the daemon started but that has not yet written its first status record. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  (void)argc;
  const char* gate = getenv("TQ_TEST_SHIM_GATE");
  const struct timespec tick = {0, 10 * 1000 * 1000};
  while (gate != NULL && access(gate, F_OK) != 0) nanosleep(&tick, NULL);
  argv[0] = (char*)"tq-shim";
  execv(TQ_SHIM_PATH, argv);
  perror("tq-test-gated-shim: exec " TQ_SHIM_PATH);
  return 1;
}
