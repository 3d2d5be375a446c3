#!/usr/bin/env bash
# What a stage costs (SPEC 13): N tasks of S stages of `true` beside N*S plain tasks of `true`,
# submitted in one --batch --json-lines each, on one tqd with P slots (durability "full"). Prints
# the seconds until every task ended and the attempts per second of each, and the ratio: a stage
# is an attempt through the chooser plus its context directory and env file read.
# Usage: bench/stages.sh [N=300] [S=3] [P=2]   (build first; BIN=DIR picks another build)
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:-300}
S=${2:-3}
P=${3:-2}
BIN=$(realpath "${BIN:-build}")
[ -x "$BIN/tqd" ] || { echo "no $BIN/tqd: build first" >&2; exit 1; }
export LC_ALL=C

base=$(mktemp -d "${TMPDIR:-/tmp}/tq-stages.XXXXXX")
daemon=""
cleanup() {
  [ -z "$daemon" ] || { kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; }
  rm -rf "$base"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

printf 'max_running = %s\n' "$P" > "$base/tqd.toml"
"$BIN/tqd" --socket "$base/s" --state "$base/state" --config "$base/tqd.toml" \
  > "$base/tqd.log" 2>&1 &
daemon=$!
export TQ_SOCKET=$base/s
for _ in $(seq 100); do "$BIN/tq" ping > /dev/null 2>&1 && break; sleep 0.05; done

# Runs the batch on stdin under label $1 and prints the seconds until all of it ended.
run() {
  local start end
  start=${EPOCHREALTIME/./}
  "$BIN/tq" submit --batch --json-lines --label "$1" > /dev/null || exit 1
  "$BIN/tq" wait --label "$1" > /dev/null || exit 1
  end=${EPOCHREALTIME/./}
  awk -v us=$((end - start)) 'BEGIN { printf "%.2f", us / 1e6 }'
}

stages=$(for s in $(seq "$S"); do printf '{"name":"s%s","argv":["true"]},' "$s"; done)
staged=$(for _ in $(seq "$N"); do printf '{"stages":[%s]}\n' "${stages%,}"; done | run staged)
plain=$(for _ in $(seq $((N * S))); do printf '{"argv":["true"]}\n'; done | run plain)
attempts=$((N * S))
echo "$N tasks of $S stages: ${staged} s, $(awk -v a=$attempts -v t="$staged" 'BEGIN { printf "%.0f", a / t }') stage attempts/s"
echo "$attempts plain tasks: ${plain} s, $(awk -v a=$attempts -v t="$plain" 'BEGIN { printf "%.0f", a / t }') attempts/s"
echo "a stage costs $(awk -v a="$staged" -v b="$plain" 'BEGIN { printf "%.2f", a / b }')x a plain task's attempt"
