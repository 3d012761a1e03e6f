#!/usr/bin/env bats
# t0040-docs: the documentation says what the code does.  Every option of
# every command (from the binary, as the completion sees it) is in the
# OPTIONS of its man page, and every option there or in the SYNOPSIS
# exists; every record kind of the codec, with its fields in order, is in
# the format specification's table and in the JSON keys of
# varscope-script(1), and so is every task flag, sample flag and event
# group of core/trace/trace.h; every META key the recorder writes is in the list
# of varscope-record(1), and those of a signature file in
# varscope-signature(1); every function of libvarscope's header is in the
# SYNOPSIS and the NAME (its man link) of vs_task_begin(3).  The examples
# that run on gen-trace's synthetic traces print what their pages show,
# the CSV header lines of report and segments are their pages' lists, and
# every JSON key of report, segments, diff and list is named in its page.

load test-lib

DOC=$SRC/Documentation

# doc_section FILE SECTION: the lines of SECTION (a heading underlined
# with dashes, asciidoc's level 1) of FILE, up to the next such heading.
doc_section() {
	awk -v want="$2" '
		{ line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				if (line[i] ~ /^[A-Z][A-Za-z ]*$/ &&
				    line[i + 1] ~ /^-+$/ &&
				    length(line[i + 1]) - length(line[i]) <= 2 &&
				    length(line[i]) - length(line[i + 1]) <= 2) {
					sec = line[i]
					i++
					continue
				}
				if (sec == want)
					print line[i]
			}
		}' "$1"
}

# subcommands CMD: the words after "varscope CMD" in its usage lines
# (build and infer of signature), none for a command without any.
subcommands() {
	"$VARSCOPE" "$1" --help |
		sed -En "s/^( *usage| *or): varscope $1 ([a-z][a-z-]*)( .*)?$/\2/p" |
		sort -u
}

# code_opts CMD: the long and short options of CMD and of each of its
# subcommands, one per line: --list-opts for the long ones (what the bash
# completion uses), the "-x, --name" lines of --help for the short ones.
# --help itself is left out: no page documents it.
code_opts() {
	local sub

	for sub in "" $(subcommands "$1"); do
		"$VARSCOPE" "$1" $sub --list-opts | tr ' ' '\n' | sed 's/=$//'
		"$VARSCOPE" "$1" $sub --help |
			sed -En 's/^ +(-[a-zA-Z0-9]), --.*/\1/p'
	done | grep . | grep -vx -- --help | sort -u
}

# doc_opts CMD: the long and short options named by the item lines
# ("-o FILE, --output=FILE::") of the OPTIONS section of its page.
doc_opts() {
	doc_section "$DOC/varscope-$1.txt" OPTIONS | grep -E '::$' |
		grep -oE '(^|[ ,])--?[a-zA-Z0-9][a-zA-Z0-9-]*' |
		sed -E 's/^[ ,]//' | sort -u
}

# synopsis_opts CMD: the options its page's SYNOPSIS shows.
synopsis_opts() {
	doc_section "$DOC/varscope-$1.txt" SYNOPSIS |
		grep -oE '(^|[][ |])--?[a-zA-Z][a-zA-Z0-9-]*' |
		sed -E 's/^[][ |]//' | sort -u
}

@test "every command's options are in its man page, and only those" {
	local cmd missing stale bad="" checked=0

	for cmd in $("$VARSCOPE" --list-cmds); do
		[ "$cmd" = help ] && continue
		if [ ! -f "$DOC/varscope-$cmd.txt" ]; then
			bad+="Documentation/varscope-$cmd.txt: no such page; "
			continue
		fi
		code_opts "$cmd" >code
		doc_opts "$cmd" >doc
		[ -s code ] || bad+="$cmd: no option found in --list-opts; "
		missing=$(comm -23 code doc | tr '\n' ' ')
		stale=$(comm -13 code doc | tr '\n' ' ')
		[ -z "$missing" ] ||
			bad+="varscope-$cmd.txt OPTIONS lacks: $missing; "
		[ -z "$stale" ] ||
			bad+="varscope-$cmd.txt OPTIONS has what varscope $cmd does not know: $stale; "
		synopsis_opts "$cmd" >synopsis
		stale=$(comm -13 code synopsis | tr '\n' ' ')
		[ -z "$stale" ] ||
			bad+="varscope-$cmd.txt SYNOPSIS has what varscope $cmd does not know: $stale; "
		checked=$((checked + 1))
	done
	[ -z "$bad" ] || fail "$bad"
	[ $checked -ge 8 ] || fail "only $checked commands checked"
}

# codec_kinds: one line per record kind of core/trace/trace-codec.c's table,
# "NUMBER NAME yes|no FIELD TYPE, FIELD TYPE, ..." (numbers from the enum
# of core/trace/trace.h, types spelled as in the specification).
codec_kinds() {
	awk '
		FILENAME ~ /trace\.h$/ {
			if (match($0, /VS_REC_[A-Z_]+[ \t]*=[ \t]*[0-9]+/)) {
				split(substr($0, RSTART, RLENGTH), kv, /[ \t]*=[ \t]*/)
				num[kv[1]] = kv[2]
			}
			next
		}
		/^static const struct vs_field [a-z_]+\[\]/ {
			arr = $5
			sub(/\[\].*/, "", arr)
			next
		}
		arr != "" && /^};/ { arr = ""; next }
		arr != "" && match($0, /"[a-z_]+"[^"]*VS_F_[A-Z0-9_]+/) {
			f = substr($0, RSTART, RLENGTH)
			name = f
			sub(/^"/, "", name)
			sub(/".*/, "", name)
			type = f
			sub(/.*VS_F_/, "", type)
			type = types[type]
			fields[arr] = fields[arr] (fields[arr] == "" ? "" : ", ") \
				(name == type ? name : name " " type)
			next
		}
		/^\tKIND\(VS_REC_/ {
			line = $0
			gsub(/[(),"]/, " ", line)
			split(line, w, " ")
			print num[w[2]], w[3], (w[4] == "true" ? "yes" : "no"),
				fields[w[5]]
		}
		BEGIN {
			types["U8"] = "u8"; types["U16"] = "u16"
			types["U32"] = "u32"; types["U64"] = "u64"
			types["I64"] = "i64"; types["TIME"] = "time"
			types["STR"] = "string"; types["BUILD_ID"] = "build-id"
			types["U16_ARRAY"] = "u16[]"; types["U64_ARRAY"] = "u64[]"
			types["VALUES"] = "values"
		}' "$SRC/core/trace/trace.h" "$SRC/core/trace/trace-codec.c"
}

# spec_kinds: the kinds table of the format specification, one line per
# kind with its continuation lines joined and the notes on the fields
# (in parentheses, after a ';') left out: "NUMBER NAME yes|no FIELDS".
spec_kinds() {
	doc_section "$DOC/varscope-data-format.txt" Records | awk '
		/^\tkind +name +context +fields/ { table = 1; next }
		table && /^$/ { if (row != "") exit; next }
		table && /^\t[0-9]+ / { if (row != "") print row; row = $0; next }
		table && /^\t +/ { row = row " " $0 }
		END { if (row != "") print row }' |
		tr -s ' \t' ' ' | sed -E 's/^ //; s/ \([^)]*\)//g; s/;.*//; s/ $//'
}

@test "every record kind of the codec is in the format specification" {
	local num name ctx fields row bad=""

	codec_kinds >kinds
	spec_kinds >spec
	[ "$(wc -l <kinds)" -ge 10 ] || fail "codec kinds: $(cat kinds)"
	[ "$(wc -l <spec)" -ge 10 ] || fail "spec table: $(cat spec)"
	while read -r num name ctx fields; do
		row=$(grep -E "^$num $name " spec) || {
			bad+="kind $num $name: no row \"$num $name\" in the table; "
			continue
		}
		[ "$row" = "$num $name $ctx $fields" ] ||
			bad+="row \"$row\" should be \"$num $name $ctx $fields\"; "
	done <kinds
	# and no row for a kind the codec does not know
	while read -r num name _; do
		grep -qE "^$num $name " kinds ||
			bad+="the table's kind $num $name is not in the codec; "
	done <spec
	[ -z "$bad" ] || fail "varscope-data-format.txt: $bad"
}

@test "every record kind is in varscope-script(1)'s JSON keys, in order" {
	local num name ctx fields item rest f bad=""

	codec_kinds >kinds
	[ "$(wc -l <kinds)" -ge 10 ] || fail "codec kinds: $(cat kinds)"
	doc_section "$DOC/varscope-script.txt" "JSON OUTPUT" >json
	while read -r num name ctx fields; do
		# the item "`name`::" and its text, up to the blank line
		item=$(awk -v k="\`$name\`::" '
			$0 == k { p = 1; next }
			p && /^$/ { exit }
			p' json | tr '\n' ' ')
		if [ -z "$item" ]; then
			bad+="no item \`$name\`::; "
			continue
		fi
		rest=$item
		while read -r f; do
			case $rest in
			*"\`${f%% *}\`"*) rest=${rest#*"\`${f%% *}\`"} ;;
			*)	bad+="$name: key \`${f%% *}\` missing or out of order; "
				break ;;
			esac
		done < <(tr ',' '\n' <<<"$fields" | sed 's/^ //')
	done <kinds
	[ -z "$bad" ] || fail "varscope-script.txt JSON OUTPUT: $bad"
}

@test "every META key varscope record writes is named in its man page" {
	local key missing=""

	grep -ohE 'write_meta\([^,]+, "[a-z_]+"' "$SRC"/core/record/*.c |
		sed -E 's/.*"([a-z_]+)"/\1/' | sort -u >keys
	[ "$(wc -l <keys)" -ge 5 ] || fail "META keys found: $(cat keys)"
	# an item "`key`::" of the page's list of META records
	while read -r key; do
		grep -qx "\`$key\`::" "$DOC/varscope-record.txt" ||
			missing+="$key "
	done <keys
	[ -z "$missing" ] ||
		fail "varscope-record.txt lists no META key (as \`key\`::) $missing"
}

@test "every META key of a signature file is named in its man page" {
	local key missing=""

	# the { "key", value } pairs of core/signature/signature-file.c's
	# META table
	sed -n '/const char \*meta\[\]\[2\] = {/,/};/p' \
		"$SRC/core/signature/signature-file.c" |
		grep -oE '\{ "[a-z_]+",' | grep -oE '[a-z_]+' >keys
	[ "$(wc -l <keys)" -ge 5 ] || fail "META keys found: $(cat keys)"
	# listed in the paragraph on the signature file: "META records (...)"
	doc_text "$DOC/varscope-signature.txt" "The signature file is" |
		sed -E 's/.*META records \(//; s/\).*//' | tr -d ' ' |
		tr ',:' '\n\n' >listed
	while read -r key; do
		grep -qx "$key" listed || missing+="$key "
	done <keys
	[ -z "$missing" ] ||
		fail "varscope-signature.txt lists no META key $missing"
}

@test "every function of include/varscope.h is in vs_task_begin(3)" {
	local decl fn missing=""

	grep -E '^[a-z].*\bvs_[a-z_]+\(.*\);$' "$SRC/include/varscope.h" >api
	[ "$(wc -l <api)" -ge 2 ] || fail "declarations found: $(cat api)"
	doc_section "$DOC/vs_task_begin.txt" SYNOPSIS >synopsis
	doc_section "$DOC/vs_task_begin.txt" NAME >name
	while read -r decl; do
		grep -qxF "$decl" synopsis || missing+="SYNOPSIS: $decl; "
		fn=${decl%%(*}
		fn=${fn##* }
		grep -qE "(^|[ ,])$fn([ ,]|$)" name || missing+="NAME: $fn; "
	done <api
	[ -z "$missing" ] || fail "vs_task_begin.txt lacks $missing"
}

# code_bits PREFIX: the bit numbers of core/trace/trace.h's "#define PREFIXNAME
# (1u << N)" flags, one per line.
code_bits() {
	sed -En "s/^#define $1[A-Z_]+[ \t]+\(1u << ([0-9]+)\).*/\1/p" \
		"$SRC/core/trace/trace.h" | sort -n
}

# doc_text FILE START: the text of FILE from the line holding START up to
# the next blank line, on one line.
doc_text() {
	awk -v s="$2" 'index($0, s) { p = 1 } p && /^[ \t]*$/ { exit } p' \
		"$1" | tr '\n\t' '  '
}

# listed_numbers: the numbers that open the items of the list on stdin
# ("bit 0 lost events, 1 begin while...", "Flags: 1 lost events, 2 ...",
# "(1 addr, 2 weight"), one per line.
listed_numbers() {
	grep -oE '(bit|,|:|\() *[0-9]+ [A-Za-z]' | grep -oE '[0-9]+' | sort -n
}

# log2: the bit number of each flag value on stdin.
log2() {
	awk '{ for (b = 0; 2 ^ b < $1; b++); print b }'
}

# same_list WHAT CODE DOC: a "WHAT: ..." complaint unless CODE and DOC
# hold the same lines.
same_list() {
	[ "$2" = "$3" ] ||
		echo "$1: the code has $(echo $2), the page $(echo $3); "
}

@test "every task and sample flag and event group is in the pages" {
	local spec=$DOC/varscope-data-format.txt
	local script=$DOC/varscope-script.txt
	local bits groups doc bad=""

	# the task flags: bits in the specification, values in script(1)
	bits=$(code_bits VS_TASK_)
	[ "$(wc -l <<<"$bits")" -ge 8 ] || fail "task flags found: $bits"
	doc=$(doc_text "$spec" "Task flags (u32):" | listed_numbers)
	bad+=$(same_list "varscope-data-format.txt task flags" "$bits" "$doc")
	doc=$(doc_text "$script" '`id`, `type`, `pid`, `tid`, `cpu` (at begin)' |
		sed 's/.*Flags:/:/' | listed_numbers | log2)
	bad+=$(same_list "varscope-script.txt task flags" "$bits" "$doc")

	bits=$(code_bits VS_SAMPLE_)
	[ "$(wc -l <<<"$bits")" -ge 5 ] || fail "sample flags found: $bits"
	doc=$(doc_text "$spec" "Sample flags (u32):" | listed_numbers)
	bad+=$(same_list "varscope-data-format.txt sample flags" "$bits" "$doc")
	doc=$(doc_text "$script" '`time_ns`, `pid`, `tid`, `cpu`, `flags` (' |
		listed_numbers | log2)
	bad+=$(same_list "varscope-script.txt sample flags" "$bits" "$doc")

	# the event groups, by number and name
	groups=$(sed -En 's/^\tVS_GROUP_([A-Z]+)[ \t]*= ([0-9]+),.*/\2 \1/p' \
		"$SRC/core/trace/trace.h")
	[ "$(wc -l <<<"$groups")" -ge 8 ] || fail "groups found: $groups"
	doc=$(doc_text "$spec" "Event groups (u8):" | grep -oE '[0-9]+ [A-Z]+')
	bad+=$(same_list "varscope-data-format.txt event groups" "$groups" "$doc")
	doc=$(doc_text "$script" '`id`, `parent` (65535: none), `group`' |
		grep -oE '[0-9]+ [A-Z]+')
	bad+=$(same_list "varscope-script.txt event groups" "$groups" "$doc")
	[ -z "$bad" ] || fail "$bad"
}

# gen_trace_line PAGE: the t/helper/gen-trace command (in backquotes, maybe
# over several lines) that PAGE says made its examples' trace.
gen_trace_line() {
	tr '\n' ' ' <"$DOC/$1" | grep -oE '`t/helper/gen-trace [^`]*`' |
		head -1 | tr -d '`' | tr -s ' '
}

# example_output PAGE CMD: the lines PAGE shows under the line "$ CMD" of
# an example block, up to the block's end.
example_output() {
	awk -v c="\$ $2" '$0 == c { p = 1; next } p && /^-+$/ { exit } p' \
		"$DOC/$1"
}

# without_blank_tail: stdin without its trailing empty lines.
without_blank_tail() {
	awk '{ line[NR] = $0 }
		END {
			n = NR
			while (n && line[n] == "")
				n--
			for (i = 1; i <= n; i++)
				print line[i]
		}'
}

@test "the examples on synthetic traces print what the pages show" {
	local page trace_page gen cmd bad="" checked=0

	# gen-trace's traces are the same in every run: so are the outputs
	while IFS='|' read -r page trace_page cmd; do
		gen=$(gen_trace_line "$trace_page")
		[ -n "$gen" ] || fail "$page: no gen-trace line"
		"$BUILD"/$gen >/dev/null || fail "$page: $gen failed"
		example_output "$page" "$cmd" >want
		[ -s want ] || fail "$page: no example \"\$ $cmd\""
		"$VARSCOPE" ${cmd#varscope } 2>&1 | without_blank_tail >got
		diff -u want got >d || bad+="$page, \$ $cmd: $(cat d); "
		checked=$((checked + 1))
	done <<-EOF
	varscope-report.txt|varscope-report.txt|varscope report --top 3 --ci
	varscope-segments.txt|varscope-segments.txt|varscope segments --length 200ms long.data --type 0
	varscope-diff.txt|varscope-segments.txt|varscope diff --length 200ms long.data:10 long.data:6 --type 0 --top 4 --svg fig8.svg
	EOF
	[ $checked -eq 3 ] || fail "only $checked examples checked"
	[ -z "$bad" ] || fail "$bad"
}

@test "the CSV header lines are the pages' lists of columns" {
	local want

	"$BUILD"/t/helper/gen-trace -o t.data --tasks 2000 --types 1 \
		--events 4 >/dev/null
	# report: "a header line and one line per ranked event: type, ..."
	want=$(doc_text "$DOC/varscope-report.txt" '`--format csv` prints' |
		sed -E 's/.*ranked event: //; s/\. *$//; s/, /,/g')
	[ -n "$want" ] || fail "varscope-report.txt: no list of CSV columns"
	run "$VARSCOPE" report -i t.data --format csv
	assert_success
	[ "${lines[0]}" = "$want" ] ||
		fail "report's CSV header ${lines[0]}, its page says $want"
	# segments: "a header line, then a line per type and segment: `...`"
	want=$(doc_text "$DOC/varscope-segments.txt" "With '--format csv'" |
		grep -oE '`type,[a-z_0-9,]+`' | tr -d '`')
	[ -n "$want" ] || fail "varscope-segments.txt: no list of CSV columns"
	run "$VARSCOPE" segments --length 1s --format csv t.data
	assert_success
	[ "${lines[0]}" = "$want" ] ||
		fail "segments' CSV header ${lines[0]}, its page says $want"
}

# json_keys: every object key of the JSON on stdin, one per line.
json_keys() {
	python3 -c 'import json, sys
def walk(v):
	if isinstance(v, dict):
		for k, x in v.items():
			print(k)
			walk(x)
	elif isinstance(v, list):
		for x in v:
			walk(x)
for line in sys.stdin:
	walk(json.loads(line))' | sort -u
}

@test "every JSON key of report, segments, diff and list is in its page" {
	local page key bad=""

	"$BUILD"/t/helper/gen-trace -o t.data --tasks 4000 --types 2 \
		--events 6 --wakeups --samples-per-task 4 \
		--cause sched.blocked.time:0 --cause-frac 0.05 >/dev/null
	"$VARSCOPE" report -i t.data --ci --tree --format json |
		json_keys >report
	grep -qx variance_tree report && grep -qx wait_blame report ||
		fail "no tree or blame in report's JSON: $(cat report)"
	"$VARSCOPE" segments --length 100ms --format json t.data |
		json_keys >segments
	"$VARSCOPE" diff --length 100ms t.data:1 t.data:2 --format json |
		json_keys >diff
	"$VARSCOPE" list --format json 2>/dev/null | json_keys >list
	for page in report segments diff list; do
		[ "$(wc -l <$page)" -ge 5 ] || fail "$page: keys $(cat $page)"
		while read -r key; do
			grep -qE "\"$key\"|\`$key\`" "$DOC/varscope-$page.txt" ||
				bad+="varscope-$page.txt: $key; "
		done <$page
	done
	[ -z "$bad" ] || fail "JSON keys no page names: $bad"
}
