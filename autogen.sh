#!/bin/sh
# Regenerate the build system (configure, Makefile.in) from git sources.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf --install --force
