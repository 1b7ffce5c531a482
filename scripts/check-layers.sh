#!/usr/bin/env bash
# check-layers.sh [SRC] - the layer rule of src/ (docs/design/layout.md), checked:
#  - a file includes only from its own folder and the folders below it (the table
#    below); src/ itself (the commands) may include from every folder, and every
#    folder from the library's public headers (debloat/*.h);
#  - no two files under src/ share a name.
# Prints one line per breach ("FILE:LINE: FOLDER may not include INCLUDE") and exits 1
# when there is any, 0 otherwise. SRC defaults to the src/ beside this script.
set -euo pipefail
src=${1:-$(dirname "$0")/../src}
cd "$src"

# folder: the folders it may include from (itself always)
declare -A may=(
	[base]=""
	[qdisc]="base"
	[host]="base qdisc"
	[audit]="base qdisc host"
	[fix]="base qdisc host audit"
	[meter]="base qdisc host"
	[plot]="base meter"
	[exporter]="base qdisc host audit fix"
	[prove]="base qdisc host audit fix meter"
	[lab]="base qdisc host audit fix meter plot"
)
bad=0
while IFS= read -r -d '' f; do
	dir=$(dirname "${f#./}")
	[ "$dir" = . ] && continue # the commands: anything below
	top=${dir%%/*}
	if [ -z "${may[$top]+set}" ]; then
		echo "$f: folder $top is in no layer (add it to scripts/check-layers.sh and docs/design/layout.md)"
		bad=1
		continue
	fi
	while IFS=: read -r line inc; do
		case $inc in debloat/*) continue ;; esac
		if [[ $inc != */* ]]; then
			[ -e "$dir/$inc" ] && continue # its own folder
			to=.                           # src/ itself: the commands
		else
			to=${inc%%/*}
		fi
		[ "$to" = "$top" ] && continue
		case " ${may[$top]} " in *" $to "*) continue ;; esac
		echo "${f#./}:$line: $top may not include $inc"
		bad=1
	done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$f" |
		sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find . -name '*.[ch]' -print0)

dups=$(find . -name '*.[ch]' -printf '%f\n' | sort | uniq -d)
for d in $dups; do
	echo "two files named $d: $(find . -name "$d" | sed 's|^\./||' | tr '\n' ' ')"
	bad=1
done
exit $bad
