// `tq reload`: the job files read again, as SIGHUP does; the answer says what changed and which
// files failed (their last good jobs stay in force).
#include "core/proto/job_json.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleReload(RequestContext& ctx, ConnId conn, const Owner&, const ReloadRequest&) {
  const ReloadReport report = ctx.scheduler.Reload();
  nlohmann::json body = ReloadReportToJson(report);
  size_t bytes = 0;
  body["errors"] = LoadErrorsJson(report.errors, bytes);
  body["errors_left_out"] = report.errors.size() - body["errors"].size();
  ctx.server.Send(conn, OkResponse(std::move(body)));
}

}  // namespace tq
