#include "core/jobs/job_file.h"
