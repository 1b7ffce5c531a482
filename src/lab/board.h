/* SPDX-License-Identifier: MIT */
/*
 * lab/board.h - an emulated board built from a snapshot (`debloat snapshot`, snapshot.h)
 * instead of a hand-written profile, and the same board with `debloat fix`'s plan for
 * that snapshot applied: the lab's "fixed" state is the plan, so it cannot drift from
 * what fix would do.
 *
 * What comes from where (docs/design/lab-boards.md says why):
 *  - the driver's behaviour the snapshot cannot show (completion rules, URBs, rx_ring,
 *    what TSO means to the ring) from the built-in profile of the board whose driver
 *    matches (lab_board_base: cpsw bbb-stock, smsc95xx rpi3b, lan78xx rpi3bplus,
 *    bcmgenet rpi4, macb rpi5, fec wandboard); a driver without one gets the lab's
 *    defaults (lab_profile_defaults), and the board's notes say so;
 *  - the host's state from the snapshot: rate (the link speed), root qdisc as a lab
 *    spec, txqueuelen, TX ring (ethtool's, else the drivers table's), GSO, BQL (the
 *    verdict audit uses, policy_bql_in_use), the ceiling and whether it is shared
 *    (driver_ceiling on the snapshot's machine and USB bus);
 *  - the switch, the client, the delay and the congestion control from the base.
 *
 * Root qdiscs the lab models: pfifo_fast (with txqueuelen), pfifo, bfifo, fq_codel,
 * fq, codel, and mq over children of one kind (the lab has one TX queue: the child
 * stands for all). Anything else is -EOPNOTSUPP with a message naming it.
 *
 * The plan's steps map onto profile keys (lab_board_apply_plan): the root qdisc
 * ("cake bandwidth R" and "htb R LEAF" become "shaper rate R child LEAF", cake's
 * own flow queueing stood for by fq_codel; "mq KIND" becomes KIND), txqueuelen, BQL
 * limit_max (queue 0), TX ring, cpsw's RX-ring lever (TX gets what RX leaves), GSO
 * and TSO, and the download shaper (the ifb's root, in the root's spellings) as
 * "ingress". A step the model cannot represent (GRO, gso_max_size, sysctls) is
 * listed as such, never dropped silently.
 *
 * Pure functions over the caller's data; errors are -errno with a message.
 */
#ifndef DEBLOAT_LAB_BOARD_H
#define DEBLOAT_LAB_BOARD_H

#include <stdbool.h>
#include <stddef.h>

#include "fix/plan.h"
#include "host/host.h"
#include "lab/profile.h"

#define LAB_BOARD_NOTES	   8
#define LAB_BOARD_NOTE_MAX 256
#define LAB_BOARD_STEPS	   16

/* One plan step as the lab took it. */
struct lab_board_step {
	char knob[80];		      /* "root qdisc", "txqueuelen", "offload rx-gro", ... */
	char value[KNOB_VALUE_MAX];   /* the plan's value */
	bool applied;		      /* false: the model cannot represent it */
	char lab[LAB_BOARD_NOTE_MAX]; /* applied: "key = value"; else why not */
};

struct lab_board {
	char ifname[IF_NAMESIZE];
	char driver[32];
	char base[LAB_PROFILE_NAME_MAX]; /* the built-in profile taken for the driver; "" none */
	char notes[LAB_BOARD_NOTES][LAB_BOARD_NOTE_MAX]; /* how the snapshot was read */
	unsigned nnotes;
	struct lab_board_step steps[LAB_BOARD_STEPS]; /* lab_board_apply_plan's */
	unsigned nsteps;
};

/* The built-in profile whose driver this is, or NULL. */
const char *lab_board_base(const char *driver);

/*
 * The interface to emulate: name when given (-ENODEV when the snapshot has no such
 * interface), else the one physical interface with a driver (-ENODEV when none,
 * -EEXIST when several: the message lists them). Its index in h->ifaces.
 */
int lab_board_pick(const struct host *h, const char *name, char *err, size_t errlen);

/*
 * The profile of h->ifaces[idx] (see above) into *p and what was read into *b.
 * -EOPNOTSUPP: a root qdisc the lab cannot model; -EINVAL: the result is not a
 * usable profile (message names the key). *p is untouched on error.
 */
int lab_board_profile(const struct host *h, size_t idx, struct lab_profile *p, struct lab_board *b,
		      char *err, size_t errlen);

/*
 * Apply the plan's steps for the target named b->ifname (and the host-wide ones,
 * listed as not modelled) to *p, recording each in b->steps. -EINVAL when the plan
 * has no such target or a step's value does not make a usable profile (message);
 * -E2BIG beyond LAB_BOARD_STEPS steps.
 */
int lab_board_apply_plan(const struct plan *pl, struct lab_profile *p, struct lab_board *b,
			 char *err, size_t errlen);

/* The board snapshots shipped in the binary (boards/NAME.json), NULL-terminated;
 * scripts/embed-profiles.sh --boards generates it. */
extern const struct lab_builtin_profile lab_builtin_boards[];

/* The text of a built-in board snapshot ("raspberry-pi-4"), or NULL. */
const char *lab_board_builtin_text(const char *name);

/*
 * The whole of `lab --snapshot FILE [--iface NAME] [--fixed]`: read the snapshot
 * (a path, or the name of a built-in board snapshot when it has no '/' and does not
 * end in ".json"), pick the interface, build its profile, and with fixed, plan it
 * as `debloat fix --from FILE --dry-run [NAME]` does with opts and apply the plan.
 * -errno with a message; *p untouched on error.
 */
int lab_board_load(const char *snapshot, const char *ifname, bool fixed,
		   const struct plan_options *opts, struct lab_profile *p, struct lab_board *b,
		   char *err, size_t errlen);

/* A board of the 2014 thread as the lab ships it: its snapshot, its hand-written
 * stock profile, and the BQL variant where the board has one. */
struct lab_board_entry {
	const char *snapshot;	 /* boards/NAME.json, built in */
	const char *board;	 /* "Raspberry Pi 4" */
	const char *os;		 /* the OS and kernel the profile stands for */
	const char *profile;	 /* its stock profile */
	const char *bql_profile; /* a built-in profile with BQL, or NULL */
	const char *bql_set;	 /* else a --set that gives it BQL ("bql=on"), or NULL */
	const char *bql_why;	 /* where that BQL comes from */
};

/* NULL-terminated (snapshot NULL), in the order `lab boards` lists them. */
extern const struct lab_board_entry lab_boards[];

/* The entry whose snapshot or profile is name, or NULL. */
const struct lab_board_entry *lab_board_find(const char *name);

#endif
