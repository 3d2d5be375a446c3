/* The shim's own messages. Its stderr is tqd's (inherited), so each line is written as tqd writes
 * its log lines (log_setup.h): the time and level, or for the journal a syslog priority, and the
 * attempt's name, so a line about a task says when and which. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

#include "shim.h"

static const char* g_name = "tq-shim"; /* --log-name */
static int g_journal;                  /* --log-style journal */

void shim_log_setup(const char* name, int journal) {
  if (name != NULL) g_name = name;
  g_journal = journal;
}

void shim_log(int priority, const char* format, ...) {
  char line[2048];
  int len = 0;
  if (g_journal) {
    len = snprintf(line, sizeof line, "<%d>", priority);
  } else {
    struct timeval now;
    struct tm local;
    gettimeofday(&now, NULL);
    localtime_r(&now.tv_sec, &local);
    len = (int)strftime(line, sizeof line, "%Y-%m-%d %H:%M:%S", &local);
    len += snprintf(line + len, sizeof line - (size_t)len, ".%03d %s ", (int)(now.tv_usec / 1000),
                    priority <= 3 ? "error" : "warning");
  }
  len += snprintf(line + len, sizeof line - (size_t)len, "%s: ", g_name);
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line + len, sizeof line - (size_t)len, format, args);
  va_end(args);
  len = n < 0 || (size_t)(len + n) >= sizeof line - 1 ? (int)sizeof line - 2 : len + n;
  line[len++] = '\n';
  fwrite(line, 1, (size_t)len, stderr); /* one write: lines of several shims never mix */
}
