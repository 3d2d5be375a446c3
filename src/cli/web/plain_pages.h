// The console for a browser without JavaScript: read-only pages drawn on the server from tqd's
// answers, at /plain (queues), /plain/tasks (filters and paging by a GET form and links),
// /plain/tasks/ID (a task, its attempts and the start of its output) and /plain/jobs.
#pragma once

#include "cli/web/http_server.h"
#include "cli/web/web_api.h"

namespace tq {

/// True for the paths PlainPage draws.
bool PlainPath(std::string_view path);

/// The plain page for `request` (a GET of a PlainPath), asked of tqd with the console's rights.
HttpResponse PlainPage(const WebApiContext& ctx, const HttpRequest& request);

}  // namespace tq
