#!/bin/bash
# run-tests.sh - run the varscope test suite: every t/*.bats file with bats
# and every built C unit test $VS_BUILD/t/*, then one closing line
#
#	N passed, N failed, N skipped
#
# and a non-zero exit status when anything failed.
#
# usage: t/run-tests.sh [-j JOBS] [PATTERN...]
#
# A PATTERN selects the tests whose name starts with it: "t0000" (one bats
# file), "t1" (all format tests), "unit" (all unit tests), "unit/trace"
# (one unit test).  "make test T='t0000 unit'" passes them on.
#
# Environment:
#   VS_BUILD         build folder holding t/ and examples/ (default build)
#   VARSCOPE         the binary under test (default ./varscope)
#   VS_TEST_JOBS     files run at the same time (default: number of CPUs)
#   VS_TEST_TIMEOUT  seconds one file may take before it fails (default 600)
#   VS_TEST_VERBOSE  1: print every TAP line, not only failures and skips
#
# Files run in parallel, but their results print in name order, so the
# output is the same from run to run.  A bats file containing the line
# "# varscope-test: exclusive" (timing-sensitive ground-truth tests) runs
# alone, after the others; one with "# varscope-test: timeout SECONDS"
# (tests that boot a guest kernel, with timeouts of their own) may take
# that long instead of VS_TEST_TIMEOUT.  Under SANITIZE=1 every sanitizer
# report a test produces is a failure of that file, even when the test
# itself passed.

set -u
cd "$(dirname "$0")/.." || exit 2

jobs=${VS_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
timeout_s=${VS_TEST_TIMEOUT:-600}
verbose=${VS_TEST_VERBOSE:-0}
export VS_BUILD=${VS_BUILD:-build}
export VARSCOPE=${VARSCOPE:-$PWD/varscope}
case $VARSCOPE in
/*) ;;
*) VARSCOPE=$PWD/$VARSCOPE ;;
esac

if [ ! -x "$VARSCOPE" ]; then
	echo "run-tests: $VARSCOPE is not built (run make)" >&2
	exit 2
fi
for tool in bats timeout; do
	if ! command -v $tool >/dev/null; then
		echo "run-tests: $tool is missing (scripts/install-deps.sh)" >&2
		exit 2
	fi
done

# --- which tests ---------------------------------------------------------
selected() {
	local name=$1 p

	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		case $name in
		"$p"*) return 0 ;;
		esac
	done
	return 1
}

patterns=("$@")
names=()	# display names: t0000-basic.bats, unit/parse-options
cmds=()		# how to run each: "bats FILE" or "unit BIN"
exclusive=()
timeouts=()	# seconds each may take
for f in t/t[0-9][0-9][0-9][0-9]-*.bats; do
	[ -e "$f" ] || continue
	n=${f#t/}
	selected "$n" || continue
	names+=("$n")
	cmds+=("bats $f")
	if grep -q '^# varscope-test: exclusive' "$f"; then
		exclusive+=(1)
	else
		exclusive+=(0)
	fi
	secs=$(sed -n 's/^# varscope-test: timeout \([0-9][0-9]*\)$/\1/p' "$f")
	timeouts+=("${secs:-$timeout_s}")
done
for b in "$VS_BUILD"/t/*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	n=unit/${b##*/}
	selected "$n" || continue
	names+=("$n")
	cmds+=("unit $b")
	exclusive+=(0)
	timeouts+=("$timeout_s")
done
if [ ${#names[@]} -eq 0 ]; then
	echo "run-tests: no test matches: ${patterns[*]}" >&2
	exit 2
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/varscope-tests.XXXXXX")
trap 'rm -rf "$out"' EXIT

# timeout runs each file in a process group of its own, out of reach of
# the terminal's ^C: pass it on (timeout hands it to the file's process).
interrupted() {
	local pid

	for pid in "$out"/*.pid; do
		[ -f "$pid" ] && kill -TERM "$(cat "$pid")" 2>/dev/null
	done
	exit 130
}
trap interrupted INT TERM

# Sanitizer reports go to files (one folder per test file), so that a
# report fails the file even when the test only checked for a failure.
san_env() {
	local dir=$1 opts

	# ours last: the last value of an option wins
	opts="log_path=$dir/report:halt_on_error=1:abort_on_error=0"
	opts="$opts:detect_leaks=${VS_DETECT_LEAKS:-1}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$opts"
	opts="log_path=$dir/report:halt_on_error=1:print_stacktrace=1"
	export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}$opts"
}

# run_one INDEX: run test file INDEX, its output in $out/INDEX.tap and its
# exit status in $out/INDEX.rc (written last: its presence means done);
# $out/INDEX.pid is the timeout process while it runs.
run_one() {
	local i=$1 kind=${cmds[$1]%% *} path=${cmds[$1]#* } rc
	local start=$SECONDS

	mkdir -p "$out/$i.san"
	(
		san_env "$out/$i.san"
		if [ "$kind" = bats ]; then
			exec timeout -k 10 "${timeouts[$i]}" bats --tap "$path"
		else
			exec timeout -k 10 "${timeouts[$i]}" "$path"
		fi
	) >"$out/$i.tap" 2>&1 </dev/null &
	echo $! >"$out/$i.pid"
	wait $!
	rc=$?
	rm -f "$out/$i.pid"
	echo $((SECONDS - start)) >"$out/$i.time"
	echo $rc >"$out/$i.rc.tmp" && mv "$out/$i.rc.tmp" "$out/$i.rc"
}

passed=0
failed=0
skipped=0
failures=""	# the report printed at the end
skips=""
warnings=""	# bats' own warnings (BW01...)

# report_one INDEX: count the results of a finished file and print its line.
report_one() {
	local i=$1 name=${names[$1]} rc line plan=0 ran=0 ok=0 bad=0 skip=0
	local detail="" in_failure=0 in_warning=0 note="" reason

	rc=$(cat "$out/$i.rc")
	while IFS= read -r line; do
		[ "$verbose" = 1 ] && printf '    %s\n' "$line"
		case $line in
		1..*)
			plan=${line#1..}
			in_failure=0
			;;
		"not ok "*)
			bad=$((bad + 1))
			ran=$((ran + 1))
			detail+="$name: $line"$'\n'
			in_failure=1
			;;
		"ok "*" # skip"*|"ok "*" # SKIP"*)
			skip=$((skip + 1))
			ran=$((ran + 1))
			line=${line#ok [0-9]* }
			reason=${line#* # [sS][kK][iI][pP]}
			reason=${reason# }
			skips+="$name: ${line%% # [sS][kK][iI][pP]*}: ${reason:-no reason given}"$'\n'
			in_failure=0
			;;
		"ok "*)
			ok=$((ok + 1))
			ran=$((ran + 1))
			in_failure=0
			;;
		"The following warnings were encountered during tests:")
			in_failure=0
			in_warning=1
			;;
		*)
			[ $in_failure = 1 ] && detail+="    $line"$'\n'
			[ $in_warning = 1 ] && warnings+="$name: $line"$'\n'
			;;
		esac
	done <"$out/$i.tap"

	# Whatever went wrong without a "not ok" line is one more failure.
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		note="timed out after ${timeouts[$i]}s"
	elif [ "$rc" -gt 128 ]; then
		note="killed by signal $((rc - 128))"
	elif [ "$rc" != 0 ] && [ $bad = 0 ]; then
		note="exited with status $rc without a 'not ok' line"
	elif [ "$plan" -gt "$ran" ]; then
		note="only $ran of the $plan planned tests ran"
	elif [ $ran = 0 ]; then
		note="ran no test"
	fi
	if [ -n "$note" ]; then
		bad=$((bad + 1))
		detail+="$name: $note; its output:"$'\n'
		detail+=$(sed 's/^/    /' "$out/$i.tap" | tail -n 40)$'\n'
	fi
	# LeakSanitizer cannot run in a process under ptrace; that alone is
	# not a finding.
	grep -l -s 'LeakSanitizer does not work under ptrace' "$out/$i.san"/report* |
		xargs -r rm -f
	if compgen -G "$out/$i.san/report*" >/dev/null; then
		bad=$((bad + 1))
		detail+="$name: sanitizer report:"$'\n'
		detail+=$(cat "$out/$i.san"/report* | head -n 60)$'\n'
	fi

	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + skip))
	failures+=$detail

	local status="ok"
	[ $bad -gt 0 ] && status="FAILED ($bad)"
	printf '%-40s %s: %d passed' "$name" "$status" $ok
	[ $skip -gt 0 ] && printf ', %d skipped' $skip
	printf ' (%d s)\n' "$(cat "$out/$i.time")"
}

# --- run: parallel files first, then the exclusive ones one by one -------
next_report=0
report_done() {
	while [ $next_report -lt ${#names[@]} ] &&
	      [ -f "$out/$next_report.rc" ]; do
		report_one $next_report
		next_report=$((next_report + 1))
	done
}

for pass in 0 1; do
	for i in "${!names[@]}"; do
		[ "${exclusive[$i]}" = $pass ] || continue
		limit=$jobs
		[ $pass = 1 ] && limit=1
		while [ "$(jobs -rp | wc -l)" -ge "$limit" ]; do
			wait -n
			report_done
		done
		# bash's own "Segmentation fault" line goes with the output
		run_one "$i" 2>>"$out/$i.tap" &
	done
	wait
	report_done
done

if [ -n "$skips" ]; then
	printf '\nskipped:\n'
	printf '%s' "$skips" | sed 's/^/  /'
fi
if [ -n "$warnings" ]; then
	printf '\nbats warnings:\n'
	printf '%s' "$warnings" | sed 's/^/  /'
fi
if [ -n "$failures" ]; then
	printf '\nFAILURES:\n'
	printf '%s' "$failures"
fi
printf '\nin %d s with %d jobs\n' $SECONDS "$jobs"
printf '%d passed, %d failed, %d skipped\n' $passed $failed $skipped
[ $failed -eq 0 ]
