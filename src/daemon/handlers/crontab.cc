// `tq jobs install|cat|remove|edit`: a user's own job file in the spool, checked before it
// replaces the last good one, and read again at once. A file an earlier account of the same name
// left (another uid) is none of the user's: cat finds no file, install replaces it, remove
// removes it and finds no file.

#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/log.h"

namespace tq {

void HandleCrontab(RequestContext& ctx, ConnId conn, const Owner& peer, const CrontabRequest& r) {
  const std::string user = r.user.empty() ? peer.name : r.user;
  const auto send = [&](const Result<nlohmann::json>& answer) {
    ctx.server.Send(conn, answer.ok() ? OkResponse(*answer) : ErrorResponse(answer.status()));
  };
  if (user != peer.name && peer.uid != 0)
    return send(Status(ErrorCode::kPermission, "user",
                       "user: only root may install, read or remove the job file of another "
                       "user (" +
                           Quote(user) + ")"));
  if (!ValidAccountName(user))  // a name from the password database that no file may carry
    return send(Status::Invalid("user", "user: " + Quote(user) +
                                            " cannot have a job file (a name of A-Z a-z 0-9 _ . "
                                            "- is needed)"));
  if (r.action != CrontabRequest::Action::kCat)
    if (Status admitted = ctx.limits.AdmitJobFileChange(peer); !admitted.ok())
      return send(admitted);
  const Spool& spool = ctx.spool;
  switch (r.action) {
    case CrontabRequest::Action::kInstall: {
      auto names = ctx.scheduler.CheckUserFile(user, r.text, r.name);
      if (!names.ok())  // a bad file in a request: exit 2, as `tq jobs check` gives
        return send(Status(ErrorCode::kInvalid, names.status().field(), names.status().message()));
      if (Status st = spool.Write(user, r.text); !st.ok()) return send(st);
      LogInfo("jobs: {} installed the job file of {} ({} job(s))", peer.name, user, names->size());
      ctx.scheduler.ReloadUser(user);
      return send(nlohmann::json{{"jobs", *names}});
    }
    case CrontabRequest::Action::kCat: {
      auto binding = spool.Bind(user);
      if (!binding.ok()) return send(binding.status());
      Result<std::optional<std::string>> text = std::optional<std::string>();
      if (binding->state == SpoolBinding::State::kBound) text = spool.Read(user);
      if (!text.ok()) return send(text.status());
      if (!text->has_value())
        return send(Status::NotFound("no job file of " + Quote(user) +
                                     " (tq jobs install FILE or tq jobs edit makes one)"));
      return send(nlohmann::json{{"text", **text}});
    }
    case CrontabRequest::Action::kRemove: {
      auto binding = spool.Bind(user);
      if (!binding.ok()) return send(binding.status());
      if (binding->state == SpoolBinding::State::kNone)
        return send(Status::NotFound("no job file of " + Quote(user)));
      auto removed = spool.Remove(user);
      if (!removed.ok()) return send(removed.status());
      const bool stale = binding->state == SpoolBinding::State::kStale;
      if (stale) {
        LogInfo("jobs: {} removed {}", peer.name, binding->why);
      } else {
        LogInfo("jobs: {} removed the job file of {}", peer.name, user);
      }
      ctx.scheduler.ReloadUser(user);
      if (stale) return send(Status::NotFound("no job file of " + Quote(user)));
      return send(nlohmann::json::object());
    }
  }
}

}  // namespace tq
