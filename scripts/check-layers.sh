#!/usr/bin/env bash
# check-layers.sh [SRC] - the layer rule of src/ (docs/design/layout.md), checked:
#  - a file in a folder includes only from its own folder and the folders below it (the
#    table below), and every folder from the library's public headers (debloat/*.h);
#  - src/ itself: a command (cmd-*.c) may include from every folder; debloat.c, the
#    subcommand table, only from base/ (the table's type); no other .c file lives there;
#  - no circle of includes anywhere in src/: a file's module is its path less the
#    extension (fix/knob.c and fix/knob.h are fix/knob); a module depends on the
#    modules whose headers its .c file includes, directly or through other headers;
#    and no module may depend on itself through others;
#  - no two files under src/ share a name, nor one of them a name of libdebloat's (lib/
#    and include/debloat/ beside src/, when they are there).
# Prints one line per breach ("FILE:LINE: FOLDER may not include INCLUDE", "include
# circle: A B ...") and exits 1 when there is any, 0 otherwise. SRC defaults to the
# src/ beside this script.
set -euo pipefail
src=${1:-$(dirname "$0")/../src}
cd "$src"

# folder: the folders it may include from (itself always); "." is src/ itself
declare -A may=(
	[base]=""
	[qkind]="base"
	[http]="base"
	[host]="base qkind"
	[audit]="base qkind host"
	[fix]="base qkind host audit"
	[meter]="base qkind host http"
	[plot]="base meter"
	[exporter]="base qkind host audit fix"
	[prove]="base qkind host audit fix meter"
	[lab]="base qkind host audit fix meter plot"
)
rules=""
for k in "${!may[@]}"; do
	rules+="$k=${may[$k]};"
done

files=$(find . -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort)

# Every quoted include as FILE<TAB>LINE<TAB>INCLUDE (grep -H: FILE:LINE:TEXT).
includes() {
	# shellcheck disable=SC2086
	grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' $files /dev/null |
		sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]+)".*/\1\t\2\t\3/'
}

bad=0
report=$(includes | awk -F'\t' -v rules="$rules" -v list="$files" '
BEGIN {
	n = split(rules, r, ";")
	for (i = 1; i <= n; i++) {
		if (r[i] == "") continue
		split(r[i], kv, "=")
		known[kv[1]] = 1
		m = split(kv[2], tos, " ")
		for (j = 1; j <= m; j++) ok[kv[1], tos[j]] = 1
	}
	m = split(list, fl, "\n")
	for (i = 1; i <= m; i++) exists[fl[i]] = 1
}
function dir_of(f) { return f ~ /\// ? substr(f, 1, match(f, /\/[^\/]*$/) - 1) : "." }
function top_of(d) { sub(/\/.*/, "", d); return d }
function module(f) { sub(/\.[ch]$/, "", f); return f }
{
	f = $1; line = $2; inc = $3
	dir = dir_of(f); top = top_of(dir)
	if (inc ~ /^debloat\//) next
	# Where the include resolves: beside the file, else from src/.
	if (inc !~ /\// && exists[(dir == "." ? "" : dir "/") inc]) {
		target = (dir == "." ? "" : dir "/") inc; to = top
	} else if (inc !~ /\//) {
		target = inc; to = "."
	} else {
		target = inc; to = top_of(inc)
	}
	if (exists[target]) {
		nout[f]++
		out[f, nout[f]] = target
	}
	if (dir == ".") {
		if (f == "debloat.c" && to != "base")
			print "bad\t" f ":" line ": debloat.c (the subcommand table) may include only base/, not " inc
		next
	}
	if (!(top in known) || to == top || ok[top, to]) next
	print "bad\t" f ":" line ": " top " may not include " inc
}
END {
	# A .c file depends on every header it reaches, directly or through headers.
	for (i = 1; i <= m; i++) {
		f = fl[i]
		if (f !~ /\.c$/) continue
		delete seen
		nq = 0
		for (j = 1; j <= nout[f]; j++) q[++nq] = out[f, j]
		for (k = 1; k <= nq; k++) {
			h = q[k]
			if (h in seen) continue
			seen[h] = 1
			if (module(h) != module(f))
				print "edge\t" module(f) "\t" module(h)
			for (j = 1; j <= nout[h]; j++) q[++nq] = out[h, j]
		}
	}
}')

while IFS= read -r f; do
	dir=${f%/*}
	[ "$dir" = "$f" ] && dir=.
	if [ "$dir" = . ]; then
		case $f in
		debloat.c | cmd-*.c | *.h) ;;
		*)
			echo "$f: src/ itself holds debloat.c and the commands (cmd-*.c), no other .c file"
			bad=1
			;;
		esac
		continue
	fi
	top=${dir%%/*}
	if [ -z "${may[$top]+set}" ]; then
		echo "$f: folder $top is in no layer (add it to scripts/check-layers.sh and docs/design/layout.md)"
		bad=1
	fi
done <<<"$files"

if grep -q '^bad' <<<"$report"; then
	grep '^bad' <<<"$report" | cut -f2-
	bad=1
fi

# Circles: tsort names the modules of each loop it finds.
loops=$(grep '^edge' <<<"$report" | cut -f2- | tr '\t' ' ' | tsort 2>&1 >/dev/null |
	sed -n 's/^tsort: -: input contains a loop:$/LOOP/p; s/^tsort: \([^-].*\)$/\1/p' || true)
if [ -n "$loops" ]; then
	awk '/^LOOP$/ { if (s != "") print "include circle: " s; s = ""; next }
	     { s = s == "" ? $0 : s " " $0 }
	     END { if (s != "") print "include circle: " s }' <<<"$loops"
	bad=1
fi

# libdebloat's files, named from src/'s parent: "../lib/qdisc.c"
lib=$(find ../lib ../include/debloat -name '*.[ch]' 2>/dev/null | LC_ALL=C sort || true)
names=$(printf '%s\n%s\n' "$files" "$lib" | sed '/^$/d')
dups=$(awk -F/ '{ print $NF }' <<<"$names" | sort | uniq -d)
for d in $dups; do
	echo "two files named $d: $(grep -E "(^|/)$d\$" <<<"$names" | tr '\n' ' ')"
	bad=1
done
exit $bad
