// The table of requests: for each request type its wire name, decoder and encoder. The Request
// variant is made from it, so a new request is a file under requests/ and a row here.
#pragma once

#include <tuple>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/requests/cancel.h"
#include "core/proto/requests/clean.h"
#include "core/proto/requests/crontab.h"
#include "core/proto/requests/events.h"
#include "core/proto/requests/hold.h"
#include "core/proto/requests/hosts.h"
#include "core/proto/requests/job_enable.h"
#include "core/proto/requests/job_run.h"
#include "core/proto/requests/jobs.h"
#include "core/proto/requests/list.h"
#include "core/proto/requests/logs.h"
#include "core/proto/requests/ping.h"
#include "core/proto/requests/queue.h"
#include "core/proto/requests/reload.h"
#include "core/proto/requests/resources.h"
#include "core/proto/requests/retry.h"
#include "core/proto/requests/stats.h"
#include "core/proto/requests/status.h"
#include "core/proto/requests/submit.h"
#include "core/proto/requests/submit_batch.h"
#include "core/proto/requests/update.h"
#include "core/proto/requests/wait.h"

namespace tq {

/// How one request type travels: its wire name, and how its body is read and written.
template <typename T>
struct Codec {
  const char* type;
  Result<T> (*decode)(const nlohmann::json& body);
  nlohmann::json (*encode)(const T& request);
};

/// Every request, in the order a refusal of an unknown type lists them. A new request is a
/// file under requests/ (its struct, decoder and encoder) and a row here; tqd's handlers have
/// their own table, keyed by the same types (src/daemon/handlers/routes.cc), which does not
/// compile until the new type has its row there too.
inline constexpr std::tuple kCodecs{
    Codec<SubmitRequest>{"submit", DecodeSubmit, SubmitToJson},
    Codec<SubmitBatchRequest>{"submit_batch", DecodeSubmitBatch, EncodeSubmitBatch},
    Codec<StatusRequest>{"status", DecodeStatus, EncodeStatus},
    Codec<ListRequest>{"list", DecodeList, EncodeList},
    Codec<WaitRequest>{"wait", DecodeWait, EncodeWait},
    Codec<CancelRequest>{"cancel", DecodeCancel, EncodeCancel},
    Codec<RetryRequest>{"retry", DecodeRetry, EncodeRetry},
    Codec<CleanRequest>{"clean", DecodeClean, EncodeClean},
    Codec<LogsRequest>{"logs", DecodeLogs, EncodeLogs},
    Codec<UpdateRequest>{"update", DecodeUpdate, EncodeUpdate},
    Codec<HoldRequest>{"hold", DecodeHold, EncodeHold},
    Codec<QueueRequest>{"queue", DecodeQueue, EncodeQueue},
    Codec<JobsRequest>{"jobs", DecodeJobs, EncodeJobs},
    Codec<JobRunRequest>{"job_run", DecodeJobRun, EncodeJobRun},
    Codec<JobEnableRequest>{"job_enable", DecodeJobEnable, EncodeJobEnable},
    Codec<ReloadRequest>{"reload", DecodeReload, EncodeReload},
    Codec<CrontabRequest>{"crontab", DecodeCrontab, EncodeCrontab},
    Codec<StatsRequest>{"stats", DecodeStats, EncodeStats},
    Codec<ResourcesRequest>{"resources", DecodeResources, EncodeResources},
    Codec<HostsRequest>{"hosts", DecodeHosts, EncodeHosts},
    Codec<EventsRequest>{"events", DecodeEvents, EncodeEvents},
    Codec<PingRequest>{"ping", DecodePing, EncodePing},
};

/// The variant of the request types a table of codecs holds.
template <typename Table>
struct VariantOfCodecs;
template <typename... T>
struct VariantOfCodecs<std::tuple<Codec<T>...>> {
  using type = std::variant<T...>;  ///< one alternative per row
};

/// Any request: one alternative per row of kCodecs.
using Request = VariantOfCodecs<std::remove_const_t<decltype(kCodecs)>>::type;

}  // namespace tq
