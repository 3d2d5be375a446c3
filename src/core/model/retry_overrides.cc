#include "core/model/retry_overrides.h"

namespace tq {

RetryPolicy ApplyOverrides(RetryPolicy p, const RetryOverrides& o) {
  if (o.retries) p.retries = *o.retries;
  if (o.backoff) p.backoff = *o.backoff;
  if (o.base_ms) p.base_ms = *o.base_ms;
  if (o.max_ms) p.max_ms = *o.max_ms;
  if (o.jitter) p.jitter = *o.jitter;
  if (o.retry_on_exit) p.retry_on_exit = *o.retry_on_exit;
  if (o.no_retry_on_exit) p.no_retry_on_exit = *o.no_retry_on_exit;
  return p;
}

}  // namespace tq
