#include "core/proto/requests/cancel.h"

#include <utility>

#include <csignal>

#include "core/model/quote.h"
#include "core/model/signal_names.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

const std::vector<TaskState>& CancellableStates() {
  static const std::vector<TaskState> states{TaskState::kPending, TaskState::kRunning};
  return states;
}

Result<CancelRequest> DecodeCancel(const json& j) {
  auto select = ReadSelector(j, CancellableStates(), "cancel");
  if (!select.ok()) return select.status();
  if (Status st = NeedsSome(*select); !st.ok()) return st;
  CancelRequest r{std::move(*select)};
  std::string signal;
  for (Status st :
       {Read(j, "progress", r.progress, "true or false"),
        Read(j, "signal", signal, "a signal name"), Read(j, "kill", r.kill, "true or false")}) {
    if (!st.ok()) return st;
  }
  if (!signal.empty()) {
    const std::optional<int> sig = SignalNamed(signal);
    if (!sig)
      return Status::Invalid(
          "signal", "signal: " + Quote(signal) + " is not one of " + std::string(SignalNames()));
    if (*sig == SIGKILL) {
      r.kill = true;
    } else if (r.kill) {
      return Status::Invalid("signal", "signal: " + Quote(signal) + " goes without kill");
    } else {
      r.signal = *sig;
    }
  }
  return r;
}
json EncodeCancel(const CancelRequest& r) {
  json j = json::object();
  WriteSelector(r.select, j);
  if (r.progress) j["progress"] = true;
  if (r.signal != SIGTERM) j["signal"] = SignalName(r.signal);
  if (r.kill) j["kill"] = true;
  return j;
}

}  // namespace tq
