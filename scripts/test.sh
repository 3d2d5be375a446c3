#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite twice: a warnings-as-errors
# build, and an AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)

run_suite() {  # build-dir, extra cmake flags...
  local dir=$1; shift
  echo "== $dir: configure and build" >&2
  cmake -S . -B "$dir" -DTQ_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  echo "== $dir: tests" >&2
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300)
}

run_suite build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-sanitize -DTQ_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
