#!/usr/bin/env bash
# The tests. Installs what is missing, then:
#
#   scripts/test.sh        the warnings-as-errors build and the suite but its long tests (the
#                          chaos runs, full disks, several hosts, hostile crowds, the browser):
#                          what a contributor runs before every commit
#   scripts/test.sh --all  that with the long tests, then the suite again under AddressSanitizer and
#                          UndefinedBehaviorSanitizer, the Debian package (dist/tq_VERSION_ARCH.deb,
#                          linted and checked without installing it), and each libFuzzer target
#                          (the cron engine; the frame and request decoder; job files and the
#                          crontab importer; users' job files and tqd.toml's user keys; tq web's
#                          request handling) for TQ_FUZZ_SECONDS (default 45) with clang. CI
#                          runs this one.
#
# Builds go through ccache when it is installed (scripts/deps.sh installs it), so a second run,
# or a clone in another folder, compiles only what changed. The time of each phase is printed at
# the end, whether the run passed or not.
set -euo pipefail
cd "$(dirname "$0")/.."

all=0
for arg in "$@"; do
  case $arg in
    --all) all=1 ;;
    -h | --help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "scripts/test.sh: unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)

# phase NAME COMMAND...: runs COMMAND and records how long it took.
phases=()
phase() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  phases+=("$(printf '%-28s %5d s%s' "$name" $((SECONDS - start)) \
    "$([ "$status" = 0 ] || echo "  (failed, exit $status)")")")
  return "$status"
}
# report STATUS: prints the phase times; keeps STATUS as the script's exit status (read before
# anything else runs, so nothing in the trap can change it).
report() {
  local status=$1 args=""
  [ "$all" = 1 ] && args=" --all"
  echo "== phase times (scripts/test.sh$args):" >&2
  for p in "${phases[@]}"; do echo "   $p" >&2; done
  echo "   $(printf '%-28s %5d s' total "$SECONDS")" >&2
  return "$status"
}
trap 'report $?' EXIT

# (set -e does not reach into a function run by phase: each step says when it failed.)
build() {  # build-dir, extra cmake flags... [-- targets...]
  local dir=$1 flags=() targets=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift && targets=(--target "$@")
  echo "== $dir: configure and build" >&2
  cmake -S . -B "$dir" -DTQ_WERROR=ON "${flags[@]}" >/dev/null || return
  cmake --build "$dir" -j"$jobs" "${targets[@]}"
}
suite() {  # build-dir [ctest options...]
  local dir=$1
  shift
  echo "== $dir: tests" >&2
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600 "$@")
}

phase "install packages" scripts/deps.sh

# ccache's default 5 GB holds less than the four build trees of one version (release,
# sanitizers, fuzzers, package): it evicted the oldest objects, the precompiled headers that
# every test file's object depends on among them, so a clean clone compiled most files again.
if command -v ccache >/dev/null; then
  limit=$(ccache --get-config max_size)
  case $limit in
    0 | 0.0 | *T) ;;  # no limit, or terabytes
    *G) [ "${limit%%.*}" -ge 20 ] || ccache --max-size 20G >/dev/null ;;
    *) ccache --max-size 20G >/dev/null ;;  # megabytes
  esac
fi
phase "build (release)" build build
# The everyday run leaves out the tests labelled long (tests/CMakeLists.txt); --all runs them.
if [ "$all" = 1 ]; then
  phase "tests (release)" suite build
else
  phase "tests (release, not long)" suite build -LE long
  exit 0
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
phase "build (sanitizers)" build build-sanitize -DTQ_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
phase "tests (sanitizers)" suite build-sanitize
unset ASAN_OPTIONS UBSAN_OPTIONS

# The Debian package, built by dpkg-buildpackage and debhelper from a copy of the tree (only tq,
# tqd and tq-shim are compiled); lintian errors fail it. check-deb unpacks it (never installs it)
# and checks its files, conffiles, control fields and maintainer scripts, and runs the programs.
echo "== dist: the Debian package" >&2
phase "package (build, lintian)" packaging/deb/build
phase "package (check-deb)" tests/package/check-deb dist/tq_*.deb

# Each fuzzer on a copy of its seed corpus, so the repository's stays as it is. libFuzzer exits
# non-zero on a crash, a sanitizer report, a failed check or an input slower than 10 s.
fuzz_targets=(tq-cron-fuzz tq-proto-fuzz tq-jobs-fuzz tq-users-fuzz tq-web-fuzz)
phase "build (fuzzers)" build build-fuzz -DTQ_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -- "${fuzz_targets[@]}"
fuzz_dir=$(mktemp -d)
run_fuzzer() {  # target, seed corpus directory
  local fuzzer=$PWD/build-fuzz/tests/$1 work=$fuzz_dir/$1
  mkdir -p "$work"
  cp -r "$2" "$work/corpus"
  (cd "$work" && "$fuzzer" -max_total_time="${TQ_FUZZ_SECONDS:-45}" -timeout=10 \
    -print_final_stats=1 corpus) || {
    echo "== $1 failed; the input is in build-fuzz/ (crash-*, timeout-*)" >&2
    cp "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-* build-fuzz/ \
      2>/dev/null || true
    return 1
  }
}
fuzz_all() {
  run_fuzzer tq-cron-fuzz tests/fuzz/corpus &&
    run_fuzzer tq-proto-fuzz tests/fuzz/proto_corpus &&
    run_fuzzer tq-jobs-fuzz tests/fuzz/jobs_corpus &&
    run_fuzzer tq-users-fuzz tests/fuzz/users_corpus &&
    run_fuzzer tq-web-fuzz tests/fuzz/web_corpus
}
status=0
phase "fuzz (5 targets)" fuzz_all || status=$?
rm -rf "$fuzz_dir"
exit "$status"
