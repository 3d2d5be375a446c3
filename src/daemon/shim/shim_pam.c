/* The PAM session of a task's user (service --pam-service), opened by tq-shim as root before it
 * forks the task and closed when the task is gone: the shim is the one process that lives
 * exactly as long as the task. libpam is loaded only then: a shim without a PAM session (every
 * task of a per-user daemon) starts without it and the libraries it pulls in. */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "shim_record.h"

/* The PAM conversation of a task that has no terminal: messages go to the shim's stderr (the
 * daemon's log), and a question gets no answer. */
static int pam_quiet(int n, const struct pam_message** msg, struct pam_response** resp,
                     void* data) {
  (void)data;
  *resp = NULL;
  for (int i = 0; i < n; i++) {
    if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF || msg[i]->msg_style == PAM_PROMPT_ECHO_ON)
      return PAM_CONV_ERR;
    shim_log(4, "pam: %s", msg[i]->msg);
  }
  return PAM_SUCCESS;
}

static pam_handle_t* g_pam; /* the open session; NULL when there is none */

/* The functions of libpam the shim calls, found in it once it is loaded. */
static struct {
  __typeof__(&pam_start_confdir) start_confdir;
  __typeof__(&pam_acct_mgmt) acct_mgmt;
  __typeof__(&pam_setcred) setcred;
  __typeof__(&pam_open_session) open_session;
  __typeof__(&pam_close_session) close_session;
  __typeof__(&pam_getenvlist) getenvlist;
  __typeof__(&pam_strerror) strerror;
  __typeof__(&pam_end) end;
} pam;

/* Loads libpam and finds its functions; 0, or -1 with why on stderr. */
static int load_pam(void) {
  void* lib = dlopen("libpam.so.0", RTLD_NOW | RTLD_LOCAL);
  const struct {
    void** to;
    const char* name;
  } wanted[] = {
      {(void**)&pam.start_confdir, "pam_start_confdir"},
      {(void**)&pam.acct_mgmt, "pam_acct_mgmt"},
      {(void**)&pam.setcred, "pam_setcred"},
      {(void**)&pam.open_session, "pam_open_session"},
      {(void**)&pam.close_session, "pam_close_session"},
      {(void**)&pam.getenvlist, "pam_getenvlist"},
      {(void**)&pam.strerror, "pam_strerror"},
      {(void**)&pam.end, "pam_end"},
  };
  for (size_t i = 0; lib != NULL && i < sizeof wanted / sizeof wanted[0]; i++)
    if ((*wanted[i].to = dlsym(lib, wanted[i].name)) == NULL) lib = NULL;
  if (lib != NULL) return 0;
  shim_log(3, "pam: cannot load libpam.so.0: %s", dlerror());
  return -1;
}

/* Takes the groups this process holds now, the task's and what the PAM credentials (pam_group)
 * added, as the task's; 0 or -1 with errno. */
static int take_groups(struct options* o) {
  const int n = getgroups(0, NULL);
  gid_t* all = n >= 0 ? calloc((size_t)n + 1, sizeof *all) : NULL;
  if (all == NULL || getgroups(n, all) != n) {
    free(all);
    return -1;
  }
  free(o->groups);
  o->groups = all;
  o->ngroups = (size_t)n;
  return 0;
}

char** pam_begin(struct options* o, char** env) {
  static const struct pam_conv conv = {pam_quiet, NULL};
  if (load_pam() != 0) spawn_failed(TQ_SHIM_STEP_PAM, ELIBACC);
  int rc = pam.start_confdir(o->pam_service, o->user, &conv, o->pam_dir, &g_pam);
  const char* what = "start";
  if (rc == PAM_SUCCESS && (rc = pam.acct_mgmt(g_pam, PAM_SILENT)) != PAM_SUCCESS) what = "account";
  /* The task's groups first, as cron's initgroups, so the credentials add to them. */
  if (rc == PAM_SUCCESS && o->switch_identity && setgroups(o->ngroups, o->groups) != 0) {
    const int err = errno;
    shim_log(3, "pam: cannot take the groups of %s: %s", o->user, strerror(err));
    pam.end(g_pam, PAM_SUCCESS);
    g_pam = NULL;
    spawn_failed(TQ_SHIM_STEP_IDENTITY, err);
  }
  if (rc == PAM_SUCCESS &&
      (rc = pam.setcred(g_pam, PAM_ESTABLISH_CRED | PAM_SILENT)) != PAM_SUCCESS)
    what = "credentials";
  if (rc == PAM_SUCCESS && (rc = pam.open_session(g_pam, PAM_SILENT)) != PAM_SUCCESS) {
    what = "session";
    pam.setcred(g_pam, PAM_DELETE_CRED | PAM_SILENT);
  }
  if (rc == PAM_SUCCESS && o->switch_identity && take_groups(o) != 0) {
    const int err = errno;
    shim_log(3, "pam: cannot read the groups of %s: %s", o->user, strerror(err));
    pam_finish();
    spawn_failed(TQ_SHIM_STEP_SETUP, err);
  }
  if (rc != PAM_SUCCESS) {
    shim_log(3, "pam %s of %s (service %s): %s", what, o->user, o->pam_service,
             g_pam != NULL ? pam.strerror(g_pam, rc) : "cannot start");
    if (g_pam != NULL) pam.end(g_pam, rc);
    g_pam = NULL;
    spawn_failed(TQ_SHIM_STEP_PAM, EACCES);
  }
  static char** merged = NULL; /* static: held to the end, as leak checkers see */
  char** extra = pam.getenvlist(g_pam);
  size_t n = 0, nextra = 0;
  while (env != NULL && env[n] != NULL) n++;
  while (extra != NULL && extra[nextra] != NULL) nextra++;
  merged = calloc(n + nextra + 1, sizeof *merged);
  if (merged == NULL) spawn_failed(TQ_SHIM_STEP_SETUP, ENOMEM);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) merged[k++] = env[i];
  for (size_t i = 0; i < nextra; i++) { /* the task's own value wins */
    const size_t len = strcspn(extra[i], "=");
    int present = 0;
    for (size_t j = 0; j < n && !present; j++)
      present = strncmp(env[j], extra[i], len) == 0 && env[j][len] == '=';
    if (!present) merged[k++] = extra[i];
  }
  return merged;
}

void pam_finish(void) {
  if (g_pam == NULL) return;
  int rc = pam.close_session(g_pam, PAM_SILENT);
  if (rc != PAM_SUCCESS) shim_log(3, "pam: closing the session: %s", pam.strerror(g_pam, rc));
  pam.setcred(g_pam, PAM_DELETE_CRED | PAM_SILENT);
  pam.end(g_pam, rc);
  g_pam = NULL;
}
