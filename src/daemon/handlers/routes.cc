// tqd's table of requests: for each request type, who may send it and the handler that answers
// it. The wire side (each type's name, decoder and encoder) is core/proto's table, kCodecs
// (core/proto/requests.h).
#include <tuple>
#include <type_traits>

#include "daemon/handlers/handlers.h"

namespace tq {

// The handlers, one per request type, each defined in a file of its own (ping.cc, ...).
void HandleSubmit(RequestContext& ctx, ConnId conn, const Owner& peer, const SubmitRequest& r);
void HandleSubmitBatch(RequestContext& ctx, ConnId conn, const Owner& peer,
                       const SubmitBatchRequest& r);
void HandleStatus(RequestContext& ctx, ConnId conn, const Owner& peer, const StatusRequest& r);
void HandleList(RequestContext& ctx, ConnId conn, const Owner& peer, const ListRequest& r);
void HandleWait(RequestContext& ctx, ConnId conn, const Owner& peer, const WaitRequest& r);
void HandleCancel(RequestContext& ctx, ConnId conn, const Owner& peer, const CancelRequest& r);
void HandleRetry(RequestContext& ctx, ConnId conn, const Owner& peer, const RetryRequest& r);
void HandleClean(RequestContext& ctx, ConnId conn, const Owner& peer, const CleanRequest& r);
void HandleLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r);
void HandleUpdate(RequestContext& ctx, ConnId conn, const Owner& peer, const UpdateRequest& r);
void HandleHold(RequestContext& ctx, ConnId conn, const Owner& peer, const HoldRequest& r);
void HandleQueue(RequestContext& ctx, ConnId conn, const Owner& peer, const QueueRequest& r);
void HandleJobs(RequestContext& ctx, ConnId conn, const Owner& peer, const JobsRequest& r);
void HandleJobRun(RequestContext& ctx, ConnId conn, const Owner& peer, const JobRunRequest& r);
void HandleJobEnable(RequestContext& ctx, ConnId conn, const Owner& peer,
                     const JobEnableRequest& r);
void HandleReload(RequestContext& ctx, ConnId conn, const Owner& peer, const ReloadRequest& r);
void HandleCrontab(RequestContext& ctx, ConnId conn, const Owner& peer, const CrontabRequest& r);
void HandleStats(RequestContext& ctx, ConnId conn, const Owner& peer, const StatsRequest& r);
void HandleResources(RequestContext& ctx, ConnId conn, const Owner& peer,
                     const ResourcesRequest& r);
void HandleHosts(RequestContext& ctx, ConnId conn, const Owner& peer, const HostsRequest& r);
void HandleEvents(RequestContext& ctx, ConnId conn, const Owner& peer, const EventsRequest& r);
void HandlePing(RequestContext& ctx, ConnId conn, const Owner& peer, const PingRequest& r);

namespace {

// A request anyone who reaches the socket may send; its handler decides which tasks they see.
template <typename T>
Caller AnyUser(const T&) {
  return Caller::kAnyUser;
}

// How tqd serves one request type.
template <typename T>
struct Route {
  Caller (*who)(const T& request);  ///< who may send it (a queue request: by its action)
  void (*handle)(RequestContext& ctx, ConnId conn, const Owner& peer, const T& request);
  const char* refused = "";  ///< what an admin-only request does, for a refusal's "may <this>"
};

// Every request. A new request is a row here (a compile error until it has one) and its
// handler in a file of its own, declared above.
constexpr std::tuple kRoutes{
    Route<SubmitRequest>{AnyUser, HandleSubmit},
    Route<SubmitBatchRequest>{AnyUser, HandleSubmitBatch},
    Route<StatusRequest>{AnyUser, HandleStatus},
    Route<ListRequest>{AnyUser, HandleList},
    Route<WaitRequest>{AnyUser, HandleWait},
    Route<CancelRequest>{AnyUser, HandleCancel},
    Route<RetryRequest>{AnyUser, HandleRetry},
    Route<CleanRequest>{AnyUser, HandleClean},
    Route<LogsRequest>{AnyUser, HandleLogs},
    Route<UpdateRequest>{AnyUser, HandleUpdate},
    Route<HoldRequest>{AnyUser, HandleHold},
    Route<QueueRequest>{QueueCaller, HandleQueue, "change queues"},
    Route<JobsRequest>{AnyUser, HandleJobs},
    Route<JobRunRequest>{AnyUser, HandleJobRun},  // an admin's, or the job's own user's
    Route<JobEnableRequest>{AnyUser, HandleJobEnable},
    Route<ReloadRequest>{AdminOnly, HandleReload, "reload the job files"},
    Route<CrontabRequest>{AnyUser, HandleCrontab},      // one's own; another's for root only
    Route<StatsRequest>{AnyUser, HandleStats},          // counts only: no task, command or user
    Route<ResourcesRequest>{AnyUser, HandleResources},  // the holders the caller may see
    Route<HostsRequest>{AnyUser, HandleHosts},          // names no task, command or user
    Route<EventsRequest>{AnyUser, HandleEvents},
    Route<PingRequest>{AnyUser, HandlePing},
};

}  // namespace

void HandleRequest(RequestContext& ctx, ConnId conn, const Owner& peer, const Request& request) {
  std::visit(
      [&](const auto& r) {
        const auto& route = std::get<Route<std::decay_t<decltype(r)>>>(kRoutes);
        const Access access = ctx.access.For(peer);
        const std::string type = RequestType(request);
        if (!access.Allowed() && !std::is_same_v<std::decay_t<decltype(r)>, PingRequest>) {
          ctx.server.Send(conn, ErrorResponse(Status(ErrorCode::kPermission, type,
                                                     type + ": " + access.refusal)));
          return;
        }
        if (route.who(r) == Caller::kAdmin && !access.admin) {
          ctx.server.Send(conn, ErrorResponse(Status(ErrorCode::kPermission, type,
                                                     type +
                                                         ": only root, the daemon's own user "
                                                         "or a member of admin_group may " +
                                                         route.refused)));
          return;
        }
        route.handle(ctx, conn, peer, r);
      },
      request);
}

}  // namespace tq
