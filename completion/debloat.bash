# bash completion for debloat(1): installed as
# PREFIX/share/bash-completion/completions/debloat; or `source` this file.
#
# The commands and each command's options are read from the program itself
# (`debloat --help`, `debloat CMD --help`), so they never drift from its table;
# interface names come from /sys/class/net, test names from debloat-test(1), result
# files (plot, compare, --from, -o) from the file system.

# The commands listed under "Commands:" in debloat --help.
_debloat_commands()
{
	"$1" --help 2>/dev/null | sed -nE '/^Commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p'
}

# CMD's options; with "value", only those that take a value (-o, --output FILE).
_debloat_options()
{
	local help
	# shellcheck disable=SC2086 # "test rpm" is two words
	help=$("$1" $2 --help 2>/dev/null) || return 0
	if [ "${3:-}" = value ]; then
		sed -nE 's/^ +(-[a-zA-Z0-9]), (--[a-z][a-z0-9-]*) [A-Z].*/\1\n\2/p; s/^ +(--[a-z][a-z0-9-]*) [A-Z].*/\1/p' <<<"$help"
	else
		sed -nE 's/^ +(-[a-zA-Z0-9]), (--[a-z][a-z0-9-]*)( .*|$)/\2/p; s/^ +(--[a-z][a-z0-9-]*)( .*|$)/\1/p; s/^ +(-[46]), (-[46])( .*|$)/\1\n\2/p' <<<"$help"
	fi
}

_debloat_interfaces()
{
	local d
	for d in /sys/class/net/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

# `debloat lab`: 0 when it completed the word, 1 to let the generic code do it.
_debloat_lab()
{
	local prog=$1 i sub='' dashdash=0
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			dashdash=$i
			break
		fi
	done
	if [ "$dashdash" -gt 0 ]; then
		# The first word after "--" is a program, the rest its arguments (files).
		if [ "$COMP_CWORD" -eq $((dashdash + 1)) ]; then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null
		fi
		return 0
	fi
	case "$prev" in
	-p | --profile)
		mapfile -t COMPREPLY < <(compgen -W \
			"$("$prog" lab profiles 2>/dev/null | sed -nE 's/^([a-z0-9][^ ]*) .*/\1/p')" -- "$cur")
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.conf' -- "$cur")
		return 0
		;;
	-s | --set)
		mapfile -t COMPREPLY < <(compgen -W \
			"$("$prog" lab show 2>/dev/null | sed -nE 's/^([a-z_0-9]+) = .*/\1=/p')" -- "$cur")
		compopt -o nospace 2>/dev/null
		return 0
		;;
	-S | --snapshot | -b | --board)
		# The built-in boards' snapshots (lab boards), and for --snapshot files.
		mapfile -t COMPREPLY < <(compgen -W \
			"$("$prog" lab boards 2>/dev/null | sed -nE 's/^([a-z0-9][a-z0-9-]*) .*/\1/p' | grep -v '^NAME$')" -- "$cur")
		if [ "$prev" = -S ] || [ "$prev" = --snapshot ]; then
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.json' -- "$cur")
			compopt -o filenames 2>/dev/null
		fi
		return 0
		;;
	-t | --telemetry | -J | --json-summary)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0
		;;
	esac
	[[ "$cur" == -* ]] && return 1
	# The subcommand, or (without "--") the start of a command line.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case "${COMP_WORDS[i]}" in
		profiles | boards | show | compare | seed) sub=${COMP_WORDS[i]} ;;
		esac
	done
	case "$sub" in
	compare)
		mapfile -t COMPREPLY < <(compgen -W \
			"$("$prog" lab profiles 2>/dev/null | sed -nE 's/^([a-z0-9][^ ]*) .*/\1/p')" -- "$cur")
		;;
	"")
		if [ "$prev" = lab ]; then
			mapfile -t COMPREPLY < <(compgen -W "profiles boards show compare seed" -- "$cur")
		fi
		;;
	esac
	return 0
}

_debloat()
{
	local cur prev prog cmd i word operands=0
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	prog=${COMP_WORDS[0]}

	# The command: the first word after the program that is not an option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [ -z "${cmd:-}" ]; then
			[[ "$word" == -* ]] || cmd=$word
		fi
	done
	if [ -z "${cmd:-}" ]; then
		if [[ "$cur" == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_debloat_commands "$prog")" -- "$cur")
		fi
		return 0
	fi

	# test rpm has options of its own (cmd-test-rpm.c).
	local optcmd=$cmd
	if [ "$cmd" = test ]; then
		for ((i = 1; i < COMP_CWORD; i++)); do
			[ "${COMP_WORDS[i]}" = rpm ] && optcmd="test rpm"
		done
	fi

	# lab: after "--" comes a command line of its own; and its options' values.
	if [ "$cmd" = lab ]; then
		_debloat_lab "$prog" && return 0
	fi

	# The value of an option that takes one.
	if [[ "$prev" == -* ]] && _debloat_options "$prog" "$optcmd" value | grep -qxF -- "$prev"; then
		[ "$cmd" = plot ] && [ "$prev" = -k ] && prev=--kind # server's -k is --key-file
		case "$cmd:$prev" in # fix and undo: -s is --state-dir, -r --role
		fix:-s | undo:-s | prove:-s | exporter:-s) prev=--state-dir ;;
		exporter:-t) prev=--textfile ;;
		exporter:-l) prev=--listen ;;
		fix:-r | prove:-r) prev=--role ;;
		prove:-t) prev=--test ;;
		prove:-o | fix:-o | fix:--output) prev=--outdir ;;
		fix:-e) prev=--emit ;;
		esac
		case "$prev" in
		--state-dir | --root | --textfile)
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
			compopt -o filenames 2>/dev/null
			;;
		--role)
			mapfile -t COMPREPLY < <(compgen -W "host server" -- "$cur")
			;;
		--emit)
			mapfile -t COMPREPLY < <(compgen -W "networkd udev nm" -- "$cur")
			;;
		--test)
			mapfile -t COMPREPLY < <(compgen -W \
				"rrul rrul_be tcp_upload tcp_download tcp_nup tcp_ndown ping" -- "$cur")
			;;
		--outdir)
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
			compopt -o filenames 2>/dev/null
			;;
		-f | --from | -o | --output | -k | --key-file | --key | --cert | --flent)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null
			;;
		--kind)
			mapfile -t COMPREPLY < <(compgen -W "all latency throughput cdf box" -- "$cur")
			;;
		--listen)
			mapfile -t COMPREPLY < <(compgen -W ":19911 127.0.0.1:19911 [::1]:19911" -- "$cur")
			;;
		--local | --bind)
			local addrs
			addrs=$(ip -o addr show 2>/dev/null | awk '{ sub("/.*", "", $4); print $4 }')
			mapfile -t COMPREPLY < <(compgen -W "$addrs" -- "$cur")
			;;
		--stats-interval)
			mapfile -t COMPREPLY < <(compgen -W "0 10 60" -- "$cur")
			;;
		--cc | --allow-cc)
			local cc
			cc=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null)
			mapfile -t COMPREPLY < <(compgen -W "$cc" -- "$cur")
			;;
		esac
		return 0
	fi
	if [[ "$cur" == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_debloat_options "$prog" "$optcmd")" -- "$cur")
		return 0
	fi

	# Operands typed so far after the command (options and their values skipped).
	local values past=0
	values=$(_debloat_options "$prog" "$optcmd" value)
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [ "$past" -eq 0 ]; then
			[ "$word" = "$cmd" ] && past=1
			continue
		fi
		if [[ "$word" == -* ]]; then
			grep -qxF -- "$word" <<<"$values" && i=$((i + 1))
			continue
		fi
		operands=$((operands + 1))
	done

	case "$cmd" in
	audit | snapshot | bql | fix | undo)
		mapfile -t COMPREPLY < <(compgen -W "$(_debloat_interfaces)" -- "$cur")
		;;
	test)
		if [ "$operands" -eq 0 ]; then
			mapfile -t COMPREPLY < <(compgen -W \
				"rrul rrul_be tcp_upload tcp_download tcp_nup tcp_ndown ping rpm" -- "$cur")
		elif [ "$operands" -eq 1 ] && [ "$optcmd" = "test rpm" ]; then
			mapfile -t COMPREPLY < <(compgen -W "http:// https://" -- "$cur")
			compopt -o nospace 2>/dev/null
		elif [ "$operands" -eq 1 ]; then
			mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		fi
		;;
	plot | compare)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		;;
	rrul)
		[ "$operands" -eq 0 ] && mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		;;
	prove) # SERVER, then interfaces
		if [ "$operands" -eq 0 ]; then
			mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_debloat_interfaces)" -- "$cur")
		fi
		;;
	help)
		[ "$operands" -eq 0 ] &&
			mapfile -t COMPREPLY < <(compgen -W "$(_debloat_commands "$prog")" -- "$cur")
		;;
	esac
	return 0
}
complete -F _debloat debloat
