# Fish completion for tq, the task queue client: subcommands, their flags, enumerated values,
# and the task ids, job names and queue names of a running tqd (from `tq list`, `tq jobs` and
# `tq queue list`, given at most a second; nothing when tqd does not answer).

function __tq_subcommands -a path
    switch $path
        case tq
            echo submit status list wait cancel logs ping version retry clean update hold release resources hosts queue jobs reload cron stats events web
        case 'tq queue'
            echo list add pause resume delete set
        case 'tq jobs'
            echo show run enable disable check install cat remove edit
        case 'tq cron'
            echo next import
    end | string split ' '
end

# The (nested) subcommand being completed ("tq", "tq jobs", ...) and how many positional
# arguments it has so far, one a line; or, once the task's command of `tq submit` started,
# "command" and that command's words.
function __tq_path
    set -l valued --socket --shell -q --queue -p --priority -l --label --use --delay --at --after \
        --timeout --key --version --retries --backoff --backoff-base --backoff-max \
        --retry-on-exit --no-retry-on-exit --pending-ttl --on-failure --on-success --on-finish \
        --mailto --mail-on --state --limit --attempt --concurrency -u --user --tz --from --count \
        --dst --older-than --signal --priority-mix --stage --stages --command --shards --host
    set -l path tq
    set -l positionals 0
    set -l words (commandline -opc)[2..-1]
    while set -q words[1]
        set -l w $words[1]
        set -e words[1]
        if test "$path" = "tq submit"; and begin
                test "$w" = --; or not string match -q -- '-*' $w
            end
            test "$w" = --; or set -p words $w
            printf '%s\n' command $words
            return
        else if contains -- $w $valued
            set -e words[1]
        else if string match -q -- '-*' $w
            continue
        else if contains -- $w (__tq_subcommands $path)
            set path "$path $w"
        else
            set positionals (math $positionals + 1)
        end
    end
    printf '%s\n' $path $positionals
end

# Whether the command line is in subcommand "$argv[1]" with at most "$argv[2]" positional
# arguments (any number when not given).
function __tq_is -a path most
    set -l at (__tq_path)
    test "$at[1]" = "$path"; and begin
        test -z "$most"; or test "$at[2]" -le "$most"
    end
end

# What `tq ARGS...` prints, against the --socket given on the command line (else $TQ_SOCKET or
# tq's default); nothing when tqd does not answer within a second.
function __tq_ask
    set -l socket
    set -l words (commandline -opc)
    for i in (seq (count $words))
        switch $words[$i]
            case --socket
                set socket --socket $words[(math $i + 1)]
            case '--socket=*'
                set socket $words[$i]
        end
    end
    set socket (string replace -r '^(--socket=)?~' '$1'$HOME -- $socket)
    timeout 1 tq $socket $argv 2>/dev/null
end

# The newest 100 tasks (tab, their state), only those in one of the states $argv when given.
function __tq_ids
    __tq_ask list | awk -v states=" $argv " \
        'NR > 1 && (states == "  " || index(states, " " $2 " ")) { print $1 "\t" $2 }'
end

# The names of the jobs, from the table before any load errors (a "*" marks a last good one).
function __tq_jobs
    __tq_ask jobs | awk 'NR > 1 && NF == 0 { exit } NR > 1 { sub(/\*$/, "", $1); print $1 }'
end

function __tq_queues
    __tq_ask queue list | awk 'NR > 1 { print $1 "\t" $2 }'
end

# The task's command of `tq submit`, completed as a command line of its own.
function __tq_task_command
    set -l words (__tq_path)[2..-1]
    complete -C (string join -- ' ' (string escape -- $words) (commandline -ct))
end

complete -c tq -f

# Global flags, at every level.
complete -c tq -n 'not __tq_is command' -l socket -r -F -d "the daemon's socket"
complete -c tq -n 'not __tq_is command' -l json -d 'machine-readable output (JSON)'
complete -c tq -n 'not __tq_is command' -s h -l help -d 'print help and exit'
complete -c tq -n '__tq_is tq' -s V -l version -d 'print the versions of tq and tqd'

complete -c tq -n '__tq_is tq' -a submit -d 'submit a task; prints its id'
complete -c tq -n '__tq_is tq' -a status -d 'show a task and its attempts'
complete -c tq -n '__tq_is tq' -a list -d 'list tasks, newest first'
complete -c tq -n '__tq_is tq' -a wait -d 'wait until tasks have ended'
complete -c tq -n '__tq_is tq' -a cancel -d 'cancel tasks'
complete -c tq -n '__tq_is tq' -a logs -d "print a task's output"
complete -c tq -n '__tq_is tq' -a ping -d 'check that the daemon answers'
complete -c tq -n '__tq_is tq' -a version -d 'print the versions of tq and tqd'
complete -c tq -n '__tq_is tq' -a retry -d 're-queue failed or cancelled tasks'
complete -c tq -n '__tq_is tq' -a clean -d 'remove finished tasks and their output now'
complete -c tq -n '__tq_is tq' -a update -d 'change a pending task before it starts'
complete -c tq -n '__tq_is tq' -a hold -d 'keep pending tasks from starting until released'
complete -c tq -n '__tq_is tq' -a release -d 'let held tasks start again'
complete -c tq -n '__tq_is tq' -a resources -d 'show the units of each resource and who holds them'
complete -c tq -n '__tq_is tq' -a hosts -d 'show the hosts of the store, live, silent, stopped or fenced'
complete -c tq -n '__tq_is tq' -a queue -d 'list queues; add, pause, resume, change or delete one'
complete -c tq -n '__tq_is tq' -a jobs -d 'list the cron jobs; show, run, enable, disable one'
complete -c tq -n '__tq_is tq' -a reload -d 'read the job files again'
complete -c tq -n '__tq_is tq' -a cron -d 'check cron schedules, import crontabs'
complete -c tq -n '__tq_is tq' -a stats -d "show the daemon's counts and counters"
complete -c tq -n '__tq_is tq' -a web -d 'serve the web console'
complete -c tq -n '__tq_is tq' -a events -d 'print task state changes as JSON lines'

set -l submit '__tq_is "tq submit"'
complete -c tq -n $submit -l shell -x -d 'run STRING with /bin/sh -c instead of a command'
complete -c tq -n $submit -l stage -x -d 'start stage NAME; its command follows -- or --shell'
complete -c tq -n $submit -l stages -r -F -d 'the stages from a TOML file of [[stages]] tables'
complete -c tq -n $submit -s q -l queue -xa '(__tq_queues)' -d 'queue name'
complete -c tq -n $submit -s p -l priority -xa '1 2 3 4 5' -d '1 (highest) .. 5 (lowest)'
complete -c tq -n $submit -l stdin -d 'send standard input to the task as its stdin'
complete -c tq -n $submit -s l -l label -x -d 'a label for filtering (repeatable)'
complete -c tq -n $submit -l use -x -d 'units of a resource each attempt holds: NAME=COUNT or NAME'
complete -c tq -n $submit -l delay -x -d 'start no earlier than DURATION from now'
complete -c tq -n $submit -l at -x -d 'start no earlier than TIME'
complete -c tq -n $submit -l after -xa '(__tq_ids)' -d 'wait until these tasks succeeded'
complete -c tq -n $submit -l timeout -x -d 'running-time limit (DURATION)'
complete -c tq -n $submit -l clean-env -d "run with cron's environment, not yours"
complete -c tq -n $submit -l keep-background -d 'leave background processes running at the end'
complete -c tq -n $submit -l key -x -d 'idempotency key: one task per key and version'
complete -c tq -n $submit -l version -x -d 'version of the keyed request'
complete -c tq -n $submit -l supersede-running -d 'also cancel a running older version of the key'
complete -c tq -n $submit -l retries -x -d 'attempts allowed after the first failed one'
complete -c tq -n $submit -l backoff -xa 'fixed exponential progressive' -d 'delay between attempts'
complete -c tq -n $submit -l backoff-base -x -d 'first (or fixed) delay (DURATION)'
complete -c tq -n $submit -l backoff-max -x -d 'longest delay (DURATION)'
complete -c tq -n $submit -l no-jitter -d 'do not spread delays by +-20%'
complete -c tq -n $submit -l retry-on-exit -x -d 'only these exit codes retry'
complete -c tq -n $submit -l no-retry-on-exit -x -d 'these exit codes never retry'
complete -c tq -n $submit -l pending-ttl -x -d 'fail if not started within DURATION'
complete -c tq -n $submit -l shards -x -d 'N tasks with TQ_SHARD_INDEX and TQ_SHARD_TOTAL'
complete -c tq -n $submit -l host -x -d 'run it on this host of a shared store'
complete -c tq -n $submit -l on-failure -x -d 'run CMD once the task has finally failed'
complete -c tq -n $submit -l on-success -x -d 'run CMD when the task succeeded'
complete -c tq -n $submit -l on-finish -x -d 'run CMD whenever the task ends'
complete -c tq -n $submit -l mailto -x -d 'mail the output of a failed run to ADDR[,ADDR...]'
complete -c tq -n $submit -l mail-on -xa 'failure always output' -d 'when to mail (default: failure)'
complete -c tq -n $submit -l batch -d 'one task per line of standard input'
complete -c tq -n $submit -s 0 -l null -d 'with --batch: NUL-separated arguments'
complete -c tq -n $submit -l json-lines -d 'with --batch: one JSON object per line'
complete -c tq -n $submit -xa '(__fish_complete_command)'
complete -c tq -n '__tq_is command' -xa '(__tq_task_command)'

complete -c tq -n '__tq_is "tq status" 0' -xa '(__tq_ids)'
complete -c tq -n '__tq_is "tq wait"' -xa '(__tq_ids)'

# The filters of the verbs that act on many tasks; --state takes the states after the verb.
function __tq_filters -a verb
    set -l cond "__tq_is \"tq $verb\""
    complete -c tq -n $cond -l state -xa "$argv[2..-1]" -d 'only tasks in these states'
    complete -c tq -n $cond -s q -l queue -xa '(__tq_queues)' -d 'only this queue'
    complete -c tq -n $cond -l label -x -d 'only tasks with this label'
    complete -c tq -n $cond -s u -l user -xa '(__fish_complete_users)' \
        -d "only this user's tasks (another's: admins only)"
end
__tq_filters wait pending running succeeded failed cancelled expired
__tq_filters cancel pending running
complete -c tq -n '__tq_is "tq cancel"' -l signal -xa 'HUP INT QUIT ABRT KILL USR1 USR2 ALRM TERM' \
    -d 'send this signal first, KILL after the grace'
complete -c tq -n '__tq_is "tq cancel"' -l kill -d 'KILL at once, without the grace'
__tq_filters retry failed cancelled
__tq_filters clean succeeded failed cancelled expired all-finished
__tq_filters logs pending running succeeded failed cancelled expired all-finished
complete -c tq -n '__tq_is "tq cancel"' -xa '(__tq_ids pending running)'

set -l list '__tq_is "tq list"'
complete -c tq -n $list -l state -xa 'pending running succeeded failed cancelled expired' \
    -d 'only tasks in these states (repeat, or separate with commas)'
complete -c tq -n $list -s q -l queue -xa '(__tq_queues)' -d 'only this queue'
complete -c tq -n $list -l label -x -d 'only tasks with this label'
complete -c tq -n $list -s u -l user -xa '(__fish_complete_users)' -d "only this user's tasks"
complete -c tq -n $list -l command -x -d 'only tasks whose command holds this text'
complete -c tq -n $list -l limit -x -d 'at most this many; 0: all (default 100, all with --json)'
complete -c tq -n $list -s l -l long -d 'also STARTED, RAN and EXIT: the last attempt'

set -l logs '__tq_is "tq logs"'
complete -c tq -n $logs -xa '(__tq_ids)'
complete -c tq -n $logs -s f -l follow -d 'keep printing output until the task ends (one task)'
complete -c tq -n $logs -l stderr -d 'print standard error instead of standard output'
complete -c tq -n $logs -l merged -d 'print standard output and standard error in the order written'
complete -c tq -n $logs -l attempt -x -d 'this attempt (1 is the first; default: the latest)'
complete -c tq -n $logs -l stage -x -d 'the latest attempt of this stage (a task with stages)'

set -l retry '__tq_is "tq retry"'
complete -c tq -n $retry -xa '(__tq_ids failed cancelled)'
complete -c tq -n $retry -l failed -d 'every failed task of yours (in --queue)'
complete -c tq -n $retry -l succeeded -d 'run succeeded or expired tasks again too'
complete -c tq -n $retry -l from-start -d 'a task with stages runs every stage again'
complete -c tq -n $retry -l from -x -d 'a task with stages runs again from this stage'

set -l clean '__tq_is "tq clean"'
complete -c tq -n $clean -xa '(__tq_ids succeeded failed cancelled expired)'
complete -c tq -n $clean -l older-than -x -d 'only tasks that finished at least this long ago'

set -l update '__tq_is "tq update"'
complete -c tq -n '__tq_is "tq update" 0' -xa '(__tq_ids pending)'
complete -c tq -n $update -s p -l priority -xa '1 2 3 4 5' -d '1 (highest) .. 5 (lowest)'
complete -c tq -n $update -s q -l queue -xa '(__tq_queues)' -d 'move it to this queue'
complete -c tq -n $update -s l -l label -x -d 'its labels, in place of the old (repeatable)'
complete -c tq -n $update -l no-labels -d 'remove its labels'
complete -c tq -n $update -l delay -x -d 'start no earlier than DURATION from now'
complete -c tq -n $update -l at -x -d 'start no earlier than TIME'
complete -c tq -n $update -l timeout -x -d 'running-time limit (DURATION; 0: none)'
complete -c tq -n $update -l retries -x -d 'attempts allowed after the first failed one'
__tq_filters hold pending
__tq_filters release pending
complete -c tq -n '__tq_is "tq hold"' -xa '(__tq_ids pending)'
complete -c tq -n '__tq_is "tq release"' -xa '(__tq_ids pending)'

complete -c tq -n '__tq_is "tq queue"' -a list -d 'every queue with its state and tasks'
complete -c tq -n '__tq_is "tq queue"' -a pause -d 'pause a queue (persisted)'
complete -c tq -n '__tq_is "tq queue"' -a resume -d 'resume a queue (persisted)'
complete -c tq -n '__tq_is "tq queue"' -a delete -d 'forget a queue no config or task names'
complete -c tq -n '__tq_is "tq queue"' -a add -d 'make a queue with its settings (persisted)'
complete -c tq -n '__tq_is "tq queue"' -a set -d "change a queue's concurrency or mix (persisted)"
for sub in pause resume delete set
    complete -c tq -n "__tq_is 'tq queue $sub' 0" -xa '(__tq_queues)'
end
complete -c tq -n '__tq_is "tq queue add"' -l concurrency -x -d 'tasks of it at once'
complete -c tq -n '__tq_is "tq queue set"' -l concurrency -x \
    -d "tasks at once; 0 returns to tqd.toml's"
for sub in add set
    complete -c tq -n "__tq_is 'tq queue $sub'" -l priority-mix -xa '80/20 strict' \
        -d 'highest priority first with some oldest first (80/20), or strictly'
end

complete -c tq -n '__tq_is "tq jobs"' -a show -d 'show every field of one job'
complete -c tq -n '__tq_is "tq jobs"' -a run -d 'run a job now and print the task id'
complete -c tq -n '__tq_is "tq jobs"' -a enable -d 'let a disabled job fire again'
complete -c tq -n '__tq_is "tq jobs"' -a disable -d 'stop a job from firing until enabled'
complete -c tq -n '__tq_is "tq jobs"' -a check -d 'check job files as tqd would read them'
complete -c tq -n '__tq_is "tq jobs"' -a install -d 'install FILE (- for stdin) as your job file'
complete -c tq -n '__tq_is "tq jobs"' -a cat -d 'print your own job file'
complete -c tq -n '__tq_is "tq jobs"' -a remove -d 'remove your own job file'
complete -c tq -n '__tq_is "tq jobs"' -a edit -d 'edit your own job file in $VISUAL or $EDITOR'
for sub in show run enable disable
    complete -c tq -n "__tq_is 'tq jobs $sub' 0" -xa '(__tq_jobs)'
end
complete -c tq -n '__tq_is "tq jobs run"' -l force -d 'run even while another run is pending or running'
complete -c tq -n '__tq_is "tq jobs check"' -F
complete -c tq -n '__tq_is "tq jobs install" 0' -F
for sub in install cat remove edit
    complete -c tq -n "__tq_is 'tq jobs $sub'" -s u -l user -xa '(__fish_complete_users)' \
        -d "another user's job file (root only)"
end

complete -c tq -n '__tq_is "tq cron"' -a next -d 'print the next firings of a cron schedule'
complete -c tq -n '__tq_is "tq cron"' -a import -d 'convert a crontab to a tq job file'
set -l next '__tq_is "tq cron next"'
complete -c tq -n $next -l tz -x -d 'the time zone'
complete -c tq -n $next -l from -x -d 'print firings strictly after this time'
complete -c tq -n $next -l count -x -d 'how many firings to print (default 5)'
complete -c tq -n $next -l dst -xa 'cron skip first both' -d 'what a fixed-hour time does across DST'
complete -c tq -n '__tq_is "tq cron import" 0' -F
complete -c tq -n '__tq_is "tq cron import"' -l system -d 'the crontab has a user column'
complete -c tq -n '__tq_is "tq cron import"' -l user-format -d 'the crontab is a user\'s: no user column'

complete -c tq -n '__tq_is "tq stats"' -l prometheus -d "print them in Prometheus's text format"
complete -c tq -n '__tq_is "tq web"' -l listen -r -d 'ADDR:PORT or unix:PATH to listen on'
complete -c tq -n '__tq_is "tq web"' -l token-file -r -F -d 'read the sign-in token from this file'
complete -c tq -n '__tq_is "tq web"' -l trust-user-header -x -d 'act for the user a proxy names in this header'
complete -c tq -n '__tq_is "tq web"' -l read-only -d 'show everything, change nothing'
complete -c tq -n '__tq_is "tq events"' -s f -l follow -d 'keep printing each state change'
