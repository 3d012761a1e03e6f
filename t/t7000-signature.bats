#!/usr/bin/env bats
# t7000-signature: varscope signature build and infer on examples/buggyserver
# (PerfScope): signatures from a normal run, then for each switchable bug
# the buggy function ranks in the top 5 of a recording of the buggy run;
# the JSON shape and the errors of bad input.
#
# Execution units are cut at gaps above mean + 2 sigma of a thread's
# system calls, which another test file running beside it stretches:
# varscope-test: exclusive

load test-lib

# The traced program: buggyserver built here as the normal build's
# examples are, without the sanitizer build's -fsanitize: ASan's runtime
# in it makes calls of its own at the start (it reads /proc/self/maps,
# maps its symbolizer's memory) that differ from run to run, not from
# the bug; the ranking would be of them (CI: 8 reads of __sanitizer's
# against 2 in the normal run outranked the hang).  buggyserver does
# not link libvarscope.
#
# One signature file for the whole file: a normal run of 1000 requests
# per worker (a fixed sequence: the same work however loaded the machine
# is; a time limit would serve fewer and fewer of them).
setup_file() {
	export BS=$BATS_FILE_TMPDIR/buggyserver
	"$VS_CC" -O2 -g -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
		-o "$BS" "$SRC/examples/buggyserver.c" -lpthread -lm || return 0
	[ -e /sys/kernel/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || :
	"$VARSCOPE" signature build -o "$BATS_FILE_TMPDIR/bs.sig" -- \
		"$BS" --requests=1000 --duration=60 \
		--dir="$BATS_FILE_TMPDIR" 2>"$BATS_FILE_TMPDIR/build.log" || :
}

require_signatures() {
	require_root
	require_tracefs
	[ -x "$BS" ] || fail "cannot build $SRC/examples/buggyserver.c"
	[ -s "$BATS_FILE_TMPDIR/bs.sig" ] ||
		fail "signature build failed: $(cat "$BATS_FILE_TMPDIR/build.log")"
}

require_record_syscalls() {
	"$VARSCOPE" record -h 2>&1 | grep -q -- --syscalls ||
		skip "varscope record has no --syscalls yet"
}

# Print Python expression $2 over the signature file dumped as JSON lines
# in $1: funcs (id -> name), execs (name -> executions), eps (name -> list
# of episodes) and support (name -> list of their supports).
signature_eval() {
	python3 -c 'import json, sys
funcs, execs, eps, support = {}, {}, {}, {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["kind"] == "sig_func":
        funcs[r["id"]] = r["name"]
        execs[r["name"]] = r["executions"]
    elif r["kind"] == "sig_episode":
        eps.setdefault(funcs[r["func"]], []).append(r["syscalls"])
        support.setdefault(funcs[r["func"]], []).append(r["support"])
print(*eval(sys.argv[2]))' "$1" "$2"
}

# The rank of function $2 in the JSON output $1 of signature infer, or 0.
rank_of() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next((f["rank"] for f in d["functions"] if f["function"] == sys.argv[2]), 0))' "$1" "$2"
}

# Record buggyserver with bug $1 and rank the functions.
infer_bug() {
	require_signatures
	require_record_syscalls
	"$VARSCOPE" record --syscalls -o "$1.data" -- \
		"$BS" --duration=4 --bug="$1" --dir="$TEST_TMP"
	"$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/bs.sig" \
		-i "$1.data" --format json >"$1.json"
}

# signature infer with arguments $3... fails with status $1 and one line,
# "varscope signature: $2".
infer_fails() {
	local status=$1 message=$2

	shift 2
	run --separate-stderr "$VARSCOPE" signature infer "$@"
	assert_failure "$status"
	assert_equal "$stderr" "varscope signature: $message"
}

# With bug $1, function $2 ranks in the top 5.
assert_bug_ranks() {
	local rank

	infer_bug "$1"
	rank=$(rank_of "$1.json" "$2")
	echo "$2 ranks $rank"
	[ "$rank" -ge 1 ] && [ "$rank" -le 5 ] && return
	"$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/bs.sig" -i "$1.data" |
		head -20
	"$VARSCOPE" script -i "$BATS_FILE_TMPDIR/bs.sig" | grep -A3 "\"$2\""
	return 1
}

@test "signature build maps calls to the functions that made them" {
	require_signatures
	run cat "$BATS_FILE_TMPDIR/build.log"
	assert_output --regexp '^varscope signature: [0-9]+ functions? of .*buggyserver, [0-9]+ episodes?'
	"$VARSCOPE" script -i "$BATS_FILE_TMPDIR/bs.sig" --format json >sig.json
	# the signature of a handler is the calls it makes itself:
	# fetch_upstream retries gettimeofday (96) + read (0) twice, then
	# writes (1) (an execution the thread was switched out in is two
	# sequences, and the episode's calls then show a gap, 65535, in
	# between); stat_files makes two newfstatat (262).  The normal
	# run has no retry storm: no episode of fetch_upstream occurs more
	# often than the function ran (a storm makes it thousands of times,
	# and the retry bug is then no increase).  The two client threads
	# run client() once each, at the same time: two executions, which
	# the calls of the other thread do not cut up (t7010 has the same
	# on a designed program); so do the two workers, whose calls under
	# a 4 KB buffer (list_dir's open) or inside the C library
	# (host_info's gethostname) the kernel's frame-pointer walk alone
	# loses (t7020); main runs once.
	run signature_eval sig.json \
		'([96, 0, 96, 0] in [[c for c in e if c != 65535]
				     for e in eps["fetch_upstream"]],
		 eps["stat_files"], len(funcs) >= 30,
		 max(support["fetch_upstream"]) <= execs["fetch_upstream"],
		 execs["client"], execs["worker"], execs["main"])'
	assert_output "True [[262, 262]] True True 2 2 1"
}

@test "signature files dump with varscope script, with their meta data" {
	require_signatures
	run "$VARSCOPE" script -i "$BATS_FILE_TMPDIR/bs.sig"
	assert_success
	assert_line --partial 'meta        key="method" value="callchain"'
	assert_line --regexp 'sig_func +id=[0-9]+ executions=[0-9]+ mean_ns=[0-9]+ name="lock_update"'
	assert_line --regexp 'sig_episode +func=[0-9]+ support=[0-9]+ syscalls=\[202,202,202,202\]'
}

@test "--functions limits the profiled functions" {
	require_signatures
	run "$VARSCOPE" signature build -o f.sig --functions 'fetch_*' -- \
		"$BS" --requests=200 --duration=60 \
		--dir="$TEST_TMP"
	assert_success
	run "$VARSCOPE" script -i f.sig
	assert_line --regexp 'name="fetch_upstream"'
	refute_line --regexp 'name="(worker|main|stat_files)"'
}

@test "build -o -: one line, the standard output is the command's" {
	run "$VARSCOPE" signature build -o - -- true
	assert_failure 129
	assert_output "varscope signature: option \`--output': must be a file: the command's output goes to the standard output"
	[ ! -e - ]
}

@test "build of a wrapper or an empty --functions: one line, no file" {
	require_signatures
	local dash

	dash=$(readlink -f /bin/sh)
	# the shell runs buggyserver in a child: no call is in the shell's
	run --separate-stderr "$VARSCOPE" signature build -o w.sig -- \
		sh -c '"$0" --requests=20 --duration=60 --dir="$1"' \
		"$BS" "$TEST_TMP"
	assert_failure 1
	assert_regex "$stderr" "^varscope signature: none of the [1-9][0-9]* system calls was made in a function of $dash \\(a script or wrapper runs the program in a child: give the program itself\\)\$"
	[ ! -e w.sig ]
	run --separate-stderr "$VARSCOPE" signature build -o n.sig \
		--functions 'no_such_*' -- "$BS" \
		--requests=20 --duration=60 --dir="$TEST_TMP"
	assert_failure 1
	assert_regex "$stderr" 'buggyserver that --functions lets through \('
	[ ! -e n.sig ]
}

@test "--method=probes: uprobes on entry and return, timestamp matching" {
	require_signatures
	require_uprobes
	run "$VARSCOPE" signature build -o p.sig --method=probes \
		--functions '[fls]*_*' -- "$BS" \
		--requests=200 --duration=60 --dir="$TEST_TMP"
	assert_success
	"$VARSCOPE" script -i p.sig --format json >p.json
	# the same signatures as from callchains; no call of the kernel's
	# uretprobe trampoline (335)
	run signature_eval p.json \
		'([96, 0, 96, 0] in eps["fetch_upstream"], eps["stat_files"],
		 [202] * 4 in eps["lock_update"], "worker" in funcs,
		 any(335 in e for v in eps.values() for e in v))'
	assert_output "True [[262, 262]] True False False"
}

@test "--method=probes: one trace event per probe, removed at the end" {
	require_signatures
	require_uprobes
	"$VARSCOPE" signature build -o p.sig --method=probes \
		--functions 'stat_files,lock_update' -- "$BS" \
		--requests=200 --duration=60 --dir="$TEST_TMP" 2>err &
	build=$!
	# whatever the number of CPUs: the kernel removes each probe after
	# a grace period, one at a time, so a copy per CPU would add one
	for i in $(seq 200); do
		grep "^[pr]:varscope_$build/" "$TRACEFS/uprobe_events" \
			> events || :
		[ "$(wc -l < events)" -ge 4 ] && break
		sleep 0.05
	done
	wait $build
	run sed 's/^[pr]:varscope_[0-9]*\/\([a-z0-9_]*\) .*/\1/' events
	assert_output "s0_entry
s0_return
s1_entry
s1_return"
	run grep "varscope_$build/" "$TRACEFS/uprobe_events"
	assert_failure
}

@test "retry bug: fetch_upstream ranks in the top 5" {
	assert_bug_ranks retry fetch_upstream
}

@test "futex spin bug: lock_update ranks in the top 5" {
	assert_bug_ranks spin lock_update
}

@test "fsync storm bug: journal_commit ranks in the top 5" {
	assert_bug_ranks fsync journal_commit
}

@test "socket hang bug: wait_reply ranks in the top 5, and the text output" {
	assert_bug_ranks hang wait_reply
	run "$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/bs.sig" -i hang.data
	assert_success
	assert_line --regexp '^# [0-9]+ system calls of [0-9]+ threads?: [0-9]+ execution units'
	assert_line --regexp '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+-[0-9.]+ +wait_reply$'
	assert_line --regexp '^ +\{ppoll, ppoll, ppoll, ppoll\} +[0-9]+ times?, signature [0-9]+$'
	assert_line --regexp '^# active in time order: .*wait_reply'
}

@test "--format json: functions with rank, function, score, episodes" {
	infer_bug retry
	run python3 -c 'import json
d = json.load(open("retry.json"))
f = d["functions"]
assert f and [x["rank"] for x in f] == list(range(1, len(f) + 1))
for x in f:
    assert isinstance(x["function"], str) and isinstance(x["score"], (int, float))
    assert all(isinstance(e, list) and all(isinstance(s, str) for s in e)
               for e in x["episodes"])
assert sorted(d["time_order"]) == sorted(x["function"] for x in f)
up = next(x for x in f if x["function"] == "fetch_upstream")
# the retry loop: gettimeofday and read, again and again.  Which closed
# episodes stand for it (with "*" for a call between, longer or shorter)
# depends on how the units were cut; at least one is the loop alone,
# twice round at least
def loop(e):
    calls = [c for c in e if c != "*"]
    return set(calls) == {"gettimeofday", "read"} and \
        calls.count("gettimeofday") >= 2 and calls.count("read") >= 2
print(any(loop(e) for e in up["episodes"]), up["episodes"])'
	assert_success
	assert_output --regexp "^True "
}

@test "infer without -s: one line naming the option, exit 129" {
	run --separate-stderr "$VARSCOPE" signature infer -i x.data
	assert_failure 129
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"--signatures"* ]]
}

@test "infer with a bad signature file: one line, non-zero" {
	head -c 5000 /dev/urandom >bad.sig
	run --separate-stderr "$VARSCOPE" signature infer -s bad.sig -i x.data
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"bad.sig"* ]]
	run --separate-stderr "$VARSCOPE" signature infer -s missing.sig
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"missing.sig"* ]]
}

@test "infer with a truncated signature file: one line, non-zero" {
	require_signatures
	local size

	size=$(stat -c %s "$BATS_FILE_TMPDIR/bs.sig")
	head -c $((size - 7)) "$BATS_FILE_TMPDIR/bs.sig" >cut.sig
	"$BUILD/t/helper/gen-trace" -o plain.data --tasks 10 --seed 1
	infer_fails 2 "cut.sig: truncated at byte $((size - 7))" \
		-s cut.sig -i plain.data
}

@test "infer with a missing or bad recording: one line, non-zero" {
	require_signatures
	infer_fails 2 "missing.data: No such file or directory" \
		-s "$BATS_FILE_TMPDIR/bs.sig" -i missing.data
	echo "not a trace" >text.data
	run --separate-stderr "$VARSCOPE" signature infer \
		-s "$BATS_FILE_TMPDIR/bs.sig" -i text.data
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "varscope signature: text.data: not a varscope trace"* ]]
}

@test "--help: the usage of the three subcommands on stdout, exit 0" {
	run --separate-stderr "$VARSCOPE" signature --help
	assert_success
	assert_line --index 0 --partial 'varscope signature build -o FILE'
	assert_line --index 1 --partial 'varscope signature infer -s FILE'
	assert_line --index 2 --partial 'varscope signature watch -s FILE'
	[ -z "$stderr" ]
	run --separate-stderr "$VARSCOPE" signature watch -h
	assert_success
	assert_line --regexp '^ +-p, --pid'
	assert_line --regexp '^ +--window'
	assert_line --regexp '^ +--min-score'
	[ -z "$stderr" ]
	run --separate-stderr "$VARSCOPE" signature infer -h
	assert_success
	assert_line --regexp '^ +-s, --signatures'
	run --separate-stderr "$VARSCOPE" signature build -h
	assert_success
	assert_line --regexp '^ +--method'
}

@test "infer with a trace that is not a signature file: one line" {
	"$BUILD/t/helper/gen-trace" -o plain.data --tasks 10 --seed 1
	infer_fails 2 "plain.data: no function signature in the file" \
		-s plain.data -i plain.data
}

@test "infer on a recording without system calls says so" {
	require_signatures
	"$BUILD/t/helper/gen-trace" -o plain.data --tasks 10 --seed 1
	infer_fails 1 "plain.data: no system call records (record with --syscalls)" \
		-s "$BATS_FILE_TMPDIR/bs.sig" -i plain.data
}

@test "bad option values and subcommands: one line each" {
	run --separate-stderr "$VARSCOPE" signature infer -s a --support 2
	assert_failure 129
	[[ $stderr == *"--support"* ]]
	run --separate-stderr "$VARSCOPE" signature infer -s a --format xml
	assert_failure 129
	[[ $stderr == *"--format"* ]]
	run --separate-stderr "$VARSCOPE" signature build -- true
	assert_failure 129
	[[ $stderr == *"--output"* ]]
	run --separate-stderr "$VARSCOPE" signature build -o x --method dwarf -- true
	assert_failure 129
	[[ $stderr == *"--method"* ]]
	run --separate-stderr "$VARSCOPE" signature frobnicate
	assert_failure 129
	run "$VARSCOPE" signature build -o x.sig -- /nonexistent/cmd
	assert_failure 1
	assert_output --partial "/nonexistent/cmd"
}

@test "build with an output it cannot write: said before the program runs" {
	# not after a profiling run that may last minutes
	run --separate-stderr "$VARSCOPE" signature build -o no/such/dir/x.sig -- sh -c 'touch ran'
	assert_failure 1
	assert_equal "$stderr" "varscope signature: no/such/dir/x.sig: No such file or directory"
	[ ! -e ran ]
	# an existing signature file is left as it was until the end
	echo old > old.sig
	run "$VARSCOPE" signature build -o old.sig -- /nonexistent/cmd
	assert_failure 1
	[ "$(cat old.sig)" = old ]
}
