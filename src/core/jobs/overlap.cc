#include "core/jobs/overlap.h"
