#!/usr/bin/env bash
# run.sh - every benchmark of a build: tables for people, or with --json one
# {"results": [{"name", "value", "unit"}, ...]} document for scripts.
#   bench/run.sh [BUILD_DIR] [--json]
set -euo pipefail
BUILD=build
json=
for a in "$@"; do
	case "$a" in
	--json) json=--json ;;
	-h | --help)
		echo "usage: bench/run.sh [BUILD_DIR] [--json]"
		exit 0
		;;
	*) BUILD=$a ;;
	esac
done
[ -x "$BUILD/bench/bench-qdisc" ] || { echo "bench/run.sh: build first (make)" >&2; exit 1; }
"$BUILD/bench/bench-qdisc" $json
