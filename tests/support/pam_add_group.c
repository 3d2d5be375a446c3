/* A PAM module for the tests, standing in for pam_group(8): its credentials step adds the group
 * `gid=N` (its one argument) to the calling process's groups, as pam_group does from
 * /etc/security/group.conf. Every other step succeeds and does nothing. */
#define _GNU_SOURCE
#include <grp.h>
#include <security/pam_modules.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Adds the group of `gid=N` to this process's groups on PAM_ESTABLISH_CRED. */
PAM_EXTERN int pam_sm_setcred(pam_handle_t* pamh, int flags, int argc, const char** argv) {
  (void)pamh;
  if (!(flags & PAM_ESTABLISH_CRED) || argc != 1 || strncmp(argv[0], "gid=", 4) != 0)
    return PAM_SUCCESS;
  gid_t groups[65536];
  const int n = getgroups(65535, groups);
  if (n < 0) return PAM_CRED_ERR;
  groups[n] = (gid_t)strtoul(argv[0] + 4, NULL, 10);
  return setgroups((size_t)n + 1, groups) == 0 ? PAM_SUCCESS : PAM_CRED_ERR;
}

/* The account check: everyone passes. */
PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t* pamh, int flags, int argc, const char** argv) {
  (void)pamh, (void)flags, (void)argc, (void)argv;
  return PAM_SUCCESS;
}

/* Authentication: everyone passes. */
PAM_EXTERN int pam_sm_authenticate(pam_handle_t* pamh, int flags, int argc, const char** argv) {
  (void)pamh, (void)flags, (void)argc, (void)argv;
  return PAM_SUCCESS;
}
