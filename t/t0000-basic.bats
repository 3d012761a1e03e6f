#!/usr/bin/env bats
# t0000-basic: the varscope command itself: usage, --help, --version,
# help CMD, unknown commands, --list-cmds, and option parsing through a
# real command.

load test-lib

@test "varscope without a command prints the usage and exits 1" {
	run "$VARSCOPE"
	assert_failure 1
	assert_line --index 0 "usage: varscope [--version] [--help] COMMAND [ARGS]"
}

@test "varscope --help lists every command with its summary" {
	run "$VARSCOPE" --help
	assert_success
	assert_line --index 0 "usage: varscope [--version] [--help] COMMAND [ARGS]"
	for cmd in record report tui diff segments signature script list help; do
		assert_line --regexp "^   $cmd +[A-Z]"
	done
	run "$VARSCOPE" -h
	assert_success
	assert_line --index 0 --partial "usage: varscope"
}

@test "varscope --version prints the Makefile's version" {
	version=$(sed -n 's/^VERSION *:= *//p' "$SRC/Makefile")
	run "$VARSCOPE" --version
	assert_success
	assert_output "varscope version $version"
}

@test "--list-cmds prints one command per line, help last" {
	run "$VARSCOPE" --list-cmds
	assert_success
	assert_output "$(printf '%s\n' record report tui diff segments signature script list help)"
}

@test "an unknown command names itself and the closest command, exit 1" {
	run --separate-stderr "$VARSCOPE" xyz
	assert_failure 1
	assert_output ""
	[ "${stderr_lines[0]}" = "varscope: 'xyz' is not a varscope command. See 'varscope --help'." ]
	[ "${stderr_lines[1]}" = "The most similar command is" ]

	run "$VARSCOPE" scirpt
	assert_failure 1
	assert_line --index 0 "varscope: 'scirpt' is not a varscope command. See 'varscope --help'."
	assert_line --index 2 "$(printf '\tscript')"

	run "$VARSCOPE" rec
	assert_failure 1
	assert_line --index 2 "$(printf '\trecord')"

	run "$VARSCOPE" sigantures
	assert_failure 1
	assert_line --index 2 "$(printf '\tsignature')"
}

@test "an unknown option before the command exits 129" {
	run "$VARSCOPE" --bogus
	assert_failure 129
	assert_output "varscope: unknown option '--bogus'. See 'varscope --help'."
}

@test "every command has --help: its usage on stdout, exit 0" {
	for cmd in $("$VARSCOPE" --list-cmds); do
		[ "$cmd" = help ] && continue
		run --separate-stderr "$VARSCOPE" "$cmd" --help
		assert_success
		assert_line --index 0 --partial "usage: varscope $cmd"
		[ -z "$stderr" ] || fail "$cmd --help wrote to stderr: $stderr"
		run "$VARSCOPE" "$cmd" -h
		assert_success
		assert_line --index 0 --partial "usage: varscope $cmd"
	done
}

@test "every command rejects an unknown option in one line, exit 129" {
	for cmd in $("$VARSCOPE" --list-cmds); do
		[ "$cmd" = help ] && continue
		run --separate-stderr "$VARSCOPE" "$cmd" --no-such-option
		assert_failure 129
		[ "${#stderr_lines[@]}" = 1 ] ||
			fail "$cmd: ${#stderr_lines[@]} lines: $stderr"
		[ "$stderr" = "varscope $cmd: unknown option \`--no-such-option'. See 'varscope $cmd --help'." ] ||
			fail "$cmd: $stderr"
	done
}

@test "every command lists its long options for the completion" {
	for cmd in $("$VARSCOPE" --list-cmds); do
		[ "$cmd" = help ] && continue
		run "$VARSCOPE" "$cmd" --list-opts
		assert_success
		assert_output --regexp "(^| )--help$"
	done
}

@test "varscope help CMD without man prints the command's usage" {
	run env VARSCOPE_NO_MAN=1 "$VARSCOPE" help script
	assert_success
	assert_line --index 0 --partial "usage: varscope script"

	# No man on the PATH at all: the same usage.
	mkdir bin
	ln -s "$VARSCOPE" bin/varscope
	run env -u VARSCOPE_NO_MAN PATH="$TEST_TMP/bin" varscope help script
	assert_success
	assert_line --index 0 --partial "usage: varscope script"
}

@test "varscope help alone is the main usage, help of a non-command fails" {
	run "$VARSCOPE" help
	assert_success
	assert_line --index 0 "usage: varscope [--version] [--help] COMMAND [ARGS]"
	run "$VARSCOPE" help xyz
	assert_failure 1
	assert_line --index 0 "varscope: 'xyz' is not a varscope command. See 'varscope --help'."
}

@test "varscope help CMD opens the command's man page from the build tree" {
	require_cmd man
	pages=0
	for cmd in $("$VARSCOPE" --list-cmds); do
		[ -f "$SRC/Documentation/varscope-$cmd.txt" ] || continue
		pages=$((pages + 1))
		[ -f "$SRC/build/man/man1/varscope-$cmd.1" ] ||
			fail "build/man/man1/varscope-$cmd.1 not built (make doc)"
		run env -u VARSCOPE_NO_MAN -u MANPATH MANPAGER=cat \
			"$VARSCOPE" help "$cmd"
		assert_success
		assert_line --index 0 --regexp "^VARSCOPE-${cmd^^}\(1\) "
		assert_line --regexp "^NAME$"
	done
	[ $pages -gt 0 ] || skip "no Documentation/varscope-CMD.txt in the tree yet"
}

@test "the varscope(1) page is built and names every command" {
	require_cmd man
	run env MANPAGER=cat man -l "$SRC/build/man/man1/varscope.1"
	assert_success
	for cmd in $("$VARSCOPE" --list-cmds); do
		assert_line --regexp "^ +$cmd$"
	done
}

@test "a real command parses long, short and --name=value forms alike" {
	"$VARSCOPE" script --help | grep -q -- "--format" ||
		skip "varscope script has no --format yet"
	for args in "--format xml" "--format=xml" "-i x --format xml"; do
		run --separate-stderr "$VARSCOPE" script $args
		assert_failure 129
		[ "$stderr" = "varscope script: option \`--format': must be text or json" ] ||
			fail "script $args: $stderr"
	done
	for args in "-i" "--input"; do
		run --separate-stderr "$VARSCOPE" script $args
		assert_failure 129
		[ "$stderr" = "varscope script: option \`--input': requires a value" ] ||
			fail "script $args: $stderr"
	done
	# the value of -i, glued or not, names the file in the error
	for args in "-i/nonexistent" "-i /nonexistent" "--input=/nonexistent"; do
		run --separate-stderr "$VARSCOPE" script $args
		assert_failure 1
		assert_equal "${#stderr_lines[@]}" 1
		[[ $stderr == *"/nonexistent"* ]] || fail "script $args: $stderr"
	done
}
