# wait.sh - wait_for: the one way the tests wait for something to happen.
#
# A test never sleeps a fixed time hoping something happened: it names the
# condition and waits for it, with a limit after which the wait fails
# loudly.  Sourced by srvutil.sh (so by every server helper and by
# tests/cli/helpers.bash and tests/lib/tbench.bash); needs bash 5.
#
#	wait_for -t 30 "the server's pid file" test -s "$T/srv.pid"
#	wait_for "dbench's first progress line" grep -q execute "$T/out"
#	wait_for -t 5 "client $pid to exit" ! srv_alive "$pid"
#
# The limit is a wall-clock bound on a hang, not a claim about speed: it is
# multiplied by wait_scale (below) so that a loaded machine or a sanitizer
# build does not turn a slow pass into a failure.  A test that claims "done
# within N s" measures that itself (SECONDS), apart from its wait_for.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

# Does this run test a sanitizer build?  build.sh sanitize exports
# ASAN_OPTIONS; by hand, the dbench under test links libasan.
if [ -n "${ASAN_OPTIONS:-}" ] ||
	{ [ -f "${DBENCH:-}" ] && grep -q -a -m 1 'libasan\.so' "$DBENCH" 2>/dev/null; }; then
	_WAIT_SANITIZED=1
else
	_WAIT_SANITIZED=
fi
_WAIT_CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null) || _WAIT_CPUS=1
[ "${_WAIT_CPUS:-0}" -ge 1 ] 2>/dev/null || _WAIT_CPUS=1

# wait_scale: set _WAIT_SCALE, the factor every limit is multiplied by, and
# _WAIT_WHY, why.  WAIT_FOR_SCALE=N (an integer >= 1) sets it outright;
# otherwise 3 under sanitizers, times the load per CPU rounded up (at most
# 4), never more than 8 in all.
wait_scale() {
	local load raw _

	_WAIT_WHY=
	if [ -n "${WAIT_FOR_SCALE:-}" ]; then
		_WAIT_SCALE=$WAIT_FOR_SCALE
		_WAIT_WHY="WAIT_FOR_SCALE"
		return 0
	fi
	_WAIT_SCALE=1
	[ -n "$_WAIT_SANITIZED" ] && _WAIT_SCALE=3 _WAIT_WHY="sanitizer build"
	read -r raw _ </proc/loadavg 2>/dev/null || raw=0.00
	# load per CPU, rounded up: "2.10" on 2 CPUs is 2
	load=${raw%%.*}${raw#*.}	# hundredths
	load=$(( (10#$load + _WAIT_CPUS * 100 - 1) / (_WAIT_CPUS * 100) ))
	if [ "$load" -gt 1 ]; then
		[ "$load" -gt 4 ] && load=4
		_WAIT_SCALE=$(( _WAIT_SCALE * load ))
		_WAIT_WHY="${_WAIT_WHY:+$_WAIT_WHY, }load $raw on $_WAIT_CPUS CPUs"
	fi
	[ "$_WAIT_SCALE" -gt 8 ] && _WAIT_SCALE=8
	return 0
}

# _wait_usec SECONDS VAR: VAR = SECONDS (e.g. 5, 0.3) in microseconds.
_wait_usec() {
	local int=${1%%.*} frac=

	[[ $1 == *.* ]] && frac=${1#*.}
	frac=${frac}000000
	printf -v "$2" '%d' $(( 10#${int:-0} * 1000000 + 10#${frac:0:6} ))
}

# _wait_now VAR: VAR = the time now in microseconds.
_wait_now() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		printf -v "$1" '%s' "${EPOCHREALTIME//[!0-9]/}"
	else
		printf -v "$1" '%s' "$(date +%s%6N)"
	fi
}

# wait_for [-t SECONDS] [-i SECONDS] [-q] WHAT COMMAND [ARG...]
#
# Run COMMAND with its arguments (a program, a function or a builtin, in
# this shell; `!` before it waits for it to fail) until it succeeds: return
# 0 then.  After SECONDS (default 10) times wait_scale, set WAIT_FOR_WAITED
# ("N s (limit ...)"), print
#   wait_for: gave up waiting for WHAT after N s (limit ...)
# on stderr (not with -q: the caller says it) and return 1.  Between tries
# it sleeps 0.01 s, doubling up to INTERVAL (default 0.1 s).  A COMMAND
# that cannot be run (status 126 or 127) ends the wait at once.
# Arguments are expanded once, by the caller: a condition that must be
# computed anew each try ($(...), a count) goes in a function.
wait_for() {
	local _wf_limit=10 _wf_step=0.1 _wf_quiet='' _wf_what _wf_not='' _wf_rc
	local _wf_start _wf_end _wf_now _wf_step_us _wf_sleep=10000 _wf_us _wf_nap

	while [ $# -gt 0 ]; do
		case $1 in
		-t) _wf_limit=$2; shift 2 ;;
		-i) _wf_step=$2; shift 2 ;;
		-q) _wf_quiet=1; shift ;;
		*) break ;;
		esac
	done
	_wf_what=$1
	shift
	WAIT_FOR_WAITED=
	if [ "${1:-}" = "!" ]; then
		_wf_not=1
		shift
	fi
	if [ $# -eq 0 ]; then
		echo "wait_for: no command to wait for ($_wf_what)" >&2
		return 2
	fi
	wait_scale
	_wait_usec "$_wf_limit" _wf_us
	_wait_usec "$_wf_step" _wf_step_us
	_wait_now _wf_start
	_wf_end=$(( _wf_start + _wf_us * _WAIT_SCALE ))
	while :; do
		_wf_rc=0
		"$@" || _wf_rc=$?
		if [ "$_wf_rc" -eq 126 ] || [ "$_wf_rc" -eq 127 ]; then
			echo "wait_for: cannot run \"$1\" (status $_wf_rc) waiting for $_wf_what" >&2
			return 2
		fi
		if [ -n "$_wf_not" ]; then
			[ "$_wf_rc" -ne 0 ] && return 0
		else
			[ "$_wf_rc" -eq 0 ] && return 0
		fi
		_wait_now _wf_now
		[ "$_wf_now" -lt "$_wf_end" ] || break
		printf -v _wf_nap '%d.%06d' $(( _wf_sleep / 1000000 )) $(( _wf_sleep % 1000000 ))
		sleep "$_wf_nap"
		_wf_sleep=$(( _wf_sleep * 2 ))
		[ "$_wf_sleep" -gt "$_wf_step_us" ] && _wf_sleep=$_wf_step_us
	done
	printf -v WAIT_FOR_WAITED '%d.%d s (limit %s s%s)' $(( (_wf_now - _wf_start) / 1000000 )) \
		$(( (_wf_now - _wf_start) % 1000000 / 100000 )) "$_wf_limit" \
		"${_WAIT_WHY:+ x$_WAIT_SCALE: $_WAIT_WHY}"
	[ -n "$_wf_quiet" ] || echo "wait_for: gave up waiting for $_wf_what after $WAIT_FOR_WAITED" >&2
	return 1
}
