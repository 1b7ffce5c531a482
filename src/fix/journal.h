/* SPDX-License-Identifier: MIT */
/*
 * journal.h - what `debloat fix` changed, on disk, so `debloat undo` can restore it
 * exactly, even after a crash or a kill -9 at any moment.
 *
 * The file (STATE_DIR/journal, default /var/lib/debloat/journal) is small versioned
 * text, one record per line:
 *
 *	debloat-journal 1
 *	created 1718000000
 *	pid 4242
 *	step 1 applied root-qdisc eth0 - - "default" "fq_codel limit 800 ecn" ""
 *	step 2 planned offload eth0 - tx-tcp-segmentation "on" "off" ""
 *	step 3 planned sysctl - - net.ipv4.tcp_ecn "2" "1" ""
 *	end
 *	begin 2
 *	done 2
 *
 * `step ID STATE KIND IFNAME QUEUE NAME BEFORE AFTER NOTE`: KIND is knob_kind_name(),
 * "-" marks an empty IFNAME/QUEUE/NAME, BEFORE/AFTER/NOTE are double-quoted with C
 * escapes (\" \\ \n \t \xHH). STATE is planned, begun or applied. `created` is the
 * Unix time of the first fix, `pid` the fix that last wrote the file (a `--try` run
 * waits for confirmation under it). Lines starting with '#' are comments.
 *
 * Durability. Everything up to `end` is written at once, atomically (a temporary
 * file, fsync, rename, fsync of the directory), BEFORE the first change; a reader
 * sees the old file or the new one, never a mix. Then each step appends `begin ID`
 * (fsynced) before its value is written and `done ID` after. A crash leaves either no
 * `begin` for a step (never touched: undo skips it), a `begin` (maybe touched: undo
 * restores it, which is harmless if it was not), or `done`. Appends are single
 * write()s of one short line; a last line without its newline (torn by power loss)
 * after `end` is ignored, which is safe because the `begin` before any write was
 * already durable.
 *
 * Parsing is strict and loses nothing: any malformed line rejects the whole journal
 * with "FILE:LINE: what" and the file is left where it is (a bad journal is never
 * deleted; undo refuses to guess). Limits: JOURNAL_MAX_BYTES, JOURNAL_MAX_LINE,
 * JOURNAL_MAX_STEPS.
 *
 * The same line syntax (tokens, quoting, the four knob fields) serves persist.h's
 * files: journal_split_line, journal_quote and journal_knob_parse/format.
 */
#ifndef DEBLOAT_FIX_JOURNAL_H
#define DEBLOAT_FIX_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fix/knob.h"

#define JOURNAL_VERSION	  1
#define JOURNAL_MAX_BYTES (4u << 20)
#define JOURNAL_MAX_LINE  8192
#define JOURNAL_MAX_STEPS 4096
#define JOURNAL_NOTE_MAX  256

enum journal_state {
	JOURNAL_PLANNED, /* written down, not touched yet */
	JOURNAL_BEGUN,	 /* its write may have happened */
	JOURNAL_APPLIED, /* its write happened */
};

struct journal_step {
	unsigned id; /* >= 1; stable when the journal is extended */
	enum journal_state state;
	struct knob knob;
	char before[KNOB_VALUE_MAX]; /* what undo writes back */
	char after[KNOB_VALUE_MAX];  /* what fix wrote */
	char note[JOURNAL_NOTE_MAX]; /* e.g. "replaced htb 1: (--force)" */
};

struct journal {
	long long created; /* Unix seconds */
	long pid;
	struct journal_step *steps; /* in apply order */
	size_t n, cap;
};

void journal_init(struct journal *j);
void journal_free(struct journal *j);
/* A deep copy. -ENOMEM; dst is then empty. */
int journal_copy(struct journal *dst, const struct journal *src);

/*
 * Parse a journal. file names it in messages ("FILE:LINE: what" in err). -EINVAL
 * (malformed), -EPROTONOSUPPORT (another version), -EFBIG, -ENOMEM; *out is then empty.
 */
int journal_parse(const char *buf, size_t len, const char *file, struct journal *out, char *err,
		  size_t errlen);
/* The text of j (states folded in, no records). *out is malloc'ed. -ENOMEM. */
int journal_format(const struct journal *j, char **out, size_t *len);

/* Read and parse path; -ENOENT when there is none (err then empty). */
int journal_read_file(const char *path, struct journal *out, char *err, size_t errlen);
/* Replace path with j atomically. -errno of the first failing call. */
int journal_write_file(const char *path, const struct journal *j);
/* Append "begin ID" or "done ID" and fsync. -errno. */
int journal_append(const char *path, const char *word, unsigned id);
/* Remove path and fsync its directory; -ENOENT is not an error. */
int journal_remove_file(const char *path);

/*
 * Write buf to path atomically: path.tmp (mode), fsync, rename over path, fsync of
 * the directory. The temporary file is removed on failure. -errno.
 */
int journal_write_atomic(const char *path, const void *buf, size_t len, mode_t mode);

/* The step for a knob, or NULL. */
struct journal_step *journal_find(const struct journal *j, const struct knob *k);
struct journal_step *journal_by_id(const struct journal *j, unsigned id);
/*
 * Record a step. A knob already in the journal keeps its (oldest) before and its id,
 * and takes the new after: one undo returns to the state before the first fix. New
 * knobs get the next id, state planned. *id (may be NULL) is the step's id.
 * -E2BIG (JOURNAL_MAX_STEPS), -ENOMEM, -EINVAL (a value too long).
 */
int journal_add(struct journal *j, const struct knob *k, const char *before, const char *after,
		const char *note, unsigned *id);
void journal_remove_at(struct journal *j, size_t i);

bool journal_knob_same(const struct knob *a, const struct knob *b);
const char *journal_state_name(enum journal_state s);

/* ---- the line syntax, shared with persist.h ---- */

#define JOURNAL_MAX_TOKENS 16

/*
 * Split a line (no newline) into tokens in place: words separated by blanks, or
 * double-quoted strings with escapes (decoded; may be empty). -EINVAL with a reason
 * in *why (a static string) for an unterminated string, a bad escape, a NUL byte, or
 * more than max tokens.
 */
int journal_split_line(char *line, char **tok, size_t max, size_t *n, const char **why);
/* s double-quoted with escapes into out. -ENOSPC. */
int journal_quote(const char *s, char *out, size_t len);
/* The four fields KIND IFNAME QUEUE NAME. -EINVAL with *why. */
int journal_knob_parse(char *const tok[4], struct knob *out, const char **why);
/* "KIND IFNAME QUEUE NAME" with "-" for empty fields. -ENOSPC. */
int journal_knob_format(const struct knob *k, char *out, size_t len);

#endif
