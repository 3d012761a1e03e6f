#!/usr/bin/env bats
# t0020-completion: the bash completion completes commands, the options of
# each command (from the binary itself) and the program after "--".

load test-lib

setup() {
	vs_setup
	source "$SRC/contrib/completion/varscope.bash"
}

# complete WORD...: COMPREPLY for the command line WORD... (last is current)
complete_words() {
	COMP_WORDS=("$VARSCOPE" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_varscope
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

@test "completion is registered for varscope" {
	run complete -p varscope
	assert_success
	assert_output --partial "-F _varscope"
}

@test "the first word completes to the commands" {
	run complete_words ""
	for cmd in $("$VARSCOPE" --list-cmds); do
		assert_line "$cmd"
	done
	run complete_words "re"
	assert_output "$(printf 'record\nreport')"
	run complete_words "--v"
	assert_output "--version"
}

@test "help completes to the commands" {
	run complete_words help s
	assert_output "$(printf 'script\nsegments\nsignature')"
}

@test "an option word completes to the command's own long options" {
	for cmd in $("$VARSCOPE" --list-cmds); do
		[ "$cmd" = help ] && continue
		run complete_words "$cmd" --he
		assert_output "--help"
		want=$("$VARSCOPE" "$cmd" --list-opts | tr ' ' '\n' | grep -c .)
		run complete_words "$cmd" --
		[ "${#lines[@]}" = "$want" ] || fail "$cmd: ${#lines[@]} of $want options"
	done
}

@test "after record --, the program, then its files" {
	touch input.txt
	run complete_words record -- "bas"
	assert_line bash
	run complete_words record -- bash inp
	assert_output "input.txt"
}
