#include "daemon/run/shim_record.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "daemon/shim/shim_record.h"

namespace tq {

namespace {

// Records are a few hundred bytes; anything this big is not one.
constexpr size_t kMaxRecordBytes = 64 * 1024;

// Parses a whole decimal integer (no spaces, no '+').
template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

using Setter = bool (*)(ShimRecord&, std::string_view);

struct Field {
  std::string_view key;
  Setter set;
  int since = 1;  ///< the first version that has (and requires) the key
};

// The oldest record version this reader still accepts.
constexpr int kOldestVersion = 1;

// Every key; each is required from the version that introduced it.
constexpr Field kFields[] = {
    {TQ_SHIM_KEY_FINISHED,
     [](ShimRecord& r, std::string_view v) {
       int flag = 0;
       if (!ParseNumber(v, &flag) || (flag != 0 && flag != 1)) return false;
       r.finished = flag == 1;
       return true;
     }},
    {TQ_SHIM_KEY_SHIM_PID,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.shim_pid); }},
    {TQ_SHIM_KEY_PID, [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.pid); }},
    {TQ_SHIM_KEY_PID_START_TIME,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.pid_start_time); }},
    {TQ_SHIM_KEY_STARTED_MS,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.started_ms); }},
    {TQ_SHIM_KEY_ENDED_MS,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.ended_ms); }},
    {TQ_SHIM_KEY_EXIT_CODE,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.exit_code); }},
    {TQ_SHIM_KEY_SIGNAL,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.signal); }},
    {TQ_SHIM_KEY_SPAWN_ERRNO,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.spawn_errno); }},
    {TQ_SHIM_KEY_USER_CPU_US,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.user_cpu_us); }},
    {TQ_SHIM_KEY_SYSTEM_CPU_US,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.system_cpu_us); }},
    {TQ_SHIM_KEY_MAX_RSS_KB,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.max_rss_kb); }},
    {TQ_SHIM_KEY_BOOT_ID,
     [](ShimRecord& r, std::string_view v) {
       if (v.empty() || v.size() > 36) return false;
       r.boot_id = std::string(v);
       return true;
     },
     2},
    {TQ_SHIM_KEY_SHIM_START_TIME,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.shim_start_time); }, 2},
    {TQ_SHIM_KEY_SPAWN_STEP,
     [](ShimRecord& r, std::string_view v) {
       if (v.empty() || v.size() > 16 ||
           v.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string_view::npos)
         return false;
       r.spawn_step = v == TQ_SHIM_STEP_NONE ? "" : std::string(v);
       return true;
     },
     3},
    {TQ_SHIM_KEY_MEMORY_PEAK,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.memory_peak); }, 4},
    {TQ_SHIM_KEY_STDOUT_CUT_AT,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.cut_at[0]); }, 5},
    {TQ_SHIM_KEY_STDOUT_CUT_ERRNO,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.cut_errno[0]); }, 5},
    {TQ_SHIM_KEY_STDERR_CUT_AT,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.cut_at[1]); }, 5},
    {TQ_SHIM_KEY_STDERR_CUT_ERRNO,
     [](ShimRecord& r, std::string_view v) { return ParseNumber(v, &r.cut_errno[1]); }, 5},
};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

// Splits off the next line (without its '\n') from `rest`.
std::string_view NextLine(std::string_view* rest) {
  size_t nl = rest->find('\n');
  std::string_view line = rest->substr(0, nl);
  rest->remove_prefix(nl == std::string_view::npos ? rest->size() : nl + 1);
  return line;
}

}  // namespace

Result<ShimRecord> ParseShimRecord(std::string_view text) {
  text = text.substr(0, text.find('\0'));
  if (text.empty()) return Status::Internal("the status record is empty (shim not started yet?)");
  ShimRecord record;
  std::string_view rest = text;
  std::string_view first = NextLine(&rest);
  constexpr std::string_view kMagic = TQ_SHIM_RECORD_MAGIC " ";
  if (first.substr(0, kMagic.size()) != kMagic ||
      !ParseNumber(first.substr(kMagic.size()), &record.version))
    return Status::Internal("not a tq-shim status record (first line is not '" TQ_SHIM_RECORD_MAGIC
                            " VERSION')");
  if (record.version < kOldestVersion || record.version > TQ_SHIM_RECORD_VERSION)
    return Status::Internal("status record version " + std::to_string(record.version) +
                            " is not supported (this tqd reads versions " +
                            std::to_string(kOldestVersion) + " to " +
                            std::to_string(TQ_SHIM_RECORD_VERSION) + ")");

  bool seen[kFieldCount] = {};
  for (int line_no = 2; !rest.empty(); line_no++) {
    std::string_view line = NextLine(&rest);
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return Status::Internal("status record line " + std::to_string(line_no) + " has no '='");
    std::string_view key = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    for (size_t i = 0; i < kFieldCount; i++) {
      if (kFields[i].key != key) continue;
      if (seen[i]) return Status::Internal("status record repeats key '" + std::string(key) + "'");
      if (!kFields[i].set(record, value))
        return Status::Internal("status record key '" + std::string(key) + "' has a bad value '" +
                                std::string(value) + "'");
      seen[i] = true;
    }
  }
  for (size_t i = 0; i < kFieldCount; i++)
    if (!seen[i] && kFields[i].since <= record.version)
      return Status::Internal("status record lacks key '" + std::string(kFields[i].key) + "'");
  return record;
}

Result<ShimRecord> ReadShimRecord(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return Status::Internal("cannot open shim status record " + path + ": " + strerror(errno));
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return Status::Internal("cannot read shim status record " + path + ": " + strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxRecordBytes) {
      close(fd);
      return Status::Internal("shim status record " + path + " is larger than " +
                              std::to_string(kMaxRecordBytes) + " bytes");
    }
  }
  close(fd);
  Result<ShimRecord> parsed = ParseShimRecord(text);
  if (!parsed.ok()) return Status::Internal(path + ": " + parsed.status().message());
  return parsed;
}

bool ShimRecordBlank(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT;
  char first = 0;
  ssize_t n;
  do n = pread(fd, &first, 1, 0);
  while (n < 0 && errno == EINTR);
  close(fd);
  return n == 0 || (n == 1 && first == '\0');
}

bool ShimRecordLocked(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  int rc;
  do rc = flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  bool locked = rc != 0 && errno == EWOULDBLOCK;
  if (rc == 0) flock(fd, LOCK_UN);
  close(fd);
  return locked;
}

}  // namespace tq
