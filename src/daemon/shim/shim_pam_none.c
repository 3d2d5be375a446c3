/* The PAM side of the static tq-shim: none. A statically linked program cannot load libpam (the
 * library would bring a second C library into the process), so tqd starts tq-shim-pam, the same
 * shim linked dynamically, for every task that has a PAM session; this build refuses one. */
#include <errno.h>

#include "shim.h"
#include "shim_record.h"

char** pam_begin(struct options* o, char** env) {
  (void)env;
  shim_log(3,
           "pam: this shim is linked statically and cannot open the PAM session of %s; "
           "tqd starts tq-shim-pam for such tasks",
           o->user);
  spawn_failed(TQ_SHIM_STEP_PAM, ELIBACC);
}

void pam_finish(void) {}
