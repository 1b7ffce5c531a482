/* SPDX-License-Identifier: MIT */
/*
 * profile.h - what an emulated board link looks like: the lab's configuration.
 *
 * Text format (profiles/NAME.conf), one setting per line:
 *
 *	# comment                 blank lines and comments are ignored
 *	base = bbb-stock          start from another profile (once, before any setting)
 *	rate = 100mbit            tc units for rates, times and sizes (debloat/units.h)
 *	qdisc = pfifo_fast        the rest of the line is the value (a tc-style spec)
 *	description = a long one  a line that begins with a blank continues the value
 *	    that goes on          above it (joined with one space)
 *
 * Keys are the fields below, spelled as in the comments. Errors name the file, line
 * and key: `profiles/x.conf:7: unknown key "rign"`, `x.conf:3: rate: "fast" is not a
 * rate (e.g. 100mbit)`. Values are validated as they are set, so a profile that loaded
 * is usable (the qdisc specs parse with db_qdisc_create's parser, limits are in range).
 *
 * Details of the format:
 *  - '#' starts a comment anywhere on a line, so no value contains '#'. Blanks around
 *    keys and values are dropped; a line holds at most LAB_PROFILE_LINE_MAX bytes and
 *    a text at most LAB_PROFILE_TEXT_MAX; CRLF line ends are accepted.
 *  - Folding: the lines right after a setting that begin with a space or a tab and
 *    hold text continue its value, joined to it with one space; a blank or comment
 *    line ends it. A value so joined holds at most LAB_PROFILE_LINE_MAX bytes. An
 *    indented line with no setting right above it is a line like any other.
 *    lab_profile_format() folds values so that its lines fit LAB_PROFILE_FOLD
 *    columns, at single spaces (a word longer than a line stays whole).
 *  - A key may be set once per text (a second time is an error naming the first line).
 *  - "base = NAME" (a built-in name, or a path: anything with a '/' or ending in
 *    ".conf", relative to the directory of the file that names it) first resets the
 *    profile to lab_profile_defaults() and applies that profile, then the rest of the
 *    text applies over it. Bases nest at most LAB_PROFILE_BASE_DEPTH deep; a cycle is
 *    an error. Base files must be regular files.
 *  - The name is the file's name without directory and ".conf" unless "name =" sets it.
 *  - Booleans: on/off, yes/no, true/false, 1/0. bql_limit_max also takes "max";
 *    ceiling also takes "off" or 0 (none, the default, written back as "off").
 *  - Limits: rates 1kbit..100gbit (ceiling too, or off); mtu 68..9000; txqueuelen
 *    1..100000; rings (ring, client_ring, rx_ring) 1..4096; completion_frames
 *    1..4096; completion_time <= 1s; urb_bytes 0..1mb; urb_frames 0..4096;
 *    urb_overhead 0..1024 (urb_frames and urb_overhead mean nothing while
 *    urb_bytes is 0); delay and bql_hold_time <= 10s; bql limits
 *    <= 1879048192 (DQL's max); buffers and tsq <= 1gb; name: letters, digits and
 *    ._+- (<= 63); cc: letters, digits, _ and - (<= 15); description <= 255 bytes.
 *  - Rules across keys, checked once a whole text (or one --set) is applied:
 *    completion_frames > 1 needs completion_time > 0 or completion_empty on (else a
 *    batch that does not fill is never reported and BQL stalls); bql_limit_min <=
 *    bql_limit_max; the switch's buffers hold at least one full frame (mtu + 14
 *    bytes).
 *
 * The four profiles of the seed email ship in the tree and are compiled into the
 * binary (a board has nothing but the binary): bbb-stock, bbb-bql, bbb-bql-fq,
 * bbb-bql-fq_codel; also gige-noqueue (a GigE link adding no queueing: the benchmark
 * against veth + htb) and fifo100 (the fidelity test's link); and the other boards,
 * each as a current OS ships it (the header of each file gives its evidence):
 * wandboard (fec, 470 Mbit/s shared ceiling behind a GigE PHY), rpi3b (smsc95xx on
 * usbnet, 100 Mbit/s, 60 URBs of one frame), rpi3bplus (lan78xx, 300 Mbit/s shared
 * ceiling behind USB 2, 10 URBs of 16 KB), rpi4 (bcmgenet with BQL, completions
 * every 10 frames or when the ring empties) and rpi5 (macb on RP1, no BQL before
 * Linux 6.15). lab_profile_load() takes a name of a built-in profile or a path
 * (anything with a '/' or ending in ".conf"). scripts/embed-profiles.sh generates
 * lab_builtin_profiles[] from profiles/NAME.conf.
 *
 * Errors are -errno with a message in the caller's buffer; nothing is printed.
 */
#ifndef DEBLOAT_LAB_PROFILE_H
#define DEBLOAT_LAB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_PROFILE_NAME_MAX   64
#define LAB_SPEC_MAX	       256
#define LAB_PROFILE_TEXT_MAX   8192 /* bytes a profile file may have */
#define LAB_PROFILE_LINE_MAX   1024 /* bytes a line may have, without its newline */
#define LAB_PROFILE_BASE_DEPTH 4    /* bases a profile may stack */
#define LAB_PROFILE_FOLD       80   /* columns lab_profile_format() folds values to */

struct lab_profile {
	char name[LAB_PROFILE_NAME_MAX]; /* name:  set from the file name or "name =" */
	char description[256];		 /* description: one line for listings */

	/* The board's transmit path (board -> client). */
	uint64_t rate_bps;	    /* rate: line rate (100mbit) */
	uint32_t mtu;		    /* mtu: bytes of IP packet per frame (1500) */
	char qdisc[LAB_SPEC_MAX];   /* qdisc: tc-style spec of the board's root qdisc */
	uint32_t txqueuelen;	    /* txqueuelen: packets; pfifo_fast bands and a bare
				       "pfifo" without limit take it, as in Linux */
	bool gso;		    /* gso: the board's TCP sends super-packets (tun offloads) */
	bool tso;		    /* tso: a super-packet reaches the ring as one descriptor
				       chain (else it is split into frames before the ring) */
	uint32_t ring;		    /* ring: TX descriptors; URBs when urb_bytes > 0 */
	uint32_t urb_bytes;	    /* urb_bytes: a USB NIC's URB size: frames waiting in the
				       driver are packed into the next free URB while they fit
				       (each frame's l2 bytes + urb_overhead); 0: off, the ring
				       counts frames */
	uint32_t urb_frames;	    /* urb_frames: frames one URB takes at most (0: as many as
				       fit in urb_bytes; 1: usbnet's one frame per URB) */
	uint32_t urb_overhead;	    /* urb_overhead: bytes the driver puts before each frame
				       in a URB (a command word or header) */
	bool bql;		    /* bql: the driver stops by DQL, not only by free descriptors */
	uint32_t bql_limit_min;	    /* bql_limit_min: bytes (0) */
	uint32_t bql_limit_max;	    /* bql_limit_max: bytes (1879048192, "max") */
	uint64_t bql_hold_ns;	    /* bql_hold_time: slack window (1s) */
	uint32_t completion_frames; /* completion_frames: report completions every k frames */
	uint64_t completion_ns;	    /* completion_time: ... or this long after the first
				       frame finished that is not yet reported (0: off) */
	bool completion_empty;	    /* completion_empty: ... or when the ring runs empty (the
				       last frame posted has been sent), as bcmgenet (off) */
	uint64_t delay_ns;	    /* delay: one-way propagation, each direction (0) */
	uint64_t switch_rate_bps;   /* switch_rate: the switch's port towards the client */
	uint64_t switch_buffer_bytes; /* switch_buffer: its tail-drop buffer, bytes */
	uint32_t tsq_bytes;	      /* tsq: bytes a flow may have in qdisc and ring; 0 off */
	uint64_t ceiling_bps;	      /* ceiling: what the NIC/bus moves at most, bytes per
					 second, though the PHY links at rate; 0 ("off"): none */
	bool ceiling_shared;	      /* ceiling_shared: what the board receives crosses the
					 same budget (off) */
	uint32_t rx_ring;	      /* rx_ring: frames that may wait for a shared ceiling on
					 the receive side; beyond, dropped (512) */
	char ingress[LAB_SPEC_MAX];   /* ingress: the board's download shaper, a libdebloat
					 spec applied to what it receives, after the receive
					 ring (an ifb's place); "off" (the default): none */

	/* The client's transmit path (client -> board). */
	uint64_t client_rate_bps;	  /* client_rate: the client's link (1gbit) */
	char client_qdisc[LAB_SPEC_MAX];  /* client_qdisc: its qdisc ("fq_codel") */
	uint32_t client_ring;		  /* client_ring: its TX descriptors, BQL always on (256) */
	uint64_t board_port_buffer_bytes; /* board_port_buffer: the switch's port towards the
					     board, at the board's rate, tail-drop, bytes */

	/* The endpoints. */
	char cc[16]; /* cc: TCP congestion control of the lab's own tests */
};

/* The built-in defaults: a 100 Mbit/s board with bbb-stock's transmit path. */
void lab_profile_defaults(struct lab_profile *p);

/*
 * Apply the settings of a profile text over *p. `file` names it in errors (NULL:
 * "<profile>", and the name is left alone). A "base =" line loads that built-in
 * profile (or file, relative to file's directory) first; bases nest at most 4 deep.
 * Returns 0, or -EINVAL with a message in err (-ENOMEM), and p then holds an
 * unspecified mix: parse into a copy.
 */
int lab_profile_parse(struct lab_profile *p, const char *text, size_t len, const char *file,
		      char *err, size_t errlen);

/* One "key=value" override (`debloat lab --set`), with the checks of a file, the
 * rules across keys included. -EINVAL with a message ("--set rign=8: unknown key
 * \"rign\""); p is untouched on error. "base" cannot be set. */
int lab_profile_set(struct lab_profile *p, const char *key, const char *value, char *err,
		    size_t errlen);
/* "key=value" as one word, split at the first '='. */
int lab_profile_set_word(struct lab_profile *p, const char *word, char *err, size_t errlen);

/*
 * Several "key=value" words (`--set` given n times), in order, each checked alone,
 * then the rules across keys once over the result: "completion_frames=8
 * completion_time=1ms" works in either order. A rule broken by the result is
 * reported against the last word that set one of the keys involved ("--set
 * completion_frames=8: completion_frames 8 needs completion_time > 0 ..."). 0, or
 * -EINVAL with a message; p is untouched on error.
 */
int lab_profile_set_words(struct lab_profile *p, const char *const *words, size_t n, char *err,
			  size_t errlen);

/* Defaults, then a built-in profile by name or a file by path. -ENOENT: no such
 * profile (message lists the built-in names), -EINVAL: parse error, -errno: I/O.
 * p is untouched on error. */
int lab_profile_load(struct lab_profile *p, const char *name_or_path, char *err, size_t errlen);

/* Every setting as "key = value" lines that lab_profile_parse() reads back to an
 * equal profile, a long value folded (see above) so that every line fits
 * LAB_PROFILE_FOLD columns unless one word of it does not. Returns the length, or
 * -ENOSPC. */
int lab_profile_format(const struct lab_profile *p, char *buf, size_t len);

/* The built-in profiles (name, text), NULL-terminated by name. */
struct lab_builtin_profile {
	const char *name;
	const char *text;
};
extern const struct lab_builtin_profile lab_builtin_profiles[];

/* Which effects a run with p models, one short line for summaries and listings:
 * "100mbit, qdisc pfifo_fast, txqueuelen 1000, GSO, ring 128, no BQL, completions
 * every 2 frames or 250us, delay 100us, switch 1gbit 128KB, board port 128KB, no TSQ".
 * Returns the length or -ENOSPC. */
int lab_profile_describe(const struct lab_profile *p, char *buf, size_t len);

/* The text of a built-in profile, or NULL. */
const char *lab_profile_builtin_text(const char *name);

/* Whether p is usable: every field in range, both qdisc specs parse, the rules
 * across keys hold. For profiles built by hand; parsed ones already are. 0, or
 * -EINVAL with a message naming the key ("ring: 0 is out of range (1..4096)"). */
int lab_profile_check(const struct lab_profile *p, char *err, size_t errlen);

/* Whether a qdisc spec takes the device's txqueuelen, as in Linux: a pfifo_fast
 * without its own "txqueuelen", or a pfifo without "limit". */
bool lab_qdisc_takes_txqueuelen(const char *spec);

/* The board's qdisc spec with txqueuelen spelled out where it takes it:
 * "pfifo_fast" -> "pfifo_fast txqueuelen 1000", "pfifo" -> "pfifo limit 1000";
 * other specs unchanged. Returns the length or -ENOSPC. */
int lab_profile_qdisc_spec(const struct lab_profile *p, char *buf, size_t len);

#endif
