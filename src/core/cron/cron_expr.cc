#include "core/cron/cron_expr.h"

#include <cctz/civil_time.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "core/model/duration.h"
#include "core/model/quote.h"

namespace tq {

namespace {

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kWeekdayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
constexpr int64_t kMinEveryMs = 1000;  // a cron job more often than once a second makes no sense

// One calendar field: its name in messages, its values, its names, its largest step.
struct FieldSpec {
  const char* name;
  int min, max;              // the values a number may take (day-of-week: 0..7, 7 is Sunday)
  const char* const* names;  // three-letter names for min.. (nullptr: numbers only)
  int name_base;             // the value of names[0]
  int name_count;
  const char* grammar;  // what to write instead, for messages
};

constexpr FieldSpec kSecond = {"second", 0, 59, nullptr, 0, 0, "0..59"};
constexpr FieldSpec kMinute = {"minute", 0, 59, nullptr, 0, 0, "0..59"};
constexpr FieldSpec kHour = {"hour", 0, 23, nullptr, 0, 0, "0..23"};
constexpr FieldSpec kDom = {"day-of-month", 1, 31, nullptr, 0, 0, "1..31, L, LW or nW"};
constexpr FieldSpec kMonth = {"month", 1, 12, kMonthNames, 1, 12, "1..12 or JAN..DEC"};
constexpr FieldSpec kDow = {
    "day-of-week", 0, 7, kWeekdayNames, 0, 7, "0..7 or SUN..SAT, DOW#n or DOWL"};

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t';
}
char Upper(char c) {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}
std::string UpperCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Upper(c);
  return out;
}

// Parses one field's text; keeps the original for messages and works on an upper-case copy.
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, std::string_view text)
      : spec_(spec), text_(text), upper_(UpperCase(text)) {}

  Status Error(const std::string& reason) const {
    return Status::Invalid(spec_.name,
                           std::string(spec_.name) + " " + Quote(text_) + ": " + reason);
  }

  // A number or (for months and weekdays) a name; on failure sets *err.
  bool Value(std::string_view item, int* out, Status* err) const {
    if (item.empty()) {
      *err = Error("expected a value, found nothing");
      return false;
    }
    if (IsDigit(item[0])) {
      int v = 0;
      for (char c : item) {
        if (!IsDigit(c)) {
          *err = Error(Quote(Written(item)) + " is not a number (use " + spec_.grammar + ")");
          return false;
        }
        v = std::min(v * 10 + (c - '0'), 1000000);  // saturate: only the range check matters
      }
      if (v < spec_.min || v > spec_.max) {
        *err = Error(std::to_string(v) + " is out of range " + std::to_string(spec_.min) + ".." +
                     std::to_string(spec_.max));
        return false;
      }
      *out = v;
      return true;
    }
    for (int i = 0; spec_.names != nullptr && i < spec_.name_count; ++i) {
      if (item == spec_.names[i]) {
        *out = spec_.name_base + i;
        return true;
      }
    }
    if (spec_.names != nullptr) {
      *err = Error("unknown " + std::string(spec_.name) + " name " + Quote(Written(item)) +
                   " (use " + spec_.grammar + ")");
    } else {
      *err = Error(Quote(Written(item)) + " is not a number (use " + spec_.grammar + ")");
    }
    return false;
  }

  // `*`, `a`, `a-b`, each optionally `/step` (`a/step` means a..max); sets bits in *mask.
  Status Range(std::string_view item, uint64_t* mask) const {
    std::string_view base = item;
    int step = 1;
    bool has_step = false;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      base = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      const int step_max = spec_.max == 7 ? 7 : spec_.max - spec_.min + 1;
      int v = 0;
      if (step_text.empty()) return Error("expected a step after \"/\"");
      for (char c : step_text) {
        if (!IsDigit(c)) return Error("the step " + Quote(Written(step_text)) + " is not a number");
        v = std::min(v * 10 + (c - '0'), 1000000);
      }
      if (v < 1 || v > step_max) {
        return Error("the step " + std::to_string(v) + " is out of range 1.." +
                     std::to_string(step_max));
      }
      step = v;
      has_step = true;
    }
    int lo, hi;
    Status err;
    if (base == "*") {
      lo = spec_.min;
      hi = spec_.max;
    } else if (size_t dash = base.find('-'); dash != std::string_view::npos) {
      if (!Value(base.substr(0, dash), &lo, &err) || !Value(base.substr(dash + 1), &hi, &err)) {
        return err;
      }
      if (lo > hi) {
        return Error("the range " + std::string(Written(base)) +
                     " is backwards (ranges do not wrap; write it as two ranges)");
      }
    } else {
      if (!Value(base, &lo, &err)) return err;
      hi = has_step ? spec_.max : lo;
    }
    for (int v = lo; v <= hi; v += step) *mask |= uint64_t{1} << v;
    return Status::Ok();
  }

  // The text as written of an item cut from upper().
  std::string_view Written(std::string_view item) const {
    return text_.substr(static_cast<size_t>(item.data() - upper_.data()), item.size());
  }

  const std::string& upper() const { return upper_; }

 private:
  const FieldSpec& spec_;
  std::string_view text_;
  std::string upper_;
};

// Splits on commas; an empty element is an error.
Status ForEachItem(const FieldParser& p, const std::function<Status(std::string_view)>& fn) {
  std::string_view rest = p.upper();
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item.empty()) return p.Error("empty element in the list");
    if (Status s = fn(item); !s.ok()) return s;
    if (comma == std::string_view::npos) return Status::Ok();
    rest = rest.substr(comma + 1);
  }
}

Status ParsePlain(const FieldSpec& spec, std::string_view text, uint64_t* mask) {
  FieldParser p(spec, text);
  *mask = 0;
  return ForEachItem(p, [&](std::string_view item) { return p.Range(item, mask); });
}

Status ParseDom(std::string_view text, CronExpr* e) {
  FieldParser p(kDom, text);
  e->dom_star = text[0] == '*' || text == "?";
  if (text == "?") {
    e->days = 0xfffffffe;
    return Status::Ok();
  }
  uint64_t mask = 0;
  Status s = ForEachItem(p, [&](std::string_view item) {
    if (item == "L") {
      e->last_day = true;
      return Status::Ok();
    }
    if (item == "LW") {
      e->last_weekday = true;
      return Status::Ok();
    }
    if (item.size() >= 2 && item.back() == 'W' && IsDigit(item[0])) {
      int n;
      Status err;
      if (!p.Value(item.substr(0, item.size() - 1), &n, &err)) return err;
      e->nearest_weekday |= uint32_t{1} << n;
      return Status::Ok();
    }
    return p.Range(item, &mask);
  });
  e->days = static_cast<uint32_t>(mask);
  return s;
}

Status ParseDow(std::string_view text, CronExpr* e) {
  FieldParser p(kDow, text);
  e->dow_star = text[0] == '*' || text == "?";
  if (text == "?") {
    e->weekdays = 0x7f;
    return Status::Ok();
  }
  uint64_t mask = 0;
  Status s = ForEachItem(p, [&](std::string_view item) {
    Status err;
    if (size_t hash = item.find('#'); hash != std::string_view::npos) {
      int wd;
      if (!p.Value(item.substr(0, hash), &wd, &err)) return err;
      std::string_view n_text = item.substr(hash + 1);
      if (n_text.size() != 1 || n_text[0] < '1' || n_text[0] > '5') {
        return p.Error("#" + std::string(p.Written(n_text)) +
                       " is out of range #1..#5 (the nth weekday)");
      }
      e->nth_weekday[wd % 7] |= static_cast<uint8_t>(1u << (n_text[0] - '1'));
      return Status::Ok();
    }
    if (item.size() >= 2 && item.back() == 'L') {
      int wd;
      if (!p.Value(item.substr(0, item.size() - 1), &wd, &err)) return err;
      e->last_of_weekday |= static_cast<uint8_t>(1u << (wd % 7));
      return Status::Ok();
    }
    if (item == "L") return p.Error("\"L\" needs a weekday before it (5L or FRIL: last Friday)");
    return p.Range(item, &mask);
  });
  if (mask & (uint64_t{1} << 7)) mask |= 1;  // 7 is Sunday too
  e->weekdays = static_cast<uint8_t>(mask & 0x7f);
  return s;
}

int MaxDaysIn(int month) {
  static constexpr int kMax[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kMax[month - 1];
}

// With a day-of-month that must match (Vixie AND), refuse one no allowed month can ever have.
Status CheckDaysExist(const CronExpr& e, std::string_view dom_text, std::string_view month_text) {
  if (!e.dom_star && !e.dow_star) return Status::Ok();  // either field may match: dow rescues
  if (e.last_day || e.last_weekday) return Status::Ok();
  const uint32_t wanted = e.days | e.nearest_weekday;
  for (int m = 1; m <= 12; ++m) {
    if (!(e.months >> m & 1)) continue;
    const uint32_t possible = (uint32_t{2} << MaxDaysIn(m)) - 2;  // bits 1..max
    if (wanted & possible) return Status::Ok();
  }
  int smallest = 1;
  while (smallest < 31 && !(wanted >> smallest & 1)) ++smallest;
  return Status::Invalid("day-of-month", "day-of-month " + Quote(dom_text) + " with month " +
                                             Quote(month_text) +
                                             " can never fire: no allowed month has a day " +
                                             std::to_string(smallest));
}

std::vector<std::string_view> SplitFields(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

Status Refuse(std::string_view text, const std::string& reason) {
  return Status::Invalid("schedule", "schedule " + Quote(text) + ": " + reason);
}

// The five fields a macro stands for, or nullptr.
const char* MacroFields(const std::string& name) {
  struct Macro {
    const char* name;
    const char* fields;
  };
  static constexpr Macro kMacros[] = {
      {"@YEARLY", "0 0 1 1 *"}, {"@ANNUALLY", "0 0 1 1 *"}, {"@MONTHLY", "0 0 1 * *"},
      {"@WEEKLY", "0 0 * * 0"}, {"@DAILY", "0 0 * * *"},    {"@MIDNIGHT", "0 0 * * *"},
      {"@HOURLY", "0 * * * *"},
  };
  for (const Macro& m : kMacros)
    if (name == m.name) return m.fields;
  return nullptr;
}

Result<CronExpr> ParseFields(std::string_view text, const std::vector<std::string_view>& f) {
  CronExpr e;
  e.kind = CronKind::kFields;
  e.text = std::string(text);
  size_t i = 0;
  uint64_t mask = 0;
  if (f.size() == 6) {
    if (Status s = ParsePlain(kSecond, f[i++], &mask); !s.ok()) return s;
    e.seconds = mask;
  }
  if (Status s = ParsePlain(kMinute, f[i++], &mask); !s.ok()) return s;
  e.minutes = mask;
  std::string_view hour_text = f[i++];
  if (Status s = ParsePlain(kHour, hour_text, &mask); !s.ok()) return s;
  e.hours = static_cast<uint32_t>(mask);
  e.hour_elapsed = hour_text[0] == '*' || hour_text.find('/') != std::string_view::npos;
  std::string_view dom_text = f[i++];
  if (Status s = ParseDom(dom_text, &e); !s.ok()) return s;
  std::string_view month_text = f[i++];
  if (Status s = ParsePlain(kMonth, month_text, &mask); !s.ok()) return s;
  e.months = static_cast<uint16_t>(mask);
  if (Status s = ParseDow(f[i++], &e); !s.ok()) return s;
  if (Status s = CheckDaysExist(e, dom_text, month_text); !s.ok()) return s;
  return e;
}

}  // namespace

Result<CronExpr> ParseCron(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  if (text.empty()) return Refuse(text, "it is empty");
  const std::vector<std::string_view> f = SplitFields(text);
  if (text[0] == '@') {
    const std::string name = UpperCase(f[0]);
    if (name == "@EVERY") {
      if (f.size() != 2) return Refuse(text, "@every takes one duration (e.g. @every 90s)");
      Result<int64_t> ms = ParseDuration(f[1], "@every");
      if (!ms.ok()) return Refuse(text, ms.status().message());
      if (*ms < kMinEveryMs) return Refuse(text, "the interval must be at least 1s");
      CronExpr e;
      e.kind = CronKind::kEvery;
      e.text = std::string(text);
      e.every_ms = *ms;
      e.hour_elapsed = true;
      return e;
    }
    if (f.size() != 1) return Refuse(text, std::string(f[0]) + " takes no argument");
    if (name == "@REBOOT") {
      CronExpr e;
      e.kind = CronKind::kReboot;
      e.text = std::string(text);
      return e;
    }
    const char* fields = MacroFields(name);
    if (fields == nullptr) {
      return Refuse(text,
                    "unknown macro (use @yearly, @annually, @monthly, @weekly, @daily, "
                    "@midnight, @hourly, @reboot or @every DURATION)");
    }
    Result<CronExpr> e = ParseFields(fields, SplitFields(fields));
    if (e.ok()) e->text = std::string(text);
    return e;
  }
  if (f.size() != 5 && f.size() != 6) {
    return Refuse(text, "expected 5 or 6 fields, got " + std::to_string(f.size()) +
                            " ([SECOND] MINUTE HOUR DAY-OF-MONTH MONTH DAY-OF-WEEK)");
  }
  return ParseFields(text, f);
}

bool CronExpr::DayMatches(int64_t year, int month, int day) const {
  if (!(months >> month & 1)) return false;
  const cctz::civil_day first(year, month, 1);
  const int dim = static_cast<int>(cctz::civil_day(cctz::civil_month(first) + 1) - first);
  // cctz counts weekdays from Monday; cron from Sunday.
  return DayOfMonthMatches(dim, (static_cast<int>(cctz::get_weekday(first)) + 1) % 7, day);
}

bool CronExpr::DayOfMonthMatches(int dim, int first_weekday, int day) const {
  auto weekday_of = [first_weekday](int d) { return (first_weekday + d - 1) % 7; };
  const int wd = weekday_of(day);

  bool dom = (days >> day & 1) != 0;
  if (!dom && last_day) dom = day == dim;
  if (!dom && last_weekday) {
    const int wl = weekday_of(dim);
    dom = day == dim - (wl == 6 ? 1 : wl == 0 ? 2 : 0);
  }
  if (!dom && nearest_weekday != 0) {
    // Quartz nW: the Monday..Friday nearest day n, never leaving the month.
    for (int n = std::max(1, day - 2); n <= std::min(dim, day + 2) && !dom; ++n) {
      if (!(nearest_weekday >> n & 1)) continue;
      const int wn = weekday_of(n);
      int target = n;
      if (wn == 6) target = n == 1 ? 3 : n - 1;        // Saturday: Friday, or Monday the 3rd
      if (wn == 0) target = n == dim ? n - 2 : n + 1;  // Sunday: Monday, or the Friday before
      dom = day == target;
    }
  }

  bool dow = (weekdays >> wd & 1) != 0;
  if (!dow && nth_weekday[wd] != 0) dow = (nth_weekday[wd] >> ((day - 1) / 7) & 1) != 0;
  if (!dow && (last_of_weekday >> wd & 1)) dow = day + 7 > dim;

  return (dom_star || dow_star) ? (dom && dow) : (dom || dow);
}

}  // namespace tq
