#!/usr/bin/env bash
# test-design-refs.sh - every design note the repository cites is in the repository: a
# file under src, include, tests, profiles, fuzz/corpus, bench, scripts, docs, systemd,
# man (or README.md) that names docs/design/NAME.md finds docs/design/NAME.md there, and
# none names a directory outside the checkout (shared/reference, ../shared). Reads the
# files git tracks (or all files when this is not a git checkout).
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP"
dirs=(src include tests profiles fuzz/corpus bench scripts docs systemd man README.md)
if git rev-parse --git-dir >/dev/null 2>&1; then
	list() { git ls-files -z -- "${dirs[@]}"; }
else
	list() { find "${dirs[@]}" -type f -print0 2>/dev/null; }
fi
# The two checks name the forbidden paths themselves.
self=tests/test-design-refs.sh
other=tests/test-self-contained.sh

# Every docs/design/NAME.md named anywhere, once, with the first place naming it.
cited=$(list | xargs -0 env LC_ALL=C grep -noaE 'docs/design/[A-Za-z0-9._-]+\.md' -- 2>/dev/null |
	grep -v "^$self:" | sort -t: -k3,3 -u || true)
n=0
missing=""
while IFS=: read -r file line ref; do
	[ -n "$ref" ] || continue
	n=$((n + 1))
	[ -f "$ref" ] || missing+=" $ref ($file:$line)"
done <<<"$cited"
if [ "$n" -gt 0 ]; then
	pass "the repository cites $n design notes under docs/design/"
else
	fail "no file cites a design note under docs/design/ (is this the right tree?)"
fi
if [ -z "$missing" ]; then
	pass "every cited docs/design/NAME.md exists"
else
	fail "cited design notes that are not in the repository:$missing"
fi

for note in emulation measurement bql-and-drivers host-tuning; do
	if [ -s "docs/design/$note.md" ] && grep -q '^## 1\. ' "docs/design/$note.md"; then
		pass "docs/design/$note.md is there, with numbered sections"
	else
		fail "docs/design/$note.md is missing or has no '## 1. ' section"
	fi
done

hits=$(list | xargs -0 env LC_ALL=C grep -naE 'shared/reference|\.\./shared' -- 2>/dev/null |
	grep -vE "^($self|$other):" | cut -c1-200 | head -20 || true)
if [ -z "$hits" ]; then
	pass "no file names shared/reference or ../shared"
else
	fail "files naming a path outside the repository: $hits"
fi

# Any file of the repository named in a comment, fixture or doc exists. Not counted:
# the kernel source tree's own files (include/linux, include/net, scripts/mod),
# placeholders (NAME, x.conf) and install paths (systemd/system/ under /etc).
repo_paths='\b(src|tests|docs|include|fuzz|bench|scripts|profiles|man|systemd|cross|completion)/[A-Za-z0-9_./-]+\.(c|h|sh|md|conf|json|scd|service|hex|txt|bash)\b'
gone=$(list | xargs -0 env LC_ALL=C grep -ohaE "$repo_paths" -- 2>/dev/null | sort -u |
	grep -vE '^(include/(linux|net)|scripts/mod)/|NAME|/x\.conf$|^systemd/system/' |
	while read -r f; do [ -e "$f" ] || echo "$f"; done | head -20)
if [ -z "$gone" ]; then
	pass "every file of the repository that is named somewhere exists"
else
	fail "named but not in the repository: $(tr '\n' ' ' <<<"$gone")"
fi

finish
