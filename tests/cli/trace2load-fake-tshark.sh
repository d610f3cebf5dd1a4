#!/bin/sh
# trace2load-fake-tshark.sh - stands in for tshark in tests/cli/trace2load.bats.
#
# dbench-trace2load --tshark runs this instead of tshark, so the tests can
# feed the converter fixed JSON (tests/cli/trace2load-data/*.json), broken
# JSON, error messages and failures without a capture.  Everything comes
# from the environment:
#   T2L_FAKE_ARGS    write the arguments here, one a line
#   T2L_FAKE_STDERR  print this on stderr
#   T2L_FAKE_JSON    print this file on stdout
#   T2L_FAKE_CMD     or run this command (its output on stdout)
#   T2L_FAKE_KILL    then kill itself with this signal
#   T2L_FAKE_STATUS  exit status (default 0)
#
# The first pass, which only reads the portmapper's replies (-T fields),
# gets nothing.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
case " $* " in *" -T fields "*) exit 0 ;; esac
[ -n "$T2L_FAKE_ARGS" ] && printf '%s\n' "$@" >"$T2L_FAKE_ARGS"
[ -n "$T2L_FAKE_STDERR" ] && printf '%s\n' "$T2L_FAKE_STDERR" >&2
[ -n "$T2L_FAKE_JSON" ] && cat "$T2L_FAKE_JSON"
[ -n "$T2L_FAKE_CMD" ] && eval "$T2L_FAKE_CMD"
[ -n "$T2L_FAKE_KILL" ] && kill -"$T2L_FAKE_KILL" $$
exit "${T2L_FAKE_STATUS:-0}"
