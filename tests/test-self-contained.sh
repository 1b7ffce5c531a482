#!/usr/bin/env bash
# test-self-contained.sh - nothing in the repository points outside it: no comment, doc,
# fixture, script or corpus file cites an issue number of the tracker the project was
# planned in, or a path on the machine it was written on (/work/..., ../shared). Reads
# the files git tracks (or all files when this is not a git checkout).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
	list() { git ls-files -z; }
else
	list() { find . -type f ! -path './build*' -print0; }
fi
self=tests/test-self-contained.sh

hits=$(list | xargs -0 grep -nIiE "\bissues? #?[0-9]+\b|\bissue [0-9]+'s\b" -- 2>/dev/null | grep -v "^$self:" | head -20 || true)
if [ -z "$hits" ]; then pass "no file cites an issue number"; else fail "files citing issue numbers: $hits"; fi

hits=$(list | xargs -0 grep -nIE "/work/(shared|wt|main)|\.\./shared/" -- 2>/dev/null | grep -v "^$self:" | head -20 || true)
if [ -z "$hits" ]; then pass "no file names a path outside the repository"; else fail "files naming paths outside the repository: $hits"; fi

finish
