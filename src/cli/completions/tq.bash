# Bash completion for tq, the task queue client: subcommands, their flags, enumerated values,
# and the task ids, job names and queue names of a running tqd (from `tq list`, `tq jobs` and
# `tq queue list`, given at most a second; nothing when tqd does not answer).
# Self-contained: it needs none of the bash-completion package's helpers.

# The subcommands and long flags of each command; the global flags of "tq" work at any level.
declare -gA _tq_subcommands=(
  [tq]="submit status list wait cancel logs ping version retry clean update hold release resources hosts queue jobs reload cron stats events web"
  [tq queue]="list add pause resume delete set"
  [tq jobs]="show run enable disable check install cat remove edit"
  [tq cron]="next import"
)
declare -gA _tq_flags=(
  [tq]="--socket --json --help"
  [tq submit]="--shell --queue --priority --stdin --label --use --delay --at --after --timeout
    --stage --stages
    --clean-env --keep-background --key --version --supersede-running --retries --backoff
    --backoff-base --backoff-max --no-jitter --retry-on-exit --no-retry-on-exit --pending-ttl
    --on-failure --on-success --on-finish --mailto --mail-on --shards --host --batch --null
    --json-lines"
  [tq list]="--state -q --queue --label -u --user --command --limit -l --long"
  [tq logs]="--follow --stderr --merged --attempt --stage --state -q --queue --label -u --user"
  [tq wait]="--state -q --queue --label -u --user"
  [tq cancel]="--state -q --queue --label -u --user --signal --kill"
  [tq retry]="--failed --succeeded --from-start --from --state -q --queue --label -u --user"
  [tq clean]="--state -q --queue --label -u --user --older-than"
  [tq update]="--priority --queue --label --no-labels --delay --at --timeout --retries"
  [tq hold]="--state -q --queue --label -u --user"
  [tq release]="--state -q --queue --label -u --user"
  [tq queue add]="--concurrency --priority-mix"
  [tq queue set]="--concurrency --priority-mix"
  [tq jobs run]="--force"
  [tq jobs install]="--user"
  [tq jobs cat]="--user"
  [tq jobs remove]="--user"
  [tq jobs edit]="--user"
  [tq cron next]="--tz --from --count --dst"
  [tq cron import]="--system --user-format"
  [tq stats]="--prometheus"
  [tq events]="--follow"
  [tq web]="--listen --token-file --trust-user-header --read-only"
)
# The flags (of any command) whose value is the next word, or follows "=".
declare -ga _tq_valued=(--socket --shell -q --queue -p --priority -l --label --use --delay --at --after
  --timeout --key --version --retries --backoff --backoff-base --backoff-max --retry-on-exit
  --no-retry-on-exit --pending-ttl --on-failure --on-success --on-finish --mailto --mail-on
  --state --limit --attempt --concurrency -u --user --tz --from --count --dst --older-than --signal --priority-mix
  --stage --stages --command --shards --host)

# Whether the flag "$2" takes a value under the command "$1": one of _tq_valued, but for the
# flags that share a name with one of them.
_tq_takes_value() {
  case "$1 $2" in
    "tq list -l" | "tq --version") return 1 ;;
  esac
  [[ " ${_tq_valued[*]} " == *" $2 "* ]]
}

# What `tq ARGS...` prints, against the --socket given on the command line (else $TQ_SOCKET or
# tq's default); nothing when tqd does not answer within a second.
_tq_ask() {
  local i socket=()
  for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
    [[ ${COMP_WORDS[i]} == --socket ]] || continue
    [[ ${COMP_WORDS[i + 1]} == = ]] && ((++i))  # --socket=PATH arrives as three words
    socket=(--socket "${COMP_WORDS[i + 1]/#\~/$HOME}")
  done
  timeout 1 tq "${socket[@]}" "$@" 2>/dev/null
}

# The ids of the newest 100 tasks, only those in one of the states "$1" when it is not empty.
_tq_ids() {
  _tq_ask list | awk -v states=" $1 " \
    'NR > 1 && (states == "  " || index(states, " " $2 " ")) { print $1 }'
}

# The names of the jobs, from the table before any load errors (a "*" marks a last good one).
_tq_jobs() {
  _tq_ask jobs | awk 'NR > 1 && NF == 0 { exit } NR > 1 { sub(/\*$/, "", $1); print $1 }'
}

_tq_queues() {
  _tq_ask queue list | awk 'NR > 1 { print $1 }'
}

# COMPREPLY: the words of "$1" that start with the word being completed ($cur of _tq).
_tq_reply() {
  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_tq_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

_tq() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  # bash splits --flag=value into three words: complete the value after the "=".
  if [[ $cur == = ]]; then
    cur=
  elif [[ $prev == = ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi

  # Find the (nested) subcommand, how many positional arguments it has so far, and for submit
  # where the task's command starts (at its first positional argument, or after --).
  local path=tq i w positionals=0 command_at=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if [[ $w == = ]]; then
      ((++i))  # skip the value of --flag=value
    elif [[ $path == "tq submit" && ($w == -- || $w != -*) ]]; then
      command_at=$i
      [[ $w == -- ]] && ((++command_at))
      break
    elif _tq_takes_value "$path" "$w"; then
      [[ ${COMP_WORDS[i + 1]} == = ]] || ((++i))
    elif [[ $w == -* ]]; then
      :
    elif [[ " ${_tq_subcommands[$path]} " == *" $w "* ]]; then
      path+=" $w"
    else
      ((++positionals))
    fi
  done

  if ((command_at)); then  # the task's command: a program, then its arguments
    if ((COMP_CWORD == command_at)); then
      mapfile -t COMPREPLY < <(compgen -c -- "$cur")
    else
      _tq_files
    fi
    return
  fi

  case $prev in
    --state)
      case $path in
        "tq clean") _tq_reply "succeeded failed cancelled expired all-finished" ;;
        "tq cancel") _tq_reply "pending running" ;;
        "tq retry") _tq_reply "failed cancelled" ;;
        "tq hold" | "tq release") _tq_reply "pending" ;;
        *) _tq_reply "pending running succeeded failed cancelled expired" ;;
      esac ;;
    --backoff) _tq_reply "fixed exponential progressive" ;;
    --signal) _tq_reply "HUP INT QUIT ABRT KILL USR1 USR2 ALRM TERM" ;;
    --priority-mix) _tq_reply "80/20 strict" ;;
    --mail-on) _tq_reply "failure always output" ;;
    -p | --priority) _tq_reply "1 2 3 4 5" ;;
    --dst) _tq_reply "cron skip first both" ;;
    -q | --queue) _tq_reply "$(_tq_queues)" ;;
    --after) _tq_reply "$(_tq_ids)" ;;
    -u | --user) mapfile -t COMPREPLY < <(compgen -u -- "$cur") ;;
    --socket | --stages) _tq_files ;;
  esac
  _tq_takes_value "$path" "$prev" && return  # any other value: nothing to suggest

  if [[ $cur == -* ]]; then
    local flags=${_tq_flags[tq]}
    [[ $path != tq ]] && flags+=" ${_tq_flags[$path]}"
    [[ $path == tq ]] && flags+=" -V --version"  # before a command only
    _tq_reply "$flags"
    return
  fi
  if [[ -n ${_tq_subcommands[$path]} ]]; then
    _tq_reply "${_tq_subcommands[$path]}"
    return
  fi
  case $path in
    "tq submit") mapfile -t COMPREPLY < <(compgen -c -- "$cur") ;;  # the task's command
    "tq status") ((positionals == 0)) && _tq_reply "$(_tq_ids)" ;;
    "tq wait" | "tq logs") _tq_reply "$(_tq_ids)" ;;
    "tq cancel") _tq_reply "$(_tq_ids "pending running")" ;;
    "tq retry") _tq_reply "$(_tq_ids "failed cancelled")" ;;
    "tq clean") _tq_reply "$(_tq_ids "succeeded failed cancelled expired")" ;;
    "tq update") ((positionals == 0)) && _tq_reply "$(_tq_ids pending)" ;;
    "tq hold" | "tq release") _tq_reply "$(_tq_ids pending)" ;;
    "tq jobs show" | "tq jobs run" | "tq jobs enable" | "tq jobs disable")
      ((positionals == 0)) && _tq_reply "$(_tq_jobs)" ;;
    "tq queue pause" | "tq queue resume" | "tq queue delete" | "tq queue set")
      ((positionals == 0)) && _tq_reply "$(_tq_queues)" ;;
    "tq jobs check") _tq_files ;;
    "tq jobs install" | "tq cron import") ((positionals == 0)) && _tq_files ;;
  esac
}

complete -F _tq tq
