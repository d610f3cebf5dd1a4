#!/usr/bin/env bats
# completion.bats - the bash completion (completion/dbench.bash) against
# each program's --help: what it offers is what --help says, for dbench
# and tbench (the core options, each backend's own, the backends after
# -B, the values an option's placeholder lists), tbench_srv,
# dbench-compare, dbench-plot and dbench-trace2load.  The lists the tests
# compare with are cut from --help here, by section, with sed.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

load helpers

setup_file() {
	[ -r /usr/share/bash-completion/bash_completion ] || return 0
	export BIN=$(cd "$(dirname "$DBENCH")" && pwd)
	export TOOLS=$(cd "$BIN/../tools" && pwd)
}

setup() {
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	make_tmp
}
teardown() { remove_tmp; }

# The words the completion offers for the command line "$@" (the last word
# is the one being completed), one a line, sorted.
complete_words() {
	PATH=$BIN:$TOOLS:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/completion/dbench.bash"
		compopt() { :; }	# only works inside a real completion
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		complete -p "$1" >/dev/null || exit 3
		_dbench_complete "$1"
		printf "%s\n" "${COMPREPLY[@]}"' completion "$DBENCH_SRCDIR" "$@" | sed '/^$/d' | sort
}

# The options of the --help sections named (whole header lines, as regexps)
# in "$@" of the help text on stdin, one a line, sorted; "=" after a long
# option that takes a value; not -? (no shell word).
help_options() {
	local headers
	headers=$(printf '%s\n' "$@")
	awk -v headers="$headers" '
		BEGIN { n = split(headers, h, "\n"); on = (h[1] == "^") }
		/^[^ ].*:$/ { on = 0; for (i = 1; i <= n; i++) if ($0 ~ h[i]) on = 1; next }
		on && /^ +-/ {
			line = $0; sub(/^ +/, "", line); sub(/  .*/, "", line)
			k = split(line, item, ", ")
			for (i = 1; i <= k; i++) {
				o = item[i]; eq = (o ~ /^--[^= ]+=/); sub(/[= ].*/, "", o)
				if (o != "-?") print o (eq ? "=" : "")
			}
		}' | sort
}

# The usable backends of dbench --help, sorted.
help_backends() {
	sed -n '/^Backends (-B NAME):$/,/^Modules/p' | grep -E '^  [a-z0-9_-]+ ' |
		grep -Ev 'cannot be used|not installed' | awk '{ print $1 }' | sort
}

# The completion is shell: in the sanitizer pass, the tests whose C is
# dbench's and tbench's --help and -B NAME --help skip (backends.bats and
# modules.bats run those).
dbench_help_is_elsewhere() {
	sanitizer_pass_skip "the completion is shell; the C it runs, dbench's and tbench's --help and -B NAME --help, is backends.bats' and modules.bats'"
}

@test "completion: dbench's options are --help's core options and the default backend's" {
	dbench_help_is_elsewhere
	local help want got
	help=$("$DBENCH" --help)
	want=$(help_options '^Options:$' '^Help options:$' '^fileio backend options' \
		'^[A-Za-z]+ options \((.*, )?fileio(,.*)?\):$' <<<"$help")
	got=$(complete_words dbench -)
	diff <(echo "$want") <(echo "$got")
	# a few that must be there, so that an empty --help cannot pass
	grep -qx -- '--timelimit=' <<<"$got"
	grep -qx -- '--directory=' <<<"$got"
	grep -qx -- '-B' <<<"$got"
	# tbench's default backend is sockio
	want=$(help_options '^Options:$' '^Help options:$' '^sockio backend options' \
		'^[A-Za-z]+ options \((.*, )?sockio(,.*)?\):$' <<<"$("$TBENCH" --help)")
	got=$(complete_words tbench -)
	diff <(echo "$want") <(echo "$got")
	grep -qx -- '--wire=' <<<"$got"
}

@test "completion: -B offers --help's backends, and each backend's own options follow -B" {
	dbench_help_is_elsewhere
	local help names name want got n=0
	help=$("$DBENCH" --help)
	names=$(help_backends <<<"$help")
	[ "$(complete_words dbench -B '')" = "$names" ]
	[ "$(complete_words dbench --backend '')" = "$names" ]
	grep -qx null <<<"$names"
	for name in $names; do
		want=$(help_options '^Options:$' '^Help options:$' "^$name backend options" \
			"^[A-Za-z]+ options \\((.*, )?$name(,.*)?\\):\$" <<<"$("$DBENCH" -B "$name" --help)")
		got=$(complete_words dbench -B "$name" -)
		echo "$name:"
		diff <(echo "$want") <(echo "$got")
		got=$(complete_words dbench "--backend=$name" -)
		diff <(echo "$want") <(echo "$got")
		n=$((n + 1))
	done
	[ "$n" -ge 5 ]
	# a backend's option is not offered for another backend
	if grep -qx smb <<<"$names"; then
		grep -qx -- '--smb-share=' <<<"$(complete_words dbench -B smb --smb)"
		[ -z "$(complete_words dbench -B null --smb)" ]
	fi
}

@test "completion: an option's value: the words its placeholder lists, files, directories" {
	dbench_help_is_elsewhere
	local got
	if "$DBENCH" --help | grep -q -- '--nfs-version=3|4'; then
		[ "$(complete_words dbench -B nfs --nfs-version '' | tr '\n' ' ')" = "3 4 " ]
		[ "$(complete_words dbench -B nfs --nfs-version=4)" = 4 ]
	fi
	mkdir -p "$T/c/sub"
	touch "$T/c/load.txt" "$T/c/r.json" "$T/c/x.pcap"
	got=$(complete_words dbench -c "$T/c/")
	grep -qx "$T/c/load.txt" <<<"$got"
	grep -qx "$T/c/sub" <<<"$got"
	got=$(complete_words dbench -D "$T/c/")
	[ "$got" = "$T/c/sub" ]
	got=$(complete_words dbench-plot -o "$T/c/")
	[ "$got" = "$T/c/sub" ]
	# a number: nothing to offer
	[ -z "$(complete_words dbench -t '')" ]
	# the tools' files
	got=$(complete_words dbench-compare "$T/c/")
	grep -qx "$T/c/r.json" <<<"$got"
	! grep -qx "$T/c/load.txt" <<<"$got" || false
	grep -qx "$T/c/x.pcap" <<<"$(complete_words dbench-trace2load "$T/c/")"
}

@test "completion: tbench_srv, dbench-compare, dbench-plot and dbench-trace2load offer their --help's options" {
	sanitizer_pass_skip "the completion is shell; the C it runs is each tool's --help: tbench_srv_workers.bats', compare.bats' and trace2load.bats' --help tests, and dbench-plot's is libpopt's (POPT_AUTOHELP)"
	local cmd path want got
	for cmd in tbench_srv dbench-compare dbench-plot dbench-trace2load; do
		path=$BIN/$cmd
		[ -x "$path" ] || path=$TOOLS/$cmd
		[ -x "$path" ]
		want=$(help_options '^' '^Help options:$' <<<"$("$path" --help)")
		got=$(complete_words "$cmd" -)
		echo "$cmd:"
		diff <(echo "$want") <(echo "$got")
		[ "$(wc -l <<<"$got")" -ge 5 ]
	done
	grep -qx -- '--bind' <<<"$(complete_words tbench_srv -)"
	grep -qx -- '--threshold=' <<<"$(complete_words dbench-compare -)"
}
