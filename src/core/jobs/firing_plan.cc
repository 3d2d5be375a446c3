#include "core/jobs/firing_plan.h"
