/* The PAM side of the static tq-shim. A statically linked program cannot load libpam: the
 * library would bring a second C library into the process. So the static shim opens no session
 * itself; it hands a task that needs one to tq-shim-pam, the same shim linked dynamically,
 * installed beside it, before it has opened or changed anything. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

int pam_handover(char** argv) {
  char path[PATH_MAX];
  const char suffix[] = "-pam";
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof suffix);
  if (n <= 0 || (size_t)n >= sizeof path - sizeof suffix) {
    const int err = n < 0 ? errno : ENAMETOOLONG;
    fprintf(stderr, "tq-shim: pam: cannot find this shim's own path: %s\n", strerror(err));
    return err;
  }
  memcpy(path + n, suffix, sizeof suffix);
  execv(path, argv);
  const int err = errno;
  fprintf(stderr, "tq-shim: pam: cannot run %s: %s\n", path, strerror(err));
  return err;
}

char** pam_begin(struct options* o, char** env) {
  (void)o;
  (void)env;
  spawn_failed(TQ_SHIM_STEP_PAM, ELIBACC); /* pam_handover runs first; never reached */
}

void pam_finish(void) {}
