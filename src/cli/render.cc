#include "cli/render.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "cli/state_colour.h"
#include "core/model/bytes.h"
#include "core/model/clock.h"
#include "core/model/quote.h"
#include "core/model/signal_names.h"
#include "core/model/wall_time.h"
#include "core/proto/wire_bytes.h"

namespace tq {

using nlohmann::json;

int Fail(const Status& status) {
  for (const std::string& line : MessageLines(status.message()))
    std::fprintf(stderr, "tq: %s\n", line.c_str());
  return ExitCodeFor(status.code());
}

void SayQueueIsNew(const std::string& queue) {
  std::fprintf(stderr,
               "tq: queue %s is new: no concurrency of its own caps it, only max_running "
               "(tq queue set %s --concurrency N, or [queues.%s] in tqd.toml)\n",
               Quote(queue).c_str(), queue.c_str(), queue.c_str());
}

namespace {
std::string Bytes(const json& value) {
  auto bytes = BytesFromJson(value, "");
  return bytes.ok() ? *bytes : std::string();
}
}  // namespace

std::string ShellQuote(const std::string& arg) {
  if (arg.empty()) return "''";
  bool plain = true;
  bool printable = true;
  for (unsigned char c : arg) {
    if (!(std::isalnum(c) ||
          std::string_view("@%+=:,./-_").find(static_cast<char>(c)) != std::string_view::npos))
      plain = false;
    if (c < 0x20 || c == 0x7f) printable = false;
  }
  if (plain) return arg;
  if (printable && IsValidUtf8(arg)) {
    std::string out = "'";
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  std::string out = "$'";
  for (unsigned char c : arg) {
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

std::string CommandLine(const json& task) {
  const json& stages = task.contains("stages") ? task["stages"] : json();
  if (stages.is_array() && !stages.empty()) {  // the current stage: "2/4 gz: gzip db.sql"
    const size_t at = task.contains("stage") ? task["stage"].value("index", size_t{0}) : 0;
    if (at >= stages.size()) return "";
    return std::to_string(at + 1) + "/" + std::to_string(stages.size()) + " " +
           stages[at].value("name", "") + ": " + CommandLine(stages[at]);
  }
  if (task.contains("shell") && !task["shell"].is_null()) return Bytes(task["shell"]);
  std::string out;
  for (const auto& a : task.value("argv", json::array())) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(Bytes(a));
  }
  return out;
}

std::string LocalTime(const json& t) {
  if (!t.is_string()) return "-";
  auto ms = ParseRfc3339(t.get<std::string>());
  if (!ms.ok()) return t.get<std::string>();
  return FormatLocal(*ms, RealClock().WallNow());
}

std::string HumanBytes(int64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string ShortDuration(const json& ms) {
  if (!ms.is_number()) return "-";
  const int64_t v = ms.get<int64_t>();
  char buf[32];
  if (v < 60000) {
    std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(v) / 1000.0);
  } else if (v < 3600000) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(v / 60000),
                  static_cast<long long>(v / 1000 % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(v / 3600000),
                  static_cast<long long>(v / 60000 % 60));
  }
  return buf;
}

int WaitExitCode(const json& task) {
  const std::string state = task.value("state", "");
  if (state == "succeeded" || state == "expired") return 0;
  const std::string reason = task["reason"].is_string() ? task["reason"].get<std::string>() : "";
  const int exit_code = task["exit_code"].is_number() ? task["exit_code"].get<int>() : -1;
  const int signal = task["signal"].is_number() ? task["signal"].get<int>() : 0;
  if (reason == "timeout") return 124;
  if (reason == "spawn-failed") return exit_code == 126 ? 126 : 127;
  if (signal > 0) return 128 + signal;
  if (exit_code > 0) return exit_code;
  return 125;  // it never ran (cancelled while pending, dependency failed, ...) or was lost
}

std::string DescribeEnd(const json& task) {
  std::string out = task.value("state", "?");
  if (task.contains("stage") && task["stage"].is_object() && out != "succeeded")
    out += " at stage " + task["stage"].value("name", "");
  if (task["reason"].is_string()) out += " (" + task["reason"].get<std::string>() + ")";
  if (task["exit_code"].is_number())
    out += ": exit " + std::to_string(task["exit_code"].get<int>());
  if (task["signal"].is_number()) out += ": signal " + std::to_string(task["signal"].get<int>());
  return out;
}

size_t TableWidth() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize ws{};
  return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

void TablePrinter::Print(const std::vector<std::vector<std::string>>& rows) {
  std::fputs(Render(rows).c_str(), stdout);
}

std::string TablePrinter::Render(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths_.size() <= i) widths_.push_back(0);
      widths_[i] = std::max(widths_[i], VisibleWidth(row[i]));
    }
  for (const auto& row : rows) {
    std::string line;
    size_t shown = 0;  // the columns of `line` on a terminal: colour codes take none
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        std::string cell = row[i];
        if (shown < width_ && shown + VisibleWidth(cell) > width_)  // loses its colour if cut
          cell = StripSgr(cell).substr(0, width_ - shown - 1) + "~";
        line += cell;
      } else {
        line += row[i] + std::string(widths_[i] - VisibleWidth(row[i]) + 2, ' ');
        shown += widths_[i] + 2;
      }
    }
    out += line + "\n";
  }
  return out;
}

void PrintTable(const std::vector<std::vector<std::string>>& rows, size_t width) {
  TablePrinter(width).Print(rows);
}

std::string WaitingNote(const json& task) {
  if (task.value("state", "") != "pending") return "-";
  const json w = task.value("waiting", json());
  if (!w.is_object()) return "-";
  if (w.contains("cannot_start") && w["cannot_start"].is_string())
    return "cannot start: " + w["cannot_start"].get<std::string>();
  std::vector<std::string> parts;
  if (w.contains("not_started") && w["not_started"].is_string())
    parts.push_back("not started: " + w["not_started"].get<std::string>());
  if (w.value("held", false)) parts.push_back("held");
  if (w.value("queue_paused", false)) parts.push_back("queue paused");
  const json after = w.value("after", json::array());
  if (after.is_array() && !after.empty()) {
    std::string ids;
    for (const auto& id : after) ids += (ids.empty() ? "" : ",") + id.dump();
    parts.push_back("after " + ids);
  }
  if (w.contains("until") && w["until"].is_string()) parts.push_back("at " + LocalTime(w["until"]));
  if (w.contains("host") && w["host"].is_object())
    parts.push_back("waiting for host " + w["host"].value("name", "") + " (" +
                    w["host"].value("state", "") + ")");
  // Units matter once nothing else keeps it back: the chooser weighs it only then.
  if (parts.empty() && w.contains("units") && w["units"].is_string())
    parts.push_back("waiting for " + w["units"].get<std::string>());
  if (parts.empty() && w.contains("user_max_running") && w["user_max_running"].is_number())
    parts.push_back("user's max_running " + w["user_max_running"].dump() + " reached");
  if (parts.empty()) return "ready";
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string RunningFor(const json& task, int64_t now_ms) {
  const json log = task.value("attempt_log", json::array());
  if (task.value("state", "") != "running" || !log.is_array() || log.empty()) return "";
  const json& last = log.back();
  if (!last.is_object() || !last.contains("started") || !last["started"].is_string()) return "";
  auto started = ParseRfc3339(last["started"].get<std::string>());
  if (!started.ok()) return "";
  return ShortDuration(std::max<int64_t>(0, now_ms - *started));
}

std::string LastAttemptRan(const json& task, int64_t now_ms) {
  const json attempt = task.value("last_attempt", json());
  if (!attempt.is_object()) return "-";
  if (attempt.value("duration_ms", json()).is_number())
    return ShortDuration(attempt["duration_ms"]);
  const json started = attempt.value("started", json());
  if (task.value("state", "") != "running" || !started.is_string()) return "-";
  auto ms = ParseRfc3339(started.get<std::string>());
  return ms.ok() ? ShortDuration(std::max<int64_t>(0, now_ms - *ms)) : "-";
}

std::string ExitCell(const json& task) {
  const std::optional<TaskState> state = StateFromName(task.value("state", ""));
  if (!state || !IsTerminal(*state)) return "";
  const json code = task.value("exit_code", json());
  const json signal = task.value("signal", json());
  if (signal.is_number_integer()) {
    const std::string name = SignalName(signal.get<int>());
    return name.find_first_not_of("0123456789") == std::string::npos ? "signal " + name
                                                                     : "SIG" + name;
  }
  return code.is_number_integer() ? std::to_string(code.get<int>()) : "-";
}

}  // namespace tq
