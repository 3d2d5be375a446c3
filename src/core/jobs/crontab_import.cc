#include "core/jobs/crontab_import.h"
