#!/usr/bin/env bash
# test-docs.sh - every command shown in the docs runs as shown, or at least parses.
#
# The docs (docs/howto.md, docs/boards/*.md, docs/driver-bql.md, docs/fleet.md,
# docs/rpm.md) mark their fenced code blocks by the fence's info string:
#
#	```sh         runs on any Linux machine as root, from the top of the repository:
#	              this test runs it (a block that uses the lab needs root, network
#	              namespaces and /dev/net/tun, and is skipped without them)
#	```sh board   needs a real board or a second machine: only checked
#	```sh build   builds or installs (make ...): only checked
#	```text       output, pseudo-code: not a command
#
# "Checked" means: the block is valid shell (bash -n), and every `debloat` command in
# it (also after `sudo`, as `build/debloat` or `./debloat`, and inside `lab -- sh -c
# '...'`) names a command that exists and only options that its --help lists.
#
# Running: each distinct `sh` block runs once under bash -e, in a scratch directory
# where tests/ and boards/ link to the repository's (so `boards/...` resolves), with
# `debloat` and `sudo` on PATH as shims (the build's binary; sudo runs its command
# as is, since the test is root already). Lengths are cut to keep the test short:
# `-l N` becomes -l 2 and `-d N` becomes -d 1 on lines that run debloat; a lab
# command without -l is an error in the docs (it would run for minutes).
#
# Figures: each `<!-- figure: ... -->` must be followed by a block holding a table (3
# lines or more), not a placeholder saying it is pasted "once the lab runs".
# run.sh: parallel
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
require_debloat
require_cmd python3

docs=("$TOP"/docs/howto.md "$TOP"/docs/boards/*.md "$TOP"/docs/driver-bql.md "$TOP"/docs/fleet.md
	"$TOP"/docs/rpm.md)
for f in "${docs[@]}"; do
	[ -f "$f" ] || fail "missing doc: ${f#"$TOP"/}"
done

work=$(mktemp -d)
# lib.sh's cleanup reads $? first: hand it the status set -e stopped us with.
trap 'rc=$?; set +e; rm -rf "$work"; (exit $rc); cleanup' EXIT
mkdir -p "$work/blocks" "$work/shim" "$work/cwd"
ln -s "$TOP/tests" "$work/cwd/tests"
ln -s "$TOP/boards" "$work/cwd/boards"
ln -s "$DEBLOAT" "$work/shim/debloat"
printf '#!/bin/sh\nexec "$@"\n' >"$work/shim/sudo"
chmod +x "$work/shim/sudo"

# The plan, one line per check (tab-separated):
#	syntax   ORIGIN FILE           bash -n FILE
#	opts     ORIGIN WORDS OPTS     debloat WORDS --help lists each of OPTS
#	run      ORIGIN LAB FILE       run FILE (LAB 1: it needs the lab)
#	figure   ORIGIN ok|missing
#	bad      ORIGIN WHY            the docs break a rule
python3 - "$work/blocks" "$TOP" "${docs[@]}" >"$work/plan" <<'PY'
import os, re, shlex, sys

out, top, files = sys.argv[1], sys.argv[2], sys.argv[3:]
OPERATORS = {";", "&&", "||", "|", "&", "(", ")"}
n = 0
seen_runs = set()


def emit(*fields):
    print("\t".join(str(f) for f in fields))


def is_debloat(word):
    return os.path.basename(word) == "debloat"


def split(line):
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
    lex.whitespace_split = True
    lex.commenters = "#"
    return list(lex)


def check_invocation(origin, args):
    """args: the words after `debloat`, up to an operator."""
    if not args or args[0].startswith("-"):
        emit("opts", origin, "", " ".join(a.split("=")[0] for a in args if a.startswith("-")))
        return
    words = [args[0]]
    rest = args[1:]
    if args[0] == "lab" and rest and rest[0] in ("compare", "seed", "profiles", "show"):
        words.append(rest[0])
        rest = rest[1:]
    if args[0] == "test" and rest and rest[0] == "rpm":  # its own options and --help
        words.append(rest[0])
        rest = rest[1:]
    opts, inner = [], None
    for i, a in enumerate(rest):
        if a == "--" and args[0] == "lab":
            inner = rest[i + 1:]
            break
        if a.startswith("-") and a != "-":
            opts.append(a.split("=")[0])
    emit("opts", origin, " ".join(words), " ".join(opts))
    if words == ["lab"] or words[:1] == ["lab"] and words[1:] in (["compare"], ["seed"]):
        if not any(o in ("-l", "--length") for o in opts) and words != ["lab"]:
            emit("bad", origin, "a lab %s command without -l runs for minutes" % words[-1])
    if inner:
        if len(inner) >= 3 and inner[0] in ("sh", "bash") and inner[1] == "-c":
            check_words(origin, split(inner[2]))
        else:
            check_words(origin, inner)


def check_words(origin, words):
    i = 0
    while i < len(words):
        if is_debloat(words[i]):
            j = i + 1
            while j < len(words) and words[j] not in OPERATORS:
                j += 1
            check_invocation(origin, words[i + 1:j])
            i = j
        else:
            i += 1


def shorten(line):
    if "debloat" not in line:
        return line
    line = re.sub(r"(?<=\s)(-l|--length)(\s+|=)[0-9.]+", "-l 2", line)
    return re.sub(r"(?<=\s)(-d|--delay)(\s+|=)[0-9.]+", "-d 1", line)


for path in files:
    rel = os.path.relpath(path, top)
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    figure_at = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!-- figure:"):
            figure_at = i + 1
        m = re.match(r"^```(.*)$", line)
        if not m:
            i += 1
            continue
        info = m.group(1).strip()
        start = i + 1
        j = start
        while j < len(lines) and lines[j] != "```":
            j += 1
        body = lines[start:j]
        origin = "%s:%d" % (rel, start)
        if figure_at is not None:
            text = "\n".join(body)
            filled = "once the lab runs" not in text and len([l for l in body if l.strip()]) >= 3
            emit("figure", "%s:%d" % (rel, figure_at), "ok" if filled else "missing")
            figure_at = None
        i = j + 1
        kind = info.split()
        if not kind or kind[0] != "sh":
            continue
        n += 1
        src = os.path.join(out, "%03d.sh" % n)
        with open(src, "w") as f:
            f.write("\n".join(body) + "\n")
        emit("syntax", origin, src)
        # Logical lines: backslash continuations joined.
        logical, cur = [], ""
        for l in body:
            if l.endswith("\\"):
                cur += l[:-1] + " "
                continue
            logical.append(cur + l)
            cur = ""
        if cur:
            logical.append(cur)
        for k, l in enumerate(logical):
            try:
                check_words(origin, split(l))
            except ValueError as e:
                emit("bad", origin, "cannot split %r: %s" % (l, e))
        if kind[1:]:
            if kind[1:] not in (["board"], ["build"]):
                emit("bad", origin, "unknown fence info %r" % info)
            continue
        script = "\n".join(shorten(l).replace("build/debloat", "debloat") for l in body) + "\n"
        if script in seen_runs:
            continue
        seen_runs.add(script)
        run = os.path.join(out, "run-%03d.sh" % n)
        with open(run, "w") as f:
            f.write(script)
        emit("run", origin, 1 if re.search(r"\bdebloat\s+lab\b", script) else 0, run)
PY

# Can this machine run the lab?
lab_ok=0
lab_why=
if [ "$(id -u)" -ne 0 ]; then
	lab_why="needs root"
elif [ ! -c /dev/net/tun ]; then
	lab_why="needs /dev/net/tun"
elif ! ip netns add "dbt-docs-probe-$$" 2>/dev/null; then
	lab_why="cannot create network namespaces"
else
	ip netns del "dbt-docs-probe-$$"
	lab_ok=1
fi

# HELP: `debloat WORDS --help`, asked once per WORDS.
declare -A helps
help_of() {
	local key="$1"
	if [ -z "${helps[$key]+x}" ]; then
		# shellcheck disable=SC2086 # the words are split on purpose
		helps[$key]=$("$DEBLOAT" $key --help 2>/dev/null </dev/null) || helps[$key]="(no help)"
	fi
	HELP=${helps[$key]}
}

runs=0
skipped_runs=0
while IFS=$'\t' read -r what origin a b; do
	case "$what" in
	syntax)
		if err=$(bash -n "$a" 2>&1); then
			pass "$origin: valid shell"
		else
			fail "$origin: not valid shell: $err"
		fi
		;;
	opts)
		if [ -z "$a" ]; then
			fail "$origin: debloat without a command"
			continue
		fi
		help_of "$a"
		help=$HELP
		if [ "$help" = "(no help)" ] || [[ "$help" != Usage:* ]]; then
			fail "$origin: \`debloat $a --help\` does not work"
			continue
		fi
		ok=1
		for opt in $b; do
			if ! grep -qE -- "(^|[ ,[])${opt}([ ,=]|\]|$)" <<<"$help"; then
				fail "$origin: debloat $a has no option $opt"
				ok=0
			fi
		done
		[ "$ok" -eq 1 ] && pass "$origin: debloat $a${b:+ $b}"
		;;
	run)
		if [ "$a" -eq 1 ] && [ "$lab_ok" -eq 0 ]; then
			skipped_runs=$((skipped_runs + 1))
			echo "SKIP $origin: the lab $lab_why"
			continue
		fi
		runs=$((runs + 1))
		rc=0
		out=$(cd "$work/cwd" && PATH="$work/shim:$PATH" timeout 300 bash -e "$b" 2>&1 </dev/null) ||
			rc=$?
		if [ "$rc" -eq 0 ]; then
			pass "$origin: runs ($(wc -l <<<"$out") lines of output)"
		else
			fail "$origin: exit $rc running:"$'\n'"$(sed 's/^/    /' "$b")"$'\n'"$(tail -n 15 <<<"$out" | sed 's/^/    | /')"
		fi
		;;
	figure)
		if [ "$a" = ok ]; then
			pass "$origin: figure filled in"
		else
			fail "$origin: figure still a placeholder"
		fi
		;;
	bad)
		fail "$origin: $a"
		;;
	esac
done <"$work/plan"

[ "$runs" -gt 0 ] || fail "no runnable block found"
[ "$skipped_runs" -eq 0 ] || echo "SKIP: $skipped_runs lab blocks not run ($lab_why)"
finish
