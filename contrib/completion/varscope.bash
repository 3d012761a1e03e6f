# bash completion for varscope.  Installed as
# $(PREFIX)/share/bash-completion/completions/varscope; or source it.
#
# The commands come from "varscope --list-cmds" and each command's long
# options from "varscope CMD --list-opts", so the completion follows the
# binary without being edited.  After "record [options] --" it completes
# the program to run.

_varscope()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]}
	local cmd="" i opts

	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) [ -n "$cmd" ] && { _varscope_program "$i"; return; } ;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
		esac
	done

	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$("$prog" --list-cmds 2>/dev/null) --help --version" -- "$cur"))
		return
	fi
	if [ "$cmd" = help ]; then
		[ $COMP_CWORD -eq 2 ] &&
			COMPREPLY=($(compgen -W "$("$prog" --list-cmds 2>/dev/null)" -- "$cur"))
		return
	fi
	case $cur in
	-*)
		opts=$("$prog" "$cmd" --list-opts 2>/dev/null)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		# --name= waits for its value
		[ ${#COMPREPLY[@]} -eq 1 ] && [[ ${COMPREPLY[0]} == *= ]] &&
			compopt -o nospace 2>/dev/null
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}

# "varscope record -- PROG ARGS": a command name first, then files.
_varscope_program()
{
	local dashdash=$1 cur=${COMP_WORDS[COMP_CWORD]}

	if [ $COMP_CWORD -eq $((dashdash + 1)) ]; then
		COMPREPLY=($(compgen -c -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

complete -o default -F _varscope varscope
