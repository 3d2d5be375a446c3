// A fresh directory under the system temp dir for one test, removed with everything in it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tq {

/// Creates tq-PREFIX-XXXXXX under the temp dir; removes it on destruction.
struct TempDir {
  std::filesystem::path path;

  explicit TempDir(const std::string& prefix = "test") {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / ("tq-" + prefix + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr)
      throw std::filesystem::filesystem_error("mkdtemp", tmpl, {});
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` inside the directory.
  std::string File(const std::string& name) const { return (path / name).string(); }
};

}  // namespace tq
