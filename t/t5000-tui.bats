#!/usr/bin/env bats
# t5000-tui: varscope tui in a real terminal (tmux): it opens on the
# ranking of a sampled recording of examples/vtreebench, the variance
# tree a Tab away, moves, expands, searches, follows a resize, switches
# views and quits, and the terminal is sane afterwards, also after ^C.
# A trace without samples says why there is no tree.  While the trace
# loads a line says how much was read; keys typed meanwhile count; type
# names show; the CDF's x axis is logarithmic, a key away from linear.
# The ranking names who ran instead of the slow tasks, as report does.

load test-lib

SESSION=vs-t5000-$$

setup() {
	vs_setup
	require_cmd tmux
}

teardown() {
	tmux kill-session -t "$SESSION" 2>/dev/null || true
}

# start_shell: a shell in an 80x24 tmux window, its prompt "vs-prompt$ "
start_shell() {
	tmux new-session -d -s "$SESSION" -x 80 -y 24 \
		"env PS1='vs-prompt\$ ' TERM=screen bash --norc --noprofile"
}

# shell_line LINE: start_shell, LINE typed into it in the test's folder
shell_line() {
	start_shell
	tmux send-keys -t "$SESSION" "cd '$TEST_TMP' && $1" Enter
}

# start_tui ARGS...: a shell running varscope tui (under the command
# $TUI_UNDER when set, like strace), until its screen is up
start_tui() {
	shell_line "${TUI_UNDER:-} '$VARSCOPE' tui $*"
	wait_for "varscope tui:"
}

screen() {
	tmux capture-pane -p -t "$SESSION"
}

# wait_for TEXT: until the screen shows TEXT (5 s at most)
wait_for() {
	local i

	for i in $(seq 50); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	echo "never on screen: $1"
	screen
	return 1
}

keys() {
	tmux send-keys -t "$SESSION" "$@"
	sleep 0.3
}

# The selected (reverse video) line of the screen.
selected() {
	tmux capture-pane -p -e -t "$SESSION" | grep -E $'\e\\[([0-9]+;)*7m' |
		sed 's/\x1b\[[0-9;]*m//g'
}

record_sampled() {
	require_root
	require_tracefs
	require_example vtreebench
	"$VARSCOPE" record --sample=cpu-clock --sample-period 50000 \
		-o t.data -- "$EXAMPLES/vtreebench" -n 100 > out 2> err ||
		{ cat err; return 1; }
}

# The shell is back, and the tty echoes and reads lines again.
assert_terminal_restored() {
	wait_for 'vs-prompt$'
	keys "stty -a | tr ' ' '\n' | grep -x -e echo -e icanon | sort" Enter
	wait_for icanon
	run screen
	assert_line echo
	assert_line icanon
}

@test "tui: not a terminal is one line and an error" {
	"$VARSCOPE" record -o t.data -- true 2>/dev/null || true
	run "$VARSCOPE" tui -i t.data < /dev/null
	assert_failure
	assert_output "varscope tui: not a terminal (varscope report prints the same as text)"
}

@test "tui: open on the ranking, the tree a key away, move, expand, search, resize, views, quit" {
	record_sampled
	start_tui -i t.data
	wait_for "Ranking (type 1)"
	run screen
	assert_line --regexp '^Type 1: [0-9]+ tasks, latency p50 '
	assert_line --regexp '^ +1 +-?[0-9.]+% +[0-9]+ '
	assert_line --regexp '^t\.data: [0-9]+ tasks of type 1 read; Tab: the variance tree, h: help$'
	keys Tab
	wait_for "Variance tree (type 1)"
	run screen
	assert_line --regexp '^varscope tui: t.data - Variance tree \(type 1\)'
	assert_line --regexp ' latency$'
	assert_line --regexp '  - serve  vtreebench\.c:[0-9]+$'
	# lookup's children are the interrupts a sample caught in it, if any
	assert_line --regexp '[+ ] lookup  vtreebench\.c:[0-9]+$'
	assert_line --regexp '^next --probe: '

	# the selection starts at the top and moves down
	run selected
	assert_output --partial "var"
	keys Down Down
	run selected
	assert_output --regexp '- serve  vtreebench\.c:[0-9]+ *$'

	# search from the top, then fold the match and unfold it: its
	# children go and come back under it
	keys Home
	run selected
	assert_output --partial "var"
	keys / serve Enter
	run selected
	assert_output --regexp '- serve  vtreebench\.c:[0-9]+ *$'
	keys -
	run selected
	assert_output --regexp '\+ serve  vtreebench\.c:[0-9]+ *$'
	run screen
	refute_output --regexp ' (parse|lookup|render)  vtreebench\.c'
	keys +
	run selected
	assert_output --regexp '- serve  vtreebench\.c:[0-9]+ *$'
	run screen
	assert_line --regexp '[+ ] (parse|lookup|render)  vtreebench\.c:[0-9]+$'
	assert_line --regexp ' lookup  vtreebench\.c:[0-9]+$'

	# a larger window: the status line moves to the new last line
	tmux resize-window -t "$SESSION" -x 100 -y 30
	sleep 0.5
	run bash -c "tmux capture-pane -p -t '$SESSION' | sed -n 30p"
	assert_output --regexp '^next --probe: '
	tmux resize-window -t "$SESSION" -x 80 -y 24
	sleep 0.5
	run bash -c "tmux capture-pane -p -t '$SESSION' | sed -n 24p"
	assert_output --regexp '^next --probe: '

	# under the tree, its top factors named by their call paths, as
	# report --tree names them
	keys End
	wait_for "top factors"
	"$VARSCOPE" report -i t.data --tree --format json > tree.json
	python3 - > factors <<-'PY'
	import json
	tree = json.load(open("tree.json"))["task_types"][0]["variance_tree"]
	for f in tree["factors"][:2]:
	    print(f["factor"])
	PY
	[ "$(wc -l < factors)" = 2 ]
	grep -q ' → ' factors
	run screen
	while read -r factor; do
		grep -E '^ +[12] +[0-9.]+ +[0-9.]+%  ' <<<"$output" |
			grep -qF -- "%  $factor" ||
			{ echo "not on screen: $factor"; echo "$output"; return 1; }
	done < factors
	keys Home

	keys Tab
	wait_for "Segments (type 1)"
	keys Tab
	wait_for "Ranking (type 1)"
	keys h
	wait_for "this help"
	keys q
	wait_for "Ranking (type 1)"
	keys q
	assert_terminal_restored
}

@test "tui: the CDF of a ranked event, with its threshold" {
	record_sampled
	start_tui -i t.data
	wait_for "Ranking (type 1)"
	# the first ranked time event, found by its name: lines above the
	# table (the tail, who ran instead) come and go with the recording,
	# and a count that is 0 or 1 in every task (context-switches ranked
	# first once) has no log axis: its CDF has one value above 0
	event=$(screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /%$/ && $NF ~ /time$/ { print $NF; exit }')
	[ -n "$event" ]
	keys / "$event" Enter Enter
	wait_for "CDF of $event"
	run screen
	assert_output --partial "threshold"
	assert_output --partial "*"
	assert_line "x axis: log (l: linear)"
	keys l
	wait_for "x axis: linear (l: log)"
	keys q
	wait_for "Ranking (type 1)"
	keys q
	assert_terminal_restored
}

@test "tui: a mostly-zero distribution: the tail past the p99, its log axis" {
	# sched.blocked.time: 0 in 99.7% of the tasks, 20 ms in the others
	"$BUILD/t/helper/gen-trace" -o z.data --tasks 6000 --types 1 \
		--cause sched.blocked.time --cause-frac 0.003 --cause-ns 20ms
	start_tui -i z.data
	wait_for "Ranking (type 0)"
	# the ranking says what report says about the tail past the p99
	run screen
	assert_line --regexp '^the slowest 0\.[0-9]+% \([0-9]+ tasks\) take 2[0-9]\.[0-9] ms, [0-9]+x the p99:$'
	assert_line "  their top event is sched.blocked.time; see --ptarget 0.999"
	# that line first, then the ranked event
	keys / sched.blocked.time Enter n Enter
	wait_for "CDF of sched.blocked.time"
	# log: from the smallest value above 0 to the largest, the 20 ms
	run bash -c "tmux capture-pane -p -t '$SESSION' | sed -n 23p"
	assert_output --regexp '^ +<=[0-9.]+ [nu]?s +[0-9.]+ [nmu]?s +2[0-9]\.[0-9] ms$'
	# linear: to the p99, where the 20 ms do not show
	keys l
	wait_for "x axis: linear"
	run bash -c "tmux capture-pane -p -t '$SESSION' | sed -n 23p"
	assert_output --regexp '^ +[0-9.]+ [nu]?s +[0-9.]+ [nu]?s +[0-9.]+ [nu]?s$'
	keys q q
	assert_terminal_restored
}

@test "tui: keys typed while the trace loads are kept; type names show" {
	"$BUILD/t/helper/gen-trace" -o big.data --tasks 300000 --types 2 \
		--type-names get,set
	start_shell
	# typed at once, with the command: before the screen is even up
	tmux send-keys -t "$SESSION" \
		"cd '$TEST_TMP' && '$VARSCOPE' tui -i big.data --type set" Enter h
	wait_for "this help"
	run screen
	assert_line --regexp '^varscope tui: big.data - Help \(type set \(1\)\)'
	keys q
	wait_for "Ranking (type set (1))"
	run screen
	assert_line --regexp '^Type set \(1\): [0-9]+ tasks'
	keys q
	assert_terminal_restored
}

@test "tui: while the trace loads, a line with the bytes read; keys typed on it are kept" {
	require_cmd strace
	"$BUILD/t/helper/gen-trace" -o big.data --tasks 300000 --types 2 \
		--type-names get,set
	size=$(stat -c %s big.data)
	# every read of the trace 20 ms late: a load of some seconds
	# (LeakSanitizer cannot run under ptrace, as in $STRACE_IO)
	slow="strace -E ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	slow+=" -f -qq -o /dev/null -e trace=pread64"
	slow+=" -e inject=pread64:delay_exit=20000"
	shell_line "$slow '$VARSCOPE' tui -i big.data"
	wait_for "keys typed now are kept"
	: > seen
	for _ in $(seq 100); do
		screen | grep -E '^  (Reading )?big\.data' >> seen || true
		grep -qE '^  big\.data: +[1-9][0-9]?% ' seen && break
		sleep 0.1
	done
	# the file's size from the first line on, the share read growing
	total=$(python3 -c "print('%.1f' % ($size / 1e6))")
	grep -qE '^  big\.data: +[1-9][0-9]?% ' seen || fail "$(cat seen)"
	run grep -vE "^  (Reading big\.data|big\.data: +[0-9]+% \([0-9]+\.[0-9] of $total MB\))\$" seen
	assert_failure
	keys h
	wait_for "this help"
	run screen
	assert_line --regexp '^varscope tui: big.data - Help \(type get \(0\)\)'
	keys q
	wait_for "Ranking (type get (0))"
	keys q
	assert_terminal_restored
}

@test "tui: -i - reads the trace from a pipe, the keys from the terminal" {
	"$BUILD/t/helper/gen-trace" -o n.data --tasks 500 --types 2 \
		--type-names get,set
	shell_line "cat n.data | '$VARSCOPE' tui -i - --type set; echo status=\$?"
	wait_for "Ranking (type set (1))"
	run screen
	assert_line --regexp '^Type set \(1\): [0-9]+ tasks'
	keys h
	wait_for "this help"
	keys q q
	wait_for "status=0"
	assert_terminal_restored
	# with no terminal at all, one line
	run --separate-stderr setsid "$VARSCOPE" tui -i - < n.data
	assert_failure 1
	[ "$stderr" = "varscope tui: not a terminal (varscope report prints the same as text)" ]
}

@test "tui: a --type that is no type is one line, before the screen is up" {
	"$BUILD/t/helper/gen-trace" -o n.data --tasks 500 --types 2 \
		--type-names get,set
	shell_line "'$VARSCOPE' tui -i n.data --type nosuch; echo status=\$?"
	wait_for "status=129"
	# wrapped lines joined
	run tmux capture-pane -p -J -t "$SESSION"
	assert_line "varscope tui: option \`--type': 'nosuch' is neither a task type number nor the name of a task type of the trace"
	assert_terminal_restored
}

@test "tui: ^C restores the terminal" {
	record_sampled
	start_tui -i t.data
	keys C-c
	assert_terminal_restored
}

@test "tui: a trace without samples opens on the ranking, says why" {
	require_root
	require_tracefs
	require_example vtreebench
	"$VARSCOPE" record -o t.data -- "$EXAMPLES/vtreebench" -n 50 \
		> out 2> err
	start_tui -i t.data
	run screen
	assert_line --regexp '^varscope tui: t.data - Ranking \(type 1\)'
	assert_output --partial "No variance tree: the trace has no samples"
	keys q
	assert_terminal_restored
}

@test "tui: the ranking lists the threads the waits were blamed on" {
	require_root
	require_tracefs
	require_example wakeping
	run "$VARSCOPE" record -o t.data -- "$EXAMPLES/wakeping" -n 200
	assert_success
	read -r _ waker _ < <(grep '^waker ' <<<"$output")
	start_tui -i t.data
	wait_for "Ranking (type 1)"
	# after the ranked events: to the end of the list
	keys End
	wait_for "Waits blamed along wake-up edges"
	run screen
	assert_line --regexp "^ +[0-9.]+ [mu]?s +\[wait\] wakeping/$waker \(outside_tasks, 1 deep\), 200 waits"
	keys q
	assert_terminal_restored
}

@test "tui: who ran instead of the slow tasks, as report says it" {
	# 150 tasks: the ranking needs 100
	record_corun t.data 150
	want=$("$VARSCOPE" report -i t.data |
		sed -n 's/^# \(run-queue waits of the slow tasks: .*\)$/\1/p')
	[[ "$want" =~ "; hogger/$HOG " ]] || fail "report: $want"
	start_tui -i t.data
	wait_for "Ranking (type 1)"
	wait_for "run-queue waits of the slow tasks:"
	run screen
	# two lines, cut after the wait in all: the co-runner named first
	assert_line "${want%%; *};"
	assert_line --regexp "^  hogger/$HOG [0-9.]+ [mu]?s(,|$)"
	# the same numbers as report's, up to the screen's edge
	line=$(grep "^  hogger/$HOG " <<<"$output")
	[[ "  ${want#*; }" == "$line"* ]] || fail "tui: $line, report: $want"
	keys q
	assert_terminal_restored
}

@test "tui: one read of the trace for all its views, segments included" {
	"$BUILD/t/helper/gen-trace" -o long.data --tasks 100000 --types 2 \
		--events 12 --seed 35
	TUI_UNDER="$STRACE_IO io.log" start_tui -i long.data --length 10ms
	wait_for "Ranking (type 0)"
	keys Tab Tab
	wait_for "Segments (type 0)"
	run screen
	assert_line --regexp '^long\.data:1 +[0-9]+ +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s$'
	keys q
	assert_terminal_restored
	# the head of the trace (what it holds), its chunk index (to cut the
	# slices), then one read for the tasks of every view and the 225
	# slices' latencies: a second read would double the bytes
	[ "$(io_opens io.log long.data)" = 3 ]
	[ "$(io_bytes io.log long.data)" -lt $(($(stat -c %s long.data) * 3 / 2)) ]
}
