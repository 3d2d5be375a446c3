#include "core/jobs/job.h"
