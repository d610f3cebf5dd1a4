# bash completion for dbench, tbench, tbench_srv, dbench-compare,
# dbench-plot and dbench-trace2load.  Nothing here lists an option: every word offered is read
# from the program's own --help when completing, so the completion cannot
# drift from the program (tests/cli/completion.bats checks the two agree):
#   - the options: dbench's core options and those of the backend the
#     command line selects (-B NAME; dbench's default fileio, tbench's
#     sockio), the backends' names after -B (the usable ones of --help's
#     "Backends" list);
#   - an option's value: its placeholder in --help says what it is:
#     A|B|C are the words, FILE, DEV and a path are files, DIR a directory.
# One file, installed under each command's name (bash-completion loads
# completions/NAME for NAME), so that each package has what it needs.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# The --help of "$@", once per command line and backend.
_dbench_help()
{
	local key="$*"
	if [[ ${_dbench_help_key-} != "$key" ]]; then
		_dbench_help_text=$(LC_ALL=C "$@" --help 2>/dev/null)
		_dbench_help_key=$key
	fi
}

# From _dbench_help_text: "OPTION<TAB>PLACEHOLDER" for each option of the
# sections that apply to backend $1 ("" for a program without backends).
# Long options with a value end in '='.
_dbench_options()
{
	awk -v be="$1" '
	function applies(hdr,   names) {
		if (hdr ~ /^(Options|Help options):$/)
			return 1
		if (hdr ~ / backend options \(-B [^)]*\):$/) {
			sub(/ backend options.*/, "", hdr)
			return hdr == be
		}
		if (hdr ~ /options \(.*\):$/) {
			names = hdr
			sub(/.*\(/, "", names)
			sub(/\):$/, "", names)
			return index(", " names ", ", ", " be ", ") > 0
		}
		return 0
	}
	BEGIN { on = 1 }
	/^[^ ].*:$/ { on = applies($0); next }
	on && /^ +-/ {
		line = $0
		sub(/^ +/, "", line)
		sub(/  .*/, "", line)
		arg = ""
		n = split(line, item, ", ")
		for (i = 1; i <= n; i++) {
			if (match(item[i], /[= ][^ ]+$/))
				arg = substr(item[i], RSTART + 1)
		}
		for (i = 1; i <= n; i++) {
			opt = item[i]
			eq = opt ~ /^--[^= ]+=/
			sub(/[= ].*/, "", opt)
			if (opt == "-?")
				continue
			print opt (eq ? "=" : "") "\t" arg
		}
	}' <<<"$_dbench_help_text"
}

# The usable backends of dbench --help's list.
_dbench_backends()
{
	sed -n '/^Backends (-B NAME):$/,/^[^ ]/{
		/cannot be used\|not installed/d
		s/^  \([A-Za-z0-9_-][A-Za-z0-9_-]*\)  *[^ (].*/\1/p
	}' <<<"$_dbench_help_text"
}

_dbench_complete()
{
	local cur prev words cword split
	_init_completion -s || return

	local cmd=${words[0]} prog=${words[0]##*/} backend= i
	case $prog in
	dbench) backend=fileio ;;
	tbench) backend=sockio ;;
	esac
	if [[ -n $backend ]]; then
		for ((i = 1; i < cword; i++)); do
			case ${words[i]} in
			-B | --backend) [[ -n ${words[i + 1]-} ]] && backend=${words[i + 1]} ;;
			--backend=?*) backend=${words[i]#--backend=} ;;
			-B?*) backend=${words[i]#-B} ;;
			esac
		done
		_dbench_help "$cmd" -B "$backend"
		# an unknown backend: the program says why on --help; offer
		# the core options
		[[ -n $_dbench_help_text ]] || _dbench_help "$cmd"
	else
		_dbench_help "$cmd"
	fi

	local options placeholder
	options=$(_dbench_options "$backend")
	if [[ $prev == -* ]]; then
		placeholder=$(awk -F '\t' -v o="$prev" '$1 == o || $1 == o "=" { print $2; exit }' <<<"$options")
		if [[ -n $backend && ($prev == -B || $prev == --backend) ]]; then
			COMPREPLY=($(compgen -W "$(_dbench_backends)" -- "$cur"))
			return
		fi
		case $placeholder in
		"") ;;
		*\|*)
			COMPREPLY=($(compgen -W "${placeholder//|/ }" -- "$cur"))
			return
			;;
		DIR | *DIR)
			_filedir -d
			return
			;;
		FILE | *FILE | DEV | /*)
			_filedir
			return
			;;
		*) return ;;	# a number, a name, a URL: nothing to offer
		esac
	fi
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(cut -f1 <<<"$options")" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	case $prog in
	dbench-compare | dbench-plot) _filedir json ;;
	dbench-trace2load) _filedir '@(pcap|pcapng|cap)' ;;
	esac
}

complete -F _dbench_complete dbench tbench tbench_srv dbench-compare dbench-plot dbench-trace2load
