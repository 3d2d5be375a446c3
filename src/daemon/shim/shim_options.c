/* tq-shim's command line: every option checked strictly, so a bad one is a usage error that
 * touches no file. The options are listed in shim_record.h's contract and in usage(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "shim_record.h"

/* The default of --kill-grace, as tqd's kill_grace. */
static const long long kDefaultKillGraceMs = 10000;

/* Prints a usage error (`what` names the culprit, may be "") and exits; no file is touched. */
_Noreturn static void usage(const char* msg, const char* what) {
  fprintf(stderr,
          "tq-shim: %s%s\nusage: tq-shim --status PATH [--status-fd N] --stdout PATH --stderr PATH "
          "[--order PATH] [--stdin PATH] --output-max BYTES [--cwd DIR [--cwd-fallback DIR]] "
          "[--kill-grace MS] "
          "[--keep-background] "
          "[--nofile N] [--env-fd N] [--uid N --gid N --groups N[,N...]] "
          "[--pam-service NAME --user NAME [--pam-dir DIR]] [--nice N] [--ioprio N] "
          "[--limit-nofile N] [--limit-nproc N] [--limit-core BYTES] "
          "[--cgroup DIR [--memory-max BYTES] [--cpu-weight N] [--pids-max N]] "
          "[--log-name NAME] [--log-style plain|journal] -- "
          "PROGRAM [ARG...]\n",
          msg, what);
  exit(TQ_SHIM_EXIT_USAGE);
}

int parse_count(const char* text, unsigned long long* out) {
  char* end = NULL;
  errno = 0;
  *out = strtoull(text, &end, 10);
  return (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0) ? -1 : 0;
}

/* The descriptor number `text` (3 to 65535) of `option`; a usage error otherwise. */
static int parse_fd(const char* text, const char* option) {
  unsigned long long fd = 0;
  if (parse_count(text, &fd) != 0 || fd < 3 || fd > 65535) {
    static char msg[64];
    snprintf(msg, sizeof msg, "%s needs a descriptor number from 3 to 65535, not ", option);
    usage(msg, text);
  }
  return (int)fd;
}

/* Parses the id `text` of `option` (0 to 2^32 - 2: -1 means "unchanged" to the set*id calls). */
static unsigned parse_id(const char* text, const char* option) {
  unsigned long long id = 0;
  if (parse_count(text, &id) != 0 || id >= 0xffffffffULL) {
    static char msg[64];
    snprintf(msg, sizeof msg, "%s needs a numeric id below 4294967295, not ", option);
    usage(msg, text);
  }
  return (unsigned)id;
}

/* Parses --groups: one or more group ids, comma-separated, at most NGROUPS_MAX. */
static void parse_groups(const char* text, struct options* o) {
  size_t count = 1;
  for (const char* p = text; *p != '\0'; p++) count += *p == ',';
  if (count > 65536) usage("--groups names more than 65536 groups: ", text);
  o->groups = calloc(count, sizeof *o->groups);
  char* copy = strdup(text);
  if (o->groups == NULL || copy == NULL) usage("out of memory for --groups ", text);
  char* rest = copy;
  for (char* item; (item = strsep(&rest, ",")) != NULL;)
    o->groups[o->ngroups++] = parse_id(item, "--groups");
  free(copy);
}

/* True for a nice value: an optional '-' and a decimal number from -20 to 19. */
static int valid_nice(const char* text) {
  unsigned long long n = 0;
  const int negative = text[0] == '-';
  if (parse_count(text + negative, &n) != 0) return 0;
  return negative ? n <= 20 : n <= 19;
}

void parse_args(int argc, char** argv, struct options* o) {
  memset(o, 0, sizeof *o);
  const char *max = NULL, *status_fd = NULL, *env_fd = NULL, *grace = NULL, *nofile = NULL;
  const char *uid = NULL, *gid = NULL, *groups = NULL, *log_style = NULL;
  const struct {
    const char* name;
    const char** value;
  } known[] = {{"--status", &o->status},
               {"--stdout", &o->out},
               {"--stderr", &o->err},
               {"--order", &o->order},
               {"--stdin", &o->in},
               {"--cwd", &o->cwd},
               {"--cwd-fallback", &o->cwd_fallback},
               {"--output-max", &max},
               {"--status-fd", &status_fd},
               {"--kill-grace", &grace},
               {"--nofile", &nofile},
               {"--env-fd", &env_fd},
               {"--uid", &uid},
               {"--gid", &gid},
               {"--groups", &groups},
               {"--pam-service", &o->pam_service},
               {"--pam-dir", &o->pam_dir},
               {"--user", &o->user},
               {"--nice", &o->nice},
               {"--ioprio", &o->ioprio},
               {"--limit-nofile", &o->limit_nofile},
               {"--limit-nproc", &o->limit_nproc},
               {"--limit-core", &o->limit_core},
               {"--cgroup", &o->cgroup},
               {"--memory-max", &o->memory_max},
               {"--cpu-weight", &o->cpu_weight},
               {"--pids-max", &o->pids_max},
               {"--log-name", &o->log_name},
               {"--log-style", &log_style}};
  const size_t nknown = sizeof known / sizeof known[0];
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
    if (strcmp(argv[i], "--keep-background") == 0) { /* the one option without a value */
      if (o->keep_background) usage("option given twice: ", argv[i]);
      o->keep_background = 1;
      i--;
      continue;
    }
    size_t k = 0;
    while (k < nknown && strcmp(argv[i], known[k].name) != 0) k++;
    if (k == nknown) usage("unknown option ", argv[i]);
    if (i + 1 >= argc || argv[i + 1][0] == '\0') usage("missing or empty value for ", argv[i]);
    if (*known[k].value != NULL) usage("option given twice: ", argv[i]);
    *known[k].value = argv[i + 1];
  }
  if (o->status == NULL || o->out == NULL || o->err == NULL || max == NULL)
    usage("--status, --stdout, --stderr and --output-max are required", "");
  if (o->cwd_fallback != NULL && o->cwd == NULL) usage("--cwd-fallback needs --cwd", "");
  if (parse_count(max, &o->output_max) != 0)
    usage("--output-max needs a decimal byte count, not ", max);
  o->kill_grace_ms = kDefaultKillGraceMs;
  unsigned long long grace_ms = 0;
  if (grace != NULL) {
    if (parse_count(grace, &grace_ms) != 0 || grace_ms > 86400000ULL)
      usage("--kill-grace needs milliseconds from 0 to 86400000, not ", grace);
    o->kill_grace_ms = (long long)grace_ms;
  }
  if (nofile != NULL && (parse_count(nofile, &o->nofile) != 0 || o->nofile == 0))
    usage("--nofile needs a descriptor count of 1 or more, not ", nofile);
  o->status_fd = status_fd != NULL ? parse_fd(status_fd, "--status-fd") : -1;
  o->env_fd = env_fd != NULL ? parse_fd(env_fd, "--env-fd") : -1;
  if (o->env_fd >= 0 && o->env_fd == o->status_fd)
    usage("--env-fd and --status-fd must differ, both are ", env_fd);
  o->switch_identity = uid != NULL || gid != NULL || groups != NULL;
  if (o->switch_identity && (uid == NULL || gid == NULL || groups == NULL))
    usage("--uid, --gid and --groups go together", "");
  if (o->switch_identity) {
    o->uid = parse_id(uid, "--uid");
    o->gid = parse_id(gid, "--gid");
    parse_groups(groups, o);
  }
  if ((o->pam_service != NULL) != (o->user != NULL))
    usage("--pam-service and --user go together", "");
  if (o->pam_dir != NULL && o->pam_service == NULL) usage("--pam-dir needs --pam-service", "");
  unsigned long long ignored = 0;
  if (o->nice != NULL && !valid_nice(o->nice)) usage("--nice needs -20 to 19, not ", o->nice);
  if (o->ioprio != NULL && (parse_count(o->ioprio, &ignored) != 0 || ignored > 65535))
    usage("--ioprio needs an I/O priority from 0 to 65535, not ", o->ioprio);
  const char* limits[] = {o->limit_nofile, o->limit_nproc, o->limit_core};
  for (size_t k = 0; k < 3; k++)
    if (limits[k] != NULL && parse_count(limits[k], &ignored) != 0)
      usage("a --limit-* option needs a decimal count, not ", limits[k]);
  if (o->cgroup != NULL && o->cgroup[0] != '/')
    usage("--cgroup needs an absolute path, not ", o->cgroup);
  if (o->cgroup == NULL && (o->memory_max != NULL || o->cpu_weight != NULL || o->pids_max != NULL))
    usage("--memory-max, --cpu-weight and --pids-max need --cgroup", "");
  if (o->memory_max != NULL && (parse_count(o->memory_max, &ignored) != 0 || ignored == 0))
    usage("--memory-max needs a byte count of 1 or more, not ", o->memory_max);
  if (o->cpu_weight != NULL &&
      (parse_count(o->cpu_weight, &ignored) != 0 || ignored < 1 || ignored > 10000))
    usage("--cpu-weight needs a weight from 1 to 10000, not ", o->cpu_weight);
  if (o->pids_max != NULL && (parse_count(o->pids_max, &ignored) != 0 || ignored == 0))
    usage("--pids-max needs a count of 1 or more, not ", o->pids_max);
  if (log_style != NULL && strcmp(log_style, "plain") != 0 && strcmp(log_style, "journal") != 0)
    usage("--log-style needs plain or journal, not ", log_style);
  o->log_journal = log_style != NULL && strcmp(log_style, "journal") == 0;
  if (i + 1 >= argc) usage("missing `-- PROGRAM`", "");
  o->argv = argv + i + 1;
}
