#!/usr/bin/env python3
# harness-parse.py - what the benchmark harnesses read from a dbench log,
# reimplemented from their documented behaviour, for tests/cli/compat.bats.
# No harness code is copied; each parser does the steps its harness applies:
#
#   mmtests   shellpack dbench-bench / parse-results (gormanm/mmtests):
#             loadfile  grep "completed in" | sort -n -k8; field 4 is the
#                       pass time (ms), field 8 / 1000 the time (s)
#             tput      the lines without "completed in" that hold "execute";
#                       field 3 is MB/sec, field 6 the second
#             op        grep -A 99 Operation of those lines, then drop the
#                       lines holding "-----", "Throughput" or "Operation"
#                       and the empty ones; every line left is a row
#                       "op-" field 1, its value field 3
#             calibrate grep "^@E@" | cut -d @ -f 4 | head -n 1 (the run
#                       with --machine-readable --show-execute-time that
#                       sized mmtests' runs, 2016-2025)
#   lkp       intel/lkp-tests programs/dbench/parse: every line that
#             starts with "Throughpu" (the regex /^Throughput*/) is split
#             at "="; of the part before it, whitespace field 2 is the
#             throughput, 4 the clients, 6 the procs; the first field after
#             "=" is max_latency; throughput and max_latency are averaged
#             over the lines, clients and procs are the last line's.  A
#             line without "=" fails the parser (Ruby: nil.split).
#   pts       phoronix-test-suite pts/dbench results-definition.xml:
#             OutputTemplate "Throughput #_RESULT_# MB/sec ...": the search
#             key is the text before the result, "Throughput"; the line of
#             its last occurrence in the log, with "(", ")" and tabs made
#             spaces and "=" spaced out, split at spaces: field 2 must be a
#             number.
#
# Usage: harness-parse.py HARNESS [PART] < LOG; prints JSON, exit 1 when
# the harness would fail or find nothing.
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

import json
import re
import sys

NUMBER = re.compile(r'^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?')


def ruby_to_f(s):
    m = NUMBER.match(s)
    return float(m.group(0)) if m else 0.0


def ruby_to_i(s):
    m = re.match(r'^[+-]?\d+', s)
    return int(m.group(0)) if m else 0


def fields(line):
    return line.split()


def mmtests(lines, part):
    if part == 'calibrate':
        for line in lines:
            if line.startswith('@E@'):
                f = line.split('@')
                return f[3] if len(f) > 3 else ''
        return None
    if part == 'loadfile':
        rows = [fields(l) for l in lines if 'completed in' in l]
        rows.sort(key=lambda f: ruby_to_f(f[7]) if len(f) > 7 else 0.0)
        return [{'interval': ruby_to_f(f[7]) / 1000, 'value': f[3]} for f in rows]
    remainder = [l for l in lines if 'completed in' not in l]
    if part == 'tput':
        return [{'interval': fields(l)[5] if len(fields(l)) > 5 else '',
                 'value': fields(l)[2] if len(fields(l)) > 2 else ''}
                for l in remainder if 'execute' in l]
    if part == 'op':
        keep = set()
        for i, l in enumerate(remainder):
            if 'Operation' in l:
                keep.update(range(i, min(i + 100, len(remainder))))
        rows = []
        for i in sorted(keep):
            l = remainder[i]
            if '-----' in l or l == '' or 'Throughput' in l or 'Operation' in l:
                continue
            f = fields(l)
            rows.append({'metric': 'op-' + (f[0] if f else ''),
                         'value': f[2] if len(f) > 2 else '', 'line': l})
        return rows
    raise SystemExit('mmtests: unknown part ' + part)


def lkp(lines):
    tput, maxlat, clients, procs = [], [], None, None
    for line in lines:
        if not re.match(r'^Throughpu', line):
            continue
        parts = line.split('=')
        if len(parts) < 2:
            raise SystemExit('lkp: the parser fails on a Throughput line without "=": ' + line)
        values = parts[0].split()
        tput.append(ruby_to_f(values[1] if len(values) > 1 else ''))
        clients = ruby_to_i(values[3] if len(values) > 3 else '')
        procs = ruby_to_i(values[5] if len(values) > 5 else '')
        maxlat.append(ruby_to_f(parts[1].split()[0] if parts[1].split() else ''))
    if not tput:
        return None
    return {'throughput_MB/s': round(sum(tput) / len(tput), 2),
            'max_latency': round(sum(maxlat) / len(maxlat), 2),
            'clients': clients, 'procs': procs, 'lines': len(tput)}


def pts(text):
    key = 'Throughput'
    at = text.rfind(key)
    if at < 0:
        return None
    start = text.rfind('\n', 0, at) + 1
    end = text.find('\n', at)
    line = text[start:end if end >= 0 else len(text)]
    for ch in '()\t':
        line = line.replace(ch, ' ')
    parts = ' '.join(line.replace('=', ' = ').split()).split(' ')
    value = parts[1] if len(parts) > 1 else ''
    return float(value) if NUMBER.fullmatch(value) else None


def main():
    if len(sys.argv) < 2:
        raise SystemExit('usage: harness-parse.py mmtests PART | lkp | pts  < LOG')
    text = sys.stdin.read()
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    harness = sys.argv[1]
    if harness == 'mmtests':
        result = mmtests(lines, sys.argv[2])
    elif harness == 'lkp':
        result = lkp(lines)
    elif harness == 'pts':
        result = pts(text)
    else:
        raise SystemExit('unknown harness ' + harness)
    print(json.dumps(result))
    return 0 if result not in (None, [], '') else 1


if __name__ == '__main__':
    sys.exit(main())
