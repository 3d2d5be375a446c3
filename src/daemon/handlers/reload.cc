// `tq reload`: tqd.toml and the job files read again, as SIGHUP does; the answer says what
// changed, what needs a restart, and which job files failed (their last good jobs stay in force).
#include "core/proto/job_json.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleReload(RequestContext& ctx, ConnId conn, const Owner&, const ReloadRequest&) {
  // tqd.toml first: a file that does not load changes nothing, the job files included.
  Result<ConfigDiff> config = ctx.reload_config();
  if (!config.ok()) {
    ctx.server.Send(conn, ErrorResponse(Status::Invalid("config", config.status().message())));
    return;
  }
  const ReloadReport report = ctx.scheduler.Reload();
  nlohmann::json body = ReloadReportToJson(report);
  body["config"] = {{"changed", config->changed}, {"needs_restart", config->needs_restart}};
  size_t bytes = 0;
  body["errors"] = LoadErrorsJson(report.errors, bytes);
  body["errors_left_out"] = report.errors.size() - body["errors"].size();
  ctx.server.Send(conn, OkResponse(std::move(body)));
}

}  // namespace tq
