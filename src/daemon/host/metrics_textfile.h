// metrics_textfile (tqd.toml, SPEC 11): the Prometheus exposition written for node_exporter's
// textfile collector every metrics_interval, replaced atomically so a scrape never reads half.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/log_throttle.h"

namespace tq {

/// Writes `text` to `path` through a temporary file beside it (PATH.tmp) and a rename: readers
/// see the old file or the new one, never a part. The file is 0644: metrics name no task.
Status WriteFileAtomically(const std::string& path, const std::string& text);

/// Writes the exposition at start and then every interval; failures are logged at most once a
/// minute and never stop the daemon.
class MetricsTextfile {
 public:
  /// The exposition now, or nullopt when it cannot be made (the store failed; logged there).
  using Render = std::function<std::optional<std::string>()>;

  MetricsTextfile(EventLoop& loop, const Clock& clock, std::string path, MonoMs interval_ms,
                  Render render);
  ~MetricsTextfile();
  MetricsTextfile(const MetricsTextfile&) = delete;
  MetricsTextfile& operator=(const MetricsTextfile&) = delete;

  /// Writes now and arms the next write.
  void Start();

 private:
  void Write();

  EventLoop& loop_;
  const Clock& clock_;
  std::string path_;
  MonoMs interval_ms_;
  Render render_;
  LogThrottle failures_;
  EventLoop::TimerId timer_ = 0;
};

}  // namespace tq
