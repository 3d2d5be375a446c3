#!/usr/bin/env bash
# tq with millions of stored tasks: for each size N, fills a store with N delayed tasks
# (tq-bench-fill: a day and more ahead, three queues, five priorities), starts tqd on it and
# times, medians of K calls each, `tq submit --delay 1d` (one more delayed task), `tq status ID`,
# `tq list --limit 20`, and one pick (submit a ready `true` and `tq wait` for it: chooser, start
# and end); then tqd's resident memory, its start-up time and the store's size, with each
# figure's ratio to the empty store.
# Usage: bench/scale.sh [SIZES="0 1000000 10000000"] [K=30]
#   (build first: scripts/test.sh, which builds tq-bench-fill; BIN=DIR picks another build;
#   TMPDIR=DIR puts the stores there: 10,000,000 tasks take about 2.5 GB)
set -uo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-"0 1000000 10000000"}
K=${2:-30}
BIN=$(realpath "${BIN:-build}")
(( BASH_VERSINFO[0] >= 5 )) || { echo "needs bash >= 5" >&2; exit 1; }
[ -x "$BIN/tq-bench-fill" ] || { echo "no $BIN/tq-bench-fill: build with the tests first" >&2; exit 1; }
export LC_ALL=C

base=$(mktemp -d "${TMPDIR:-/tmp}/tq-scale.XXXXXX")
daemon=""
cleanup() {
  [ -z "$daemon" ] || { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; }
  rm -rf "$base"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# Runs "$@" K times; prints the median wall time in ms.
time_ms() {
  local t0 t1 runs=()
  for _ in $(seq "$K"); do
    t0=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    t1=${EPOCHREALTIME/./}
    runs+=("$(( t1 - t0 ))")
  done
  awk -v us="$(median "${runs[@]}")" 'BEGIN{printf "%.2f", us/1000}'
}
pick() { local id; id=$("$BIN/tq" submit -- true) && "$BIN/tq" wait "$id"; }

declare -A fig
printf '%-10s %9s %9s %9s %9s %9s %9s %9s %9s\n' tasks fill_s start_ms submit_ms status_ms \
  list_ms pick_ms rss_mb db_mb
for n in $SIZES; do
  state=$base/s$n
  mkdir -p "$state"
  chmod 700 "$state"
  t0=${EPOCHREALTIME/./}
  "$BIN/tq-bench-fill" "$state/tq.db" "$n" || exit 1
  t1=${EPOCHREALTIME/./}
  fill_s=$(awk -v us="$(( t1 - t0 ))" 'BEGIN{printf "%.0f", us/1e6}')
  printf 'max_running = 2\ndurability = "full"\n' > "$base/tqd.toml"
  t0=${EPOCHREALTIME/./}
  "$BIN/tqd" --socket "$base/tq.sock" --state "$state" --config "$base/tqd.toml" \
    2>"$base/tqd-$n.log" &
  daemon=$!
  export TQ_SOCKET=$base/tq.sock
  until "$BIN/tq" ping >/dev/null 2>&1; do
    kill -0 "$daemon" 2>/dev/null || { echo "tqd did not start: $(cat "$base/tqd-$n.log")" >&2; exit 1; }
    sleep 0.01
  done
  t1=${EPOCHREALTIME/./}
  start_ms=$(awk -v us="$(( t1 - t0 ))" 'BEGIN{printf "%.0f", us/1000}')
  mid=$(( n > 0 ? n / 2 : 1 ))
  [ "$n" -gt 0 ] || "$BIN/tq" submit --delay 1d -- true >/dev/null
  submit=$(time_ms "$BIN/tq" submit --delay 1d -- true) || exit 1
  status=$(time_ms "$BIN/tq" status "$mid") || exit 1
  list=$(time_ms "$BIN/tq" list --limit 20) || exit 1
  pick_ms=$(time_ms pick) || exit 1
  rss=$(awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$daemon/status")
  kill "$daemon"; wait "$daemon" 2>/dev/null; daemon=""
  db=$(du -sm "$state" | awk '{print $1}')
  printf '%-10s %9s %9s %9s %9s %9s %9s %9s %9s\n' "$n" "$fill_s" "$start_ms" "$submit" "$status" \
    "$list" "$pick_ms" "$rss" "$db"
  for k in submit status list pick_ms rss; do fig[$n,$k]=${!k}; done
  rm -rf "$state"
done
first=${SIZES%% *}
echo
echo "ratio to $first tasks (target: within 1.5x; RSS under 128 MB):"
for n in $SIZES; do
  [ "$n" = "$first" ] && continue
  printf '%-10s' "$n"
  for k in submit status list pick_ms rss; do
    printf ' %s %sx ' "$k" "$(awk -v a="${fig[$n,$k]}" -v b="${fig[$first,$k]}" \
      'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
  done
  echo
done
