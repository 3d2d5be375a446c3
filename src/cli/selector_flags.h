// The filters of the verbs that act on many tasks (clean, wait, cancel, retry, logs): --state, -q,
// --label and -u, turned into the TaskSelector the daemon resolves.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// A subcommand's task ids and filters.
struct SelectorFlags {
  std::vector<long long> ids;
  std::vector<std::string> states;
  std::string queue, label, user;

  /// Adds the ids and filters to `sub`: `--state` takes the names in `states_help`.
  void AddTo(CLI::App* sub, const std::string& ids_help, const std::string& states_help);
  /// The selector these flags make. `--state succeeded` takes in expired tasks (succeeded ones
  /// past their retention) and `all-finished` stands for every finished state; a state outside
  /// `allowed`, or ids with filters, is refused naming the flag.
  Result<TaskSelector> Selector(const std::vector<TaskState>& allowed) const;
  /// As Selector, refusing a selector that names nothing (`verb` never acts on every task).
  Result<TaskSelector> SomeSelector(const std::vector<TaskState>& allowed, const char* verb) const;
};

}  // namespace tq
