#!/usr/bin/env bats
# t7030-signature-ranking: signature infer ranks the function whose own
# signature explains the abnormal behaviour first, on a program of 32
# handlers whose system-call patterns overlap (t/t7030/overlap.c): a
# retry loop put in each of six handlers in turn ranks that handler in
# the top 3 every time and first in most runs, above the handlers that
# share a piece of its loop (write, read, dup, close) and the request
# loop that calls them all; without the bug nothing increases.
#
# Execution units are cut at gaps above mean + 2 sigma of a thread's
# system calls, which another test file running beside it stretches:
# varscope-test: exclusive

load test-lib
load overlap-lib

# Record overlap with arguments "$@" and print the functions signature
# infer ranks, one a line: name, increase, within.
ranked() {
	"$VARSCOPE" record --syscalls -o run.data -- \
		"$OVERLAP" "$@" 2>/dev/null
	"$VARSCOPE" signature infer -s "$BATS_FILE_TMPDIR/ov.sig" \
		-i run.data --format json >run.json
	python3 -c 'import json
for f in json.load(open("run.json"))["functions"]:
    print(f["function"], f["increase"], f["within"])'
}

@test "a retry loop in one of 32 overlapping handlers: top 3, first in most" {
	local h first=0 rank

	for h in h03 h07 h13 h20 h26 h31; do
		ranked --bug=$h --bug-after=1 --duration=3 >ranks
		rank=$(awk -v h=$h '$1 == h { print NR; exit }' ranks)
		echo "$h ranks ${rank:-nowhere}: $(head -3 ranks | tr '\n' ' ')"
		[ -n "$rank" ] && [ "$rank" -le 3 ]
		[ "$rank" -eq 1 ] && first=$((first + 1))
	done
	echo "first in $first of 6 runs"
	[ "$first" -ge 4 ]
}

@test "without the bug: no function ranks with an increase above 50%" {
	ranked --requests=3000 >ranks
	cat ranks
	awk '$2 > 50 { exit 1 }' ranks
}
