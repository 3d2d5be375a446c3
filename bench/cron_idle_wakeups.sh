#!/usr/bin/env bash
# An idle daemon's cost with many cron jobs: wake-ups per minute of a tqd holding 1,000 jobs none
# of which is due (voluntary context switches of all its threads over the window, and epoll waits
# counted by strace when it is installed and allowed to attach), then the time a tqd takes to start
# with 10,000 jobs in 100 files (none of which has run yet), to reload them (`tq reload`), to list
# them (`tq jobs`, `tq jobs --json`) and to start again over the same store.
# Usage: bench/cron_idle_wakeups.sh [WINDOW_SECONDS=60]   (build first: scripts/dev.sh or
#   scripts/test.sh; BIN=DIR picks another build)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-60}
BIN=${BIN:-build}
(( BASH_VERSINFO[0] >= 5 )) || { echo "needs bash >= 5" >&2; exit 1; }
[[ $W =~ ^[0-9]+$ && $W -ge 1 ]] || { echo "WINDOW_SECONDS must be a whole number >= 1" >&2; exit 1; }
[[ -x $BIN/tqd && -x $BIN/tq ]] || { echo "no $BIN/tqd or $BIN/tq: build first" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tq-bench-cron-idle.XXXXXX")
daemon=
stop_daemon() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  daemon=
}
cleanup() { stop_daemon; rm -rf "$work"; }
trap cleanup EXIT

now() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }  # microseconds
t0=0 t1=0
ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }

# $1 = directory, $2 = files, $3 = jobs per file: jobs due once a year, on 1 January at 00:00
# (none is due unless the bench runs across New Year).
write_jobs() {
  local d=$1 f j
  mkdir -p "$d"
  for ((f = 0; f < $2; f++)); do
    for ((j = 0; j < $3; j++)); do
      printf '[[job]]\nname = "f%d-j%d"\nschedule = "0 0 1 1 *"\ncommand = "true"\n\n' "$f" "$j"
    done > "$d/file$f.toml"
  done
}

# Starts a private tqd over the jobs in $1/jobs.d; sets `daemon`; returns once it answers.
start_daemon() {
  local d=$1
  printf 'jobs_dir = "%s"\n' "$d/jobs.d" > "$d/tqd.toml"
  "$BIN/tqd" --socket "$d/tq.sock" --state "$d/state" --config "$d/tqd.toml" 2>"$d/tqd.log" &
  daemon=$!
  export TQ_SOCKET=$d/tq.sock
  for _ in $(seq 400); do "$BIN/tq" ping >/dev/null 2>&1 && return 0; sleep 0.025; done
  echo "tqd did not start:" >&2; cat "$d/tqd.log" >&2; exit 1
}

# Waits until `tq jobs` lists $1 jobs (one line each after a header).
wait_jobs() {
  local n
  for _ in $(seq 400); do
    n=$("$BIN/tq" jobs 2>/dev/null | tail -n +2 | wc -l)
    (( n >= $1 )) && return 0
    sleep 0.025
  done
  echo "tq jobs lists $n jobs, not $1" >&2; exit 1
}

switches() {  # voluntary context switches of every thread of process $1
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'
}

echo "tq bench: cron scale on $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# 1. Idle wake-ups with 1,000 jobs in 10 files.
idle=$work/idle
write_jobs "$idle/jobs.d" 10 100
start_daemon "$idle"
wait_jobs 1000
sleep 2  # let the start settle (first firings recorded, clients gone)
a=$(switches "$daemon")
sleep "$W"
b=$(switches "$daemon")
awk -v n=$((b - a)) -v w="$W" 'BEGIN { printf "idle, 1000 jobs none due: %d voluntary context switches in %d s (%.1f per minute)\n", n, w, n * 60 / w }'
# The same with strace, when it is installed and may attach (it exits at once when it may not).
if command -v strace >/dev/null 2>&1; then
  tids=()
  for t in /proc/"$daemon"/task/*; do tids+=(-p "${t##*/}"); done
  timeout -s INT "$W" strace -f -c -e trace=epoll_wait,epoll_pwait,epoll_pwait2 "${tids[@]}" \
    -o "$work/strace.txt" >/dev/null 2>"$work/strace.err" || true
fi
# strace prints no summary when it saw no call at all.
if [[ -s $work/strace.err ]] && grep -q attached "$work/strace.err"; then
  calls=0
  [[ -s $work/strace.txt ]] && calls=$(awk '$NF ~ /^epoll/ { n += $4 } END { print n + 0 }' "$work/strace.txt")
  echo "idle, 1000 jobs none due: $calls epoll waits in $W s (strace)"
else
  echo "idle epoll waits: not measured (strace missing or not allowed to attach)"
fi
stop_daemon

# 2. 10,000 jobs in 100 files: start, reload, list.
big=$work/big
write_jobs "$big/jobs.d" 100 100
now t0
start_daemon "$big"
wait_jobs 10000
now t1
echo "start with 10000 jobs in 100 files until tq jobs lists them all: $(ms $((t1 - t0))) ms"
# The median of 11 runs of a command, in ms.
median_ms() {
  local i times=()
  for ((i = 0; i < 11; i++)); do
    now t0
    "$@" >/dev/null
    now t1
    times+=($((t1 - t0)))
  done
  ms "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 6p)"
}
echo "tq reload of 10000 jobs (median of 11): $(median_ms "$BIN/tq" reload) ms"
echo "tq jobs listing 10000 jobs (median of 11): $(median_ms "$BIN/tq" jobs) ms"
echo "tq jobs --json of 10000 jobs (median of 11): $(median_ms "$BIN/tq" jobs --json) ms"
stop_daemon
now t0
start_daemon "$big"
wait_jobs 10000
now t1
echo "restart with the same 10000 jobs until tq jobs lists them all: $(ms $((t1 - t0))) ms"
