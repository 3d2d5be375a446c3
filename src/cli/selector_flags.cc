#include "cli/selector_flags.h"

#include <algorithm>

#include "cli/arg_checks.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// True when `allowed` holds every finished state: `all-finished` then stands for them.
bool TakesAllFinished(const std::vector<TaskState>& allowed) {
  return std::count_if(allowed.begin(), allowed.end(), IsTerminal) == 4;
}

// "a b c": the names --state takes for a verb acting on `allowed`.
std::string AllowedNames(const std::vector<TaskState>& allowed) {
  const std::string names = StateNames(allowed);
  return TakesAllFinished(allowed) ? names + " all-finished" : names;
}

}  // namespace

void SelectorFlags::AddTo(CLI::App* sub, const std::string& ids_help,
                          const std::string& states_help) {
  sub->add_option("ids", ids, ids_help)->check(DecimalCheck(TaskIdRange()));
  sub->add_option("--state", states, states_help + "; repeat or separate with commas")
      ->delimiter(',');
  sub->add_option("-q,--queue", queue, "only tasks of this queue");
  sub->add_option("--label", label, "only tasks with this label");
  sub->add_option("-u,--user", user, "only this user's tasks (another's: admins only)");
}

Result<TaskSelector> SelectorFlags::Selector(const std::vector<TaskState>& allowed) const {
  TaskSelector select;
  select.ids.assign(ids.begin(), ids.end());
  auto add = [&](TaskState s) {
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end() &&
        std::find(select.states.begin(), select.states.end(), s) == select.states.end())
      select.states.push_back(s);
  };
  for (const std::string& name : states) {
    const std::optional<TaskState> s = StateFromName(name);
    const bool known = s && std::find(allowed.begin(), allowed.end(), *s) != allowed.end();
    if (name == "all-finished" && TakesAllFinished(allowed)) {
      for (TaskState f : allowed) add(f);
    } else if (known) {
      add(*s);
      if (*s == TaskState::kSucceeded) add(TaskState::kExpired);
    } else {
      return Status::Invalid("--state",
                             "--state: " + Quote(name) + " is not one of " + AllowedNames(allowed));
    }
  }
  if (!queue.empty()) select.queue = queue;
  if (!label.empty()) select.label = label;
  if (!user.empty()) select.user = user;
  if (!select.ids.empty() && select.HasFilter())
    return Status::Invalid("ids", "give task ids or --state/--queue/--label/--user, not both");
  return select;
}

Result<TaskSelector> SelectorFlags::SomeSelector(const std::vector<TaskState>& allowed,
                                                 const char* verb) const {
  auto select = Selector(allowed);
  if (select.ok() && !NeedsSome(*select).ok())
    return Status::Invalid("ids", std::string(verb) +
                                      " needs task ids or a filter (--state, --queue, --label, "
                                      "--user)");
  return select;
}

}  // namespace tq
