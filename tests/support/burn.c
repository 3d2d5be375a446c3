/* tq-test-burn MIB SECONDS: touches MIB mebibytes of memory, then burns SECONDS of CPU time.
   The integration tests use it to check the CPU time and peak RSS an attempt reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: tq-test-burn MIB SECONDS\n");
    return 2;
  }
  const size_t bytes = (size_t)atol(argv[1]) << 20;
  const double seconds = atof(argv[2]);
  volatile char* p = malloc(bytes);
  if (bytes && !p) return 3;
  for (size_t i = 0; i < bytes; i += 4096) p[i] = (char)i;
  struct timespec ts;
  double spent = 0;
  volatile unsigned long x = 0;
  while (spent < seconds) {
    for (int i = 0; i < 100000; ++i) x += (unsigned long)i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    spent = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
  }
  free((void*)p);
  return x == 0 ? 4 : 0; /* reads x, so no compiler drops the loop (it is never 0 here) */
}
