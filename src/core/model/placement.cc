#include "core/model/placement.h"

#include <algorithm>

#include "core/model/host_name.h"
#include "core/model/quote.h"

namespace tq {

namespace {

bool Names(const QueueHosts& hosts, const std::string& host) {
  return std::find(hosts.names.begin(), hosts.names.end(), host) != hosts.names.end();
}

// What the queue's `hosts` allows, for a refusal.
std::string Allowed(const QueueHosts& hosts, const std::string& queue, const std::string& self) {
  if (hosts.names.empty())
    return "queue " + Quote(queue) + " runs its tasks on the host they were submitted on, " +
           Quote(self) + " (set hosts in its [queues." + queue + "] to let them run elsewhere)";
  return "queue " + Quote(queue) + " runs its tasks on " + QuoteEach(hosts.names);
}

}  // namespace

Result<std::string> PlaceTask(const QueueHosts& hosts, const std::string& queue,
                              const std::string& self, const std::string& requested, bool shared) {
  if (requested.empty()) return shared && !hosts.any && hosts.names.empty() ? self : "";
  if (Status s = CheckHostName("host", requested); !s.ok()) return s;
  if (!shared) {
    if (requested == self) return std::string();
    return Status::Invalid("host", "host: " + Quote(requested) + " is not this host " +
                                       Quote(self) +
                                       ", and no other host shares its store (tqd.toml's store)");
  }
  const bool allowed =
      hosts.any || (hosts.names.empty() ? requested == self : Names(hosts, requested));
  if (!allowed)
    return Status::Invalid(
        "host", "host: " + Quote(requested) + " may not run it: " + Allowed(hosts, queue, self));
  return requested;
}

bool TakesUnplaced(const QueueHosts& hosts, const std::string& self) {
  return hosts.any || hosts.names.empty() || Names(hosts, self);
}

}  // namespace tq
