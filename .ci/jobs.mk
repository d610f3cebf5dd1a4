# .ci/jobs.mk - the phases of .ci/run after the build, as one make so that
# they share one jobserver: `make -f .ci/jobs.mk -jN` runs at most N jobs
# (a test file, a compile, a fuzz target) at once across every phase, and a
# slot one phase leaves free (the first pass's last files, waiting on their
# servers) is taken by another's next job, instead of each phase having
# its own -j and the sanitizer pass's command-line tests waiting for the
# first pass to end.
#
#	asan-build  build.sh sanitize-build, first and alone
#	first       the first pass: build.sh check (streamed to stdout), after
#	            asan-build
#	asan-unit   build.sh sanitize-unit, after asan-build
#	asan-cli    build.sh sanitize-cli, after asan-build, beside asan-unit
#	            (both are make check in build-asan, on disjoint TESTS with
#	            their own TEST_SUITE_LOG; asan-build built everything)
#	fuzz        tests/fuzz/run.sh, each target one job, one after another,
#	            after asan-build
#
# The sanitizer build and then its tests are the critical path (its test
# files take longest).  So the build has the CPUs to itself (about 2 min,
# instead of 6 beside the first pass's tests, which then held every slot
# when it ended), and the sanitizer pass's files start with the first
# pass's, sharing the slots from the start.
#
# CI_WORK (from the environment) is .ci/run's temp dir: each phase writes
# its log to $(CI_WORK)/NAME.log (but first), "START END" (seconds) to
# $(CI_WORK)/NAME.times and passed or failed to $(CI_WORK)/NAME.result.
# The recipes are `+` lines: build.sh's makes join the jobserver (build.sh
# gives them no -j of their own under one).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

ifeq ($(CI_WORK),)
$(error CI_WORK is not set: run .ci/run)
endif

# run NAME COMMAND: COMMAND's times and result, as above
run = t=$$(date +%s); if $(2); then r=passed; else r=failed; fi; \
	echo "$$t $$(date +%s)" >$(CI_WORK)/$(1).times; echo $$r >$(CI_WORK)/$(1).result

FUZZ_TARGETS = frame:20 loadfile:25 loadfile_gz:20 trace_json:20

.PHONY: all first asan-build asan-unit asan-cli fuzz
all: asan-build asan-cli asan-unit first fuzz

first: asan-build
	+@$(call run,first,./build.sh check)

asan-build:
	+@$(call run,asan-build,./build.sh sanitize-build >$(CI_WORK)/asan-build.log 2>&1)

asan-unit: asan-build
	+@if [ "$$(cat $(CI_WORK)/asan-build.result)" = passed ]; then \
		$(call run,asan-unit,./build.sh sanitize-unit >$(CI_WORK)/asan-unit.log 2>&1); \
	else echo failed >$(CI_WORK)/asan-unit.result; fi

asan-cli: asan-build
	+@if [ "$$(cat $(CI_WORK)/asan-build.result)" = passed ]; then \
		$(call run,asan-cli,./build.sh sanitize-cli >$(CI_WORK)/asan-cli.log 2>&1); \
	else echo failed >$(CI_WORK)/asan-cli.result; fi

# The libFuzzer targets, each for a bounded time and each one test: the
# tbench frame parser, the loadfile compiler on text and on files (gzip),
# dbench-trace2load's JSON reader.  85 s in all.  A crash, a sanitizer
# report or an input that runs over 10 s fails its test.
fuzz: asan-build
	@t=$$(date +%s); for target in $(FUZZ_TARGETS); do \
		name=$${target%%:*}; \
		if BUILDDIR=build FUZZ_TIME=$${target#*:} tests/fuzz/run.sh "$$name" \
			>$(CI_WORK)/fuzz-$$name.log 2>&1; then r=passed; else r=failed; fi; \
		echo $$r >$(CI_WORK)/fuzz-$$name.result; \
	done; echo "$$t $$(date +%s)" >$(CI_WORK)/fuzz.times
