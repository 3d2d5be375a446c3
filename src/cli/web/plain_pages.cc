#include "cli/web/plain_pages.h"

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "cli/client.h"
#include "cli/render.h"
#include "core/model/limits.h"
#include "core/proto/protocol.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {

using nlohmann::json;

constexpr int kPlainPage = 100;  // tasks on one page of /plain/tasks
constexpr const char* kStates[] = {"pending", "running",   "succeeded",
                                   "failed",  "cancelled", "expired"};

// `text` made safe inside HTML text and quoted attributes.
std::string Esc(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// `text` percent-encoded for a query argument.
std::string UrlArg(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The text of a JSON value from tqd: a string, a byte string's bytes, a number; "" for null.
std::string TextOf(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object()) {
    auto bytes = BytesFromJson(v, "value");
    return bytes.ok() ? *bytes : "";
  }
  return v.dump();
}

// The member `key` of `j` as text ("" when absent).
std::string Member(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? "" : TextOf(*it);
}

// A state word in its colour, as the script draws it.
std::string StateHtml(const std::string& state) {
  return "<span class=\"state state-" + Esc(state) + "\">" + Esc(state) + "</span>";
}

// A time from tqd (RFC 3339, UTC) as the page shows it: the UTC value; "–" for none.
std::string TimeHtml(const json& v) {
  if (!v.is_string()) return "<span class=\"muted\">–</span>";
  const std::string t = v.get<std::string>();
  return "<time datetime=\"" + Esc(t) + "\">" + Esc(t) + "</time>";
}

// A table: its header cells, then rows of cells that are already HTML.
std::string Table(const std::vector<std::string>& heads,
                  const std::vector<std::vector<std::string>>& rows, const std::string& id) {
  std::string out = "<table id=\"" + id + "\"><thead><tr>";
  for (const auto& h : heads) out += "<th>" + Esc(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + cell + "</td>";
    out += "</tr>";
  }
  if (rows.empty()) out += "<tr><td class=\"muted\">None.</td></tr>";
  return out + "</tbody></table>";
}

// The whole page: the console's header with plain links, `title`, and `body` (HTML).
HttpResponse Page(int status, const std::string& title, const std::string& body) {
  HttpResponse r;
  r.status = status;
  r.body =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>tq · " +
      Esc(title) +
      "</title>"
      "<link rel=\"stylesheet\" href=\"/assets/console.css\"></head><body><header>"
      "<a class=\"brand\" href=\"/plain\">tq</a><nav><a href=\"/plain\">Overview</a>"
      "<a href=\"/plain/tasks\">Tasks</a><a href=\"/plain/jobs\">Jobs</a></nav>"
      "<span class=\"live\" title=\"drawn without JavaScript\">plain, read-only: reload for "
      "news</span></header><main><h1>" +
      Esc(title) + "</h1>" + body + "</main></body></html>\n";
  return r;
}

// A page saying what tqd refused (its message, with the HTTP status its code maps to).
HttpResponse Refused(const std::string& title, const Status& st) {
  const int status = st.code() == ErrorCode::kNotFound     ? 404
                     : st.code() == ErrorCode::kPermission ? 403
                     : st.code() == ErrorCode::kInvalid    ? 400
                                                           : 502;
  return Page(status, title, "<p class=\"error\">" + Esc(st.message()) + "</p>");
}

// tqd's answer to `request`, asked on a connection of its own.
Result<json> Ask(const WebApiContext& ctx, const Request& request) {
  auto client = ConnectTqd(ctx);
  if (!client.ok()) return client.status();
  return client->Call(request);
}

HttpResponse Overview(const WebApiContext& ctx) {
  auto queues = Ask(ctx, QueueRequest{});
  if (!queues.ok()) return Refused("Overview", queues.status());
  auto stats = Ask(ctx, StatsRequest{});
  if (!stats.ok()) return Refused("Overview", stats.status());
  std::map<std::string, std::map<std::string, long long>> counts;  // queue → state → tasks
  for (const json& c : (*stats)["stats"].value("tasks", json::array()))
    counts[c.value("queue", "")][c.value("state", "")] = c.value("count", 0LL);
  std::vector<std::vector<std::string>> rows;
  for (const json& q : (*queues)["queues"]) {
    const std::string name = q.value("name", "");
    const json& cap = q["concurrency"];
    std::vector<std::string> row = {
        "<a href=\"/plain/tasks?queue=" + UrlArg(name) + "\">" + Esc(name) + "</a>",
        std::to_string(q.value("running", 0)) + "/" + (cap.is_null() ? "∞" : cap.dump()),
        q.value("paused", false) ? "<span class=\"badge warn\">paused</span>" : "no"};
    for (const char* s : kStates) {
      const long long n = counts[name][s];
      row.push_back(n == 0 ? ""
                           : "<a href=\"/plain/tasks?queue=" + UrlArg(name) + "&amp;state=" + s +
                                 "\">" + std::to_string(n) + "</a>");
    }
    rows.push_back(std::move(row));
  }
  return Page(200, "Overview",
              Table({"QUEUE", "RUNNING", "PAUSED", "PENDING", "RUNNING", "SUCCEEDED", "FAILED",
                     "CANCELLED", "EXPIRED"},
                    rows, "queues"));
}

// The filter form of /plain/tasks, holding the filters `f`.
std::string FilterForm(const std::map<std::string, std::string>& f) {
  auto value = [&](const char* k) {
    auto it = f.find(k);
    return it == f.end() ? std::string() : it->second;
  };
  std::string out =
      "<form class=\"filters\" method=\"get\" action=\"/plain/tasks\">"
      "<select name=\"state\"><option value=\"\">any state</option>";
  for (const char* s : kStates)
    out +=
        std::string("<option") + (value("state") == s ? " selected" : "") + ">" + s + "</option>";
  out += "</select>";
  for (const auto& [name, hint] : {std::pair{"queue", "queue"}, std::pair{"label", "label"},
                                   std::pair{"user", "owner"}, std::pair{"text", "command text"}})
    out += std::string("<input name=\"") + name + "\" placeholder=\"" + hint + "\" value=\"" +
           Esc(value(name)) + "\" size=\"12\">";
  return out + "<input type=\"submit\" value=\"filter\"></form>";
}

HttpResponse Tasks(const WebApiContext& ctx, const HttpRequest& request) {
  std::map<std::string, std::string> f;
  for (const char* k : {"state", "queue", "label", "user", "text"})
    if (auto it = request.query.find(k); it != request.query.end() && !it->second.empty())
      f[k] = it->second;
  json body = {{"limit", kPlainPage}};
  for (const auto& [k, v] : f) body[k == "text" ? "command" : k] = v;
  if (auto before = request.query.find("before"); before != request.query.end()) {
    try {
      body["before_id"] = std::stoll(before->second);
    } catch (const std::exception&) {
      return Refused("Tasks",
                     Status::Invalid("before", "before: " + before->second + " is not a task id"));
    }
  }
  body["proto"] = kProtoVersion;
  body["type"] = "list";
  auto decoded = DecodeRequest(body.dump());
  if (!decoded.ok()) return Refused("Tasks", decoded.status());
  auto answer = Ask(ctx, *decoded);
  if (!answer.ok()) return Refused("Tasks", answer.status());
  std::vector<std::vector<std::string>> rows;
  for (const json& t : (*answer)["tasks"]) {
    const std::string id = t["id"].dump();
    rows.push_back(
        {"<a href=\"/plain/tasks/" + id + "\">" + id + "</a>", StateHtml(t.value("state", "")),
         Esc(t.value("queue", "")), Esc(t["owner"].value("name", "")),
         "<span class=\"command\">" + Esc(CommandLine(t)) + "</span>", TimeHtml(t["created"])});
  }
  std::string filters;
  for (const auto& [k, v] : f) filters += "&amp;" + k + "=" + UrlArg(v);
  std::string pager = "<div class=\"pager\">";
  if (request.query.contains("before"))
    pager +=
        "<a href=\"/plain/tasks?" + (filters.empty() ? "" : filters.substr(5)) + "\">newest</a> ";
  if (answer->value("more", false))
    pager += "<a href=\"/plain/tasks?before=" + answer->value("next_before_id", json(0)).dump() +
             filters + "\">older →</a>";
  return Page(
      200, "Tasks",
      FilterForm(f) +
          Table({"ID", "STATE", "QUEUE", "OWNER", "COMMAND", "CREATED (UTC)"}, rows, "tasks") +
          pager + "</div>");
}

// The start of one stream of a task's latest attempt, as much as one logs answer holds.
std::string OutputHtml(const WebApiContext& ctx, TaskId id, bool stderr_stream) {
  LogsRequest logs;
  logs.id = id;
  logs.stderr_stream = stderr_stream;
  auto answer = Ask(ctx, logs);
  if (!answer.ok()) return "<p class=\"error\">" + Esc(answer.status().message()) + "</p>";
  const std::string data = TextOf((*answer)["data"]);
  std::string out = "<h3>" + std::string(stderr_stream ? "stderr" : "stdout") +
                    "</h3><pre class=\"log\">" + Esc(data) + "</pre>";
  if (!answer->value("eof", false) && !data.empty())
    out += "<p class=\"note\">Its start only; <code>tq logs " + std::to_string(id) +
           "</code> has the rest.</p>";
  return out;
}

HttpResponse TaskPage(const WebApiContext& ctx, const std::string& id_text) {
  const std::string title = "Task " + id_text;
  TaskId id = 0;
  try {
    id = std::stoll(id_text);
  } catch (const std::exception&) {
  }
  if (id < 1 || std::to_string(id) != id_text)
    return Refused(title, Status(ErrorCode::kNotFound, "", "No such task."));
  StatusRequest status;
  status.id = id;
  auto answer = Ask(ctx, status);
  if (!answer.ok()) return Refused(title, answer.status());
  const json& t = (*answer)["task"];
  std::string labels, env;
  for (const json& l : t.value("labels", json::array())) labels += Esc(TextOf(l)) + " ";
  for (const json& n : t.value("env_names", json::array()))
    env += "<code>" + Esc(TextOf(n)) + "</code> ";
  std::string exit = t["signal"].is_null()
                         ? (t["exit_code"].is_null() ? "" : "exit " + t["exit_code"].dump())
                         : "signal " + t["signal"].dump();
  std::string facts = "<dl class=\"facts\">";
  for (const auto& [term, value] : std::vector<std::pair<std::string, std::string>>{
           {"state", StateHtml(t.value("state", ""))},
           {"command", "<code>" + Esc(CommandLine(t)) + "</code>"},
           {"owner", Esc(t["owner"].value("name", ""))},
           {"cwd", "<code>" + Esc(Member(t, "cwd")) + "</code>"},
           {"queue", Esc(t.value("queue", ""))},
           {"runs on", Member(t, "run_on").empty() ? "" : Esc(Member(t, "run_on")) + " only"},
           {"labels", labels},
           {"job", Esc(Member(t, "job"))},
           {"created (UTC)", TimeHtml(t["created"])},
           {"finished (UTC)", t["finished"].is_null() ? "" : TimeHtml(t["finished"])},
           {"exit", exit},
           {"reason", Esc(Member(t, "reason"))},
           {"environment", env}})
    if (!value.empty()) facts += "<dt>" + Esc(term) + "</dt><dd>" + value + "</dd>";
  facts += "</dl>";
  std::vector<std::vector<std::string>> attempts;
  for (const json& a : t.value("attempt_log", json::array()))
    attempts.push_back(
        {a["number"].dump(), Esc(Member(a, "stage")), Esc(Member(a, "host")),
         TimeHtml(a["started"]), a["ended"].is_null() ? "running" : TimeHtml(a["ended"]),
         a["signal"].is_null() ? Esc(Member(a, "exit_code")) : "signal " + a["signal"].dump(),
         Esc(Member(a, "reason"))});
  return Page(200, title,
              facts + "<h2>Attempts</h2>" +
                  Table({"#", "STAGE", "HOST", "STARTED (UTC)", "ENDED (UTC)", "EXIT", "REASON"},
                        attempts, "attempts") +
                  "<h2>Output</h2><div id=\"task-output\" class=\"output\">" +
                  OutputHtml(ctx, id, false) + OutputHtml(ctx, id, true) + "</div>");
}

HttpResponse Jobs(const WebApiContext& ctx) {
  auto answer = Ask(ctx, JobsRequest{});
  if (!answer.ok()) return Refused("Jobs", answer.status());
  std::vector<std::vector<std::string>> rows;
  for (const json& j : (*answer)["jobs"]) {
    const bool on = j.value("enabled", true) && !j.value("disabled", false);
    std::string state = on ? "" : "<span class=\"badge\">disabled</span> ";
    if (j.value("overdue", false)) state += "<span class=\"badge bad\">overdue</span> ";
    if (j["last_state"].is_string()) state += StateHtml(j["last_state"].get<std::string>());
    const std::string name = j.value("name", "");
    rows.push_back(
        {"<a href=\"/plain/tasks?label=" + UrlArg("job:" + name) + "\">" + Esc(name) + "</a>",
         "<code>" + Esc(j.value("schedule", "")) + "</code> <span class=\"muted\">(" +
             Esc(j["timezone"].is_string() ? j["timezone"].get<std::string>()
                                           : "tqd's local time") +
             ")</span>",
         on ? TimeHtml(j["next"]) : "", state,
         Esc(Member(j, "file")) + ":" + j.value("line", json(0)).dump()});
  }
  std::string errors;
  for (const json& e : answer->value("errors", json::array())) {
    const std::string where = Member(e, "file") + ":" + e.value("line", json(0)).dump();
    std::string message = Member(e, "message");  // "FILE:LINE: reason": the place once
    if (message.starts_with(where + ": ")) message.erase(0, where.size() + 2);
    errors += "<li><code>" + Esc(where) + "</code> " + Esc(message) +
              (e.value("kept", false) ? " (its last good version stays in force)" : "") + "</li>";
  }
  if (!errors.empty()) errors = "<h2>Load errors</h2><ul class=\"load-errors\">" + errors + "</ul>";
  std::string more = answer->value("more", false)
                         ? "<p class=\"note\">More jobs than one answer holds: <code>tq "
                           "jobs</code> lists them all.</p>"
                         : "";
  return Page(200, "Jobs",
              Table({"JOB", "SCHEDULE", "NEXT (UTC)", "STATE", "DEFINED IN"}, rows, "jobs") + more +
                  errors);
}

}  // namespace

bool PlainPath(std::string_view path) {
  return path == "/plain" || path == "/plain/tasks" || path == "/plain/jobs" ||
         path.starts_with("/plain/tasks/");
}

HttpResponse PlainPage(const WebApiContext& ctx, const HttpRequest& request) {
  try {
    if (request.path == "/plain") return Overview(ctx);
    if (request.path == "/plain/tasks") return Tasks(ctx, request);
    if (request.path == "/plain/jobs") return Jobs(ctx);
    return TaskPage(ctx, request.path.substr(std::string_view("/plain/tasks/").size()));
  } catch (const json::exception& e) {  // an answer of another shape (another tqd's version)
    return Refused("tq web", Status(ErrorCode::kProto, "",
                                    std::string("tqd's answer is not understood: ") + e.what()));
  }
}

}  // namespace tq
