#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite twice: a warnings-as-errors
# build, and an AddressSanitizer + UndefinedBehaviorSanitizer build; then builds the Debian
# package (dist/tq_VERSION_ARCH.deb, linted) and checks it without installing it; then runs each
# libFuzzer target (the cron engine; the frame and request decoder; job files and the crontab
# importer; users' job files and tqd.toml's user keys) for TQ_FUZZ_SECONDS (default 45) with
# clang.
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
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600)
}

run_suite build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-sanitize -DTQ_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug

# The Debian package, built by dpkg-buildpackage and debhelper from a copy of the tree (only tq,
# tqd and tq-shim are compiled); lintian errors fail it. check-deb unpacks it (never installs it)
# and checks its files, conffiles, control fields and maintainer scripts, and runs the programs.
echo "== dist: the Debian package" >&2
packaging/deb/build
tests/package/check-deb dist/tq_*.deb

# Each fuzzer on a copy of its seed corpus, so the repository's stays as it is. libFuzzer exits
# non-zero on a crash, a sanitizer report, a failed check or an input slower than 10 s.
echo "== build-fuzz: configure, build and run the fuzzers" >&2
cmake -S . -B build-fuzz -DTQ_WERROR=ON -DTQ_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-fuzz -j"$jobs" --target tq-cron-fuzz tq-proto-fuzz tq-jobs-fuzz tq-users-fuzz
fuzz_dir=$(mktemp -d)
trap 'rm -rf "$fuzz_dir"' EXIT
run_fuzzer() {  # target, seed corpus directory
  local fuzzer=$PWD/build-fuzz/tests/$1 work=$fuzz_dir/$1
  mkdir -p "$work"
  cp -r "$2" "$work/corpus"
  (cd "$work" && "$fuzzer" -max_total_time="${TQ_FUZZ_SECONDS:-45}" -timeout=10 \
    -print_final_stats=1 corpus) || {
    echo "== $1 failed; the input is in build-fuzz/ (crash-*, timeout-*)" >&2
    cp "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-* build-fuzz/ \
      2>/dev/null || true
    exit 1
  }
}
run_fuzzer tq-cron-fuzz tests/fuzz/corpus
run_fuzzer tq-proto-fuzz tests/fuzz/proto_corpus
run_fuzzer tq-jobs-fuzz tests/fuzz/jobs_corpus
run_fuzzer tq-users-fuzz tests/fuzz/users_corpus
