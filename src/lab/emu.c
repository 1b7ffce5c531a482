/* SPDX-License-Identifier: MIT */
/*
 * emu.c - the lab's emulated link as a discrete-event model (emu.h is the spec).
 *
 * Each direction is a chain of stages, each a FIFO of packets with at most one
 * pending event: the transmit path (TSQ hold, qdisc, requeue slot, descriptor ring,
 * wire, batched completions), the cable's delay line and a tail-drop switch port.
 * A board with a throughput ceiling adds a bus clock that its wire (and, when the
 * ceiling is shared, its receive ring) must wait for. There are fourteen event
 * sources in all (the seven kinds of enum ev_kind in each direction), so the next
 * event is a scan of fourteen times, not a heap; each is handled at its own due time,
 * so a caller that comes late gets the same timing as one that came on time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <debloat/dql.h>
#include <debloat/flow.h>
#include <debloat/model.h>

#include "base/hist.h"
#include "emu.h"
#include "frame.h"
#include "pool.h"

#define NEVER UINT64_MAX

/* TSQ flow table: open addressing with linear probing, at most 3/4 full; flows
 * beyond that are not held (they bypass TSQ). 4096 x 48 bytes, only with tsq on. */
#define TSQ_SLOTS     4096u
#define TSQ_FLOWS_MAX (TSQ_SLOTS / 4 * 3)

struct emu_pkt {
	struct db_pkt pkt;    /* what the qdisc queues: data = this, len = f.l2_bytes */
	struct emu_pkt *next; /* link in the emulator's own FIFOs (the qdisc owns pkt.next) */
	struct lab_frame f;   /* parsed, kept in step with buf (CE marks) */
	uint64_t in_ns;	      /* when it entered the emulator (path latency) */
	uint64_t due_ns;      /* delay line: when it reaches the far end of the cable */
	uint32_t len;	      /* bytes in buf */
	int32_t tsq_charge;   /* bytes charged to its flow's TSQ account; 0 when none */
	uint8_t buf[];	      /* vnet header + IP packet */
};

struct pktq {
	struct emu_pkt *head, *tail;
	uint32_t n;
	uint64_t bytes; /* sum of pkt.len (l2 bytes) */
};

/*
 * The board's NIC/bus budget (profile.ceiling_bps): busy until free_ns. A transfer of
 * b bytes claims it from max(then, free_ns) for b / rate_Bps; claims are served in
 * the order they are made. Bytes are wire bytes (l2 + LAB_WIRE_OVERHEAD), so the
 * ceiling reads in the same units as the line rate.
 */
struct bus {
	uint64_t rate_Bps;
	uint64_t free_ns;
	uint64_t rem; /* carried fraction of a ns, as struct link's */
};

/* Something that sends packets one after another at a rate: a wire or a switch port. */
struct link {
	struct pktq q;	   /* the head is being sent while done_ns != NEVER */
	uint64_t rate_Bps; /* bytes per second, as profile.h's rates (units.h) */
	uint64_t rem;	   /* carried fraction of a ns, in 1/rate_Bps units: back-to-back
			      frames stay exact at any rate */
	uint64_t start_ns; /* the head's transmission */
	uint64_t done_ns;
	uint64_t busy_ns; /* finished transmissions */
	struct bus *bus;  /* NULL, or a transmission also waits for and claims this bus */
	bool bus_only;	  /* the transfer is the bus claim itself (rate_Bps unused) */
};

/* A tail-drop switch port: a link with a byte buffer. */
struct port {
	struct link link;
	uint64_t limit_bytes; /* l2 bytes queued, the frame being sent included; 0: no limit */
	bool present;	      /* false: no port, packets pass through */
	enum lab_stage stage;
};

/* One ring descriptor: what its completion gives back (12 bytes). */
struct desc {
	uint32_t bytes;	    /* l2 bytes posted (DQL) */
	uint32_t hash;	    /* flow, for TSQ */
	int32_t tsq_charge; /* bytes to give back to the flow's TSQ account */
};

/* One URB of a USB NIC (profile.urb_bytes > 0): a run of consecutive descriptors
 * that is reported as one when its last frame has been sent (16 bytes). */
struct urb {
	uint32_t descs; /* descriptors (frames, or TSO super-packets) packed in it */
	uint32_t segs;	/* the wire frames they make */
	uint32_t bytes; /* l2 bytes + urb_overhead per descriptor */
	uint32_t left;	/* descriptors not yet sent */
};

/* Frames a URB ring may hold in all; beyond, the driver stops as on a full ring.
 * 12 bytes of descriptor each: at most 768 KB per emulator. */
#define URB_DESCS_MAX 65536u

struct lab_emu;

/* qdisc -> requeue slot -> ring -> wire, with completions and DQL. */
struct txpath {
	struct lab_emu *e;
	enum lab_dir dir;
	enum lab_stage stage; /* the qdisc's */
	struct db_qdisc *q;
	struct db_qdisc_env env;
	bool split;	     /* GSO without TSO: super-packets become frames before the ring */
	struct pktq requeue; /* frames of a split super-packet waiting for descriptors */
	uint64_t pace_ns;    /* the qdisc holds packets back until then (fq maxrate) */

	/* The ring: in_use descriptors from head, the first `finished` of them sent
	 * on the wire and not yet reported. */
	struct desc *desc;
	uint32_t nring, head, in_use, finished;
	uint64_t ring_bytes; /* posted and not yet completed */
	uint32_t in_use_max;

	/* URBs (board only, nurb > 0): the ring is nurb URBs, a FIFO from urb_head of
	 * urb_used; the first urb_sent of them fully sent and not yet reported. While
	 * xmit runs, the last one may be open to more frames. */
	struct urb *urb;
	uint32_t nurb, urb_head, urb_used, urb_sent, urb_used_max;
	uint32_t urb_bytes, urb_frames, urb_overhead;
	bool urb_open;

	/* Completion reports. */
	uint32_t batch_frames;
	uint64_t batch_ns;
	uint32_t unreported_frames;
	uint64_t timer_ns;
	bool report_empty; /* also report when the wire has sent all it was given */

	bool bql;
	struct db_dql dql;
	uint32_t limit_max_seen;

	struct link wire;
};

struct dirpath {
	struct txpath tx;
	struct port port;
	struct pktq delay; /* on the cable: due_ns each, in order */
	uint64_t delay_ns;
	bool delay_first; /* board: wire -> delay -> port; client: wire -> port -> delay */
	/* Client only, with a shared ceiling: the board's receive ring, drained over the
	 * bus. rx.q holds the frames waiting for it, the one crossing it included. */
	bool rx_present;
	struct link rx;
	uint32_t rx_frames; /* frames in rx.q (segs of each) */
	uint32_t rx_limit;  /* profile.rx_ring */
	/* Client only, with profile.ingress: the board's download shaper, last before
	 * delivery. Only its qdisc, env, stage and pace_ns are used. */
	bool ing_present;
	struct txpath ing;
	struct hist path; /* input to delivery */
	uint64_t tx_bytes, tx_pkts;
};

struct tsq_flow {
	uint32_t hash;
	uint8_t used;
	uint8_t pending;  /* on the release list */
	int64_t bytes;	  /* charged: in qdisc, requeue slot and ring */
	struct pktq held; /* waiting before the qdisc */
};

struct lab_emu {
	struct lab_profile prof;
	struct lab_emu_hooks hooks;
	struct dirpath dir[2];
	uint64_t now_ns;    /* the last event handled (or the last time given) */
	uint64_t mem_bytes; /* packets held, struct included */
	bool destroying;
	struct lab_pool pool; /* packet buffers, reused (pool.h) */
	struct bus bus;	      /* the board's ceiling; rate 0 without one */

	struct lab_stage_counts stage[LAB_STAGE_COUNT];
	struct hist sojourn; /* board qdisc */
	struct hist limit;   /* board DQL limit at each completion */
	uint64_t qdisc_backlog_max;

	/* TSQ (board only). */
	uint32_t tsq_bytes;
	struct tsq_flow *tsq;
	uint32_t tsq_used;
	uint64_t tsq_held_bytes;
	uint32_t *tsq_release; /* hashes of flows whose account dropped while holding */
	uint32_t tsq_nrelease;

	/* Segmentation output. */
	uint8_t *scratch;
	size_t scratch_len;
};

const char *lab_stage_name(enum lab_stage s)
{
	static const char *const names[LAB_STAGE_COUNT] = {
	    [LAB_STAGE_INPUT] = "input",
	    [LAB_STAGE_TSQ] = "tsq",
	    [LAB_STAGE_QDISC] = "qdisc",
	    [LAB_STAGE_SWITCH] = "switch",
	    [LAB_STAGE_CLIENT_QDISC] = "client_qdisc",
	    [LAB_STAGE_BOARD_PORT] = "board_port",
	    [LAB_STAGE_BOARD_RX] = "board_rx",
	    [LAB_STAGE_BOARD_INGRESS] = "board_ingress",
	};

	return (unsigned)s < LAB_STAGE_COUNT ? names[s] : "?";
}

/* ---- packets and FIFOs ---- */

static void pktq_push_head(struct pktq *q, struct emu_pkt *p)
{
	p->next = q->head;
	q->head = p;
	if (!q->tail)
		q->tail = p;
	q->n++;
	q->bytes += p->pkt.len;
}

static void pktq_push(struct pktq *q, struct emu_pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->n++;
	q->bytes += p->pkt.len;
}

static struct emu_pkt *pktq_pop(struct pktq *q)
{
	struct emu_pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	q->bytes -= p->pkt.len;
	p->next = NULL;
	return p;
}

static size_t pkt_cost(uint32_t len)
{
	return sizeof(struct emu_pkt) + len;
}

/* A packet from buf, parsed as f. NULL when out of memory. */
static struct emu_pkt *pkt_new(struct lab_emu *e, const uint8_t *buf, uint32_t len,
			       const struct lab_frame *f, uint64_t in_ns)
{
	struct emu_pkt *p = lab_pool_get(&e->pool, pkt_cost(len));

	if (!p)
		return NULL;
	memcpy(p->buf, buf, len);
	p->len = len;
	p->f = *f;
	p->in_ns = in_ns;
	p->due_ns = 0;
	p->tsq_charge = 0;
	p->next = NULL;
	p->pkt = (struct db_pkt){
	    .data = p,
	    .len = f->l2_bytes,
	    .hash = db_flow_hash(&f->key),
	    .segs = f->segs ? f->segs : 1,
	    .tos = f->tos,
	};
	e->mem_bytes += pkt_cost(len);
	return p;
}

static void pkt_free(struct lab_emu *e, struct emu_pkt *p)
{
	e->mem_bytes -= pkt_cost(p->len);
	lab_pool_put(&e->pool, p, pkt_cost(p->len));
}

static void pktq_free(struct lab_emu *e, struct pktq *q)
{
	struct emu_pkt *p;

	while ((p = pktq_pop(q)))
		pkt_free(e, p);
}

static void count_drop(struct lab_emu *e, enum lab_stage s, const struct emu_pkt *p)
{
	e->stage[s].drops++;
	e->stage[s].drop_frames += p->pkt.segs;
}

static void drop_pkt(struct lab_emu *e, enum lab_stage s, struct emu_pkt *p)
{
	count_drop(e, s, p);
	pkt_free(e, p);
}

static void tsq_uncharge(struct lab_emu *e, uint32_t hash, int32_t charge);

/*
 * Split super-packet p into its frames, appended to out in order; p is consumed.
 * Each frame inherits p's input time; p's TSQ charge is spread over them so that
 * they give back exactly what p took. A frame that cannot be allocated is dropped
 * and counted at stage s. Returns the number of frames kept, or -errno when p could
 * not be segmented at all (p then still exists and belongs to the caller).
 */
static int split_pkt(struct lab_emu *e, struct emu_pkt *p, struct pktq *out, enum lab_stage s)
{
	uint32_t seg_len[LAB_MAX_SEGS];
	size_t need = lab_frame_segment_space(&p->f), off = 0;
	int64_t charge_left = p->tsq_charge;
	struct emu_pkt *last = NULL;
	int n, made = 0;

	if (need > e->scratch_len) {
		uint8_t *b = realloc(e->scratch, need);

		if (!b)
			return -ENOMEM;
		e->scratch = b;
		e->scratch_len = need;
	}
	n = lab_frame_segment(p->buf, p->len, &p->f, e->scratch, e->scratch_len, seg_len,
			      LAB_MAX_SEGS);
	if (n < 0)
		return n;
	for (int i = 0; i < n; off += seg_len[i], i++) {
		struct lab_frame f;
		struct emu_pkt *sp;

		if (lab_frame_parse(e->scratch + off, seg_len[i], &f) < 0)
			sp = NULL;
		else
			sp = pkt_new(e, e->scratch + off, seg_len[i], &f, p->in_ns);
		if (!sp) {
			/* A frame lost to memory: counted where the split happened. */
			e->stage[s].drops++;
			e->stage[s].drop_frames++;
			continue;
		}
		if (p->tsq_charge) {
			sp->tsq_charge = i == n - 1 ? (int32_t)charge_left : (int32_t)sp->pkt.len;
			charge_left -= sp->tsq_charge;
		}
		pktq_push(out, sp);
		last = sp;
		made++;
	}
	if (last)
		last->tsq_charge += (int32_t)charge_left; /* the last frame was lost */
	else
		tsq_uncharge(e, p->pkt.hash, (int32_t)charge_left); /* all were */
	pkt_free(e, p);
	return made;
}

/* ---- links ---- */

/* Claim b for `bytes` from t or when it frees, whichever is later; returns the start. */
static uint64_t bus_claim(struct bus *b, uint64_t t, uint32_t bytes)
{
	uint64_t num;

	if (t > b->free_ns) {
		b->free_ns = t;
		b->rem = 0; /* idle: nothing to carry */
	}
	t = b->free_ns;
	num = (uint64_t)bytes * 1000000000ull + b->rem;
	b->free_ns += num / b->rate_Bps;
	b->rem = num % b->rate_Bps;
	return t;
}

static void link_begin(struct link *l, uint64_t t)
{
	uint64_t num;

	if (l->bus) {
		uint64_t s = bus_claim(l->bus, t, l->q.head->f.wire_bytes);

		if (l->bus_only) {
			l->start_ns = s;
			l->done_ns = l->bus->free_ns;
			return;
		}
		if (s > t) { /* held back by the bus: not back to back on the wire */
			t = s;
			l->rem = 0;
		}
	}
	num = (uint64_t)l->q.head->f.wire_bytes * 1000000000ull + l->rem;
	l->start_ns = t;
	l->done_ns = t + num / l->rate_Bps;
	l->rem = num % l->rate_Bps;
}

static void link_push(struct link *l, struct emu_pkt *p, uint64_t t)
{
	pktq_push(&l->q, p);
	if (l->done_ns == NEVER)
		link_begin(l, t);
}

/* The head finished at done_ns: pop it and start the next one back to back. */
static struct emu_pkt *link_pop(struct link *l)
{
	struct emu_pkt *p = pktq_pop(&l->q);
	uint64_t t = l->done_ns;

	l->busy_ns += t - l->start_ns;
	if (l->q.head) {
		link_begin(l, t);
	} else {
		l->done_ns = NEVER;
		l->rem = 0;
	}
	return p;
}

/* Busy time up to now, the transmission in progress included. */
static uint64_t link_busy(const struct link *l, uint64_t now_ns)
{
	uint64_t b = l->busy_ns;

	if (l->done_ns != NEVER && now_ns > l->start_ns)
		b += (now_ns < l->done_ns ? now_ns : l->done_ns) - l->start_ns;
	return b;
}

/* ---- TSQ ---- */

static int tsq_find(const struct lab_emu *e, uint32_t hash)
{
	uint32_t i = db_hash_fmix32(hash) & (TSQ_SLOTS - 1);

	while (e->tsq[i].used) {
		if (e->tsq[i].hash == hash)
			return (int)i;
		i = (i + 1) & (TSQ_SLOTS - 1);
	}
	return -1;
}

/* The flow's slot, made if new; -1 when the table is full. */
static int tsq_get(struct lab_emu *e, uint32_t hash)
{
	uint32_t i = db_hash_fmix32(hash) & (TSQ_SLOTS - 1);

	while (e->tsq[i].used) {
		if (e->tsq[i].hash == hash)
			return (int)i;
		i = (i + 1) & (TSQ_SLOTS - 1);
	}
	if (e->tsq_used >= TSQ_FLOWS_MAX)
		return -1;
	memset(&e->tsq[i], 0, sizeof(e->tsq[i]));
	e->tsq[i].used = 1;
	e->tsq[i].hash = hash;
	e->tsq_used++;
	return (int)i;
}

/* Forget an idle flow: backward-shift deletion keeps every probe chain intact. */
static void tsq_maybe_forget(struct lab_emu *e, uint32_t i)
{
	struct tsq_flow *fl = &e->tsq[i];
	uint32_t j = i;

	if (fl->bytes > 0 || fl->held.n || fl->pending)
		return;
	fl->used = 0;
	e->tsq_used--;
	for (;;) {
		uint32_t home;

		j = (j + 1) & (TSQ_SLOTS - 1);
		if (!e->tsq[j].used)
			return;
		home = db_hash_fmix32(e->tsq[j].hash) & (TSQ_SLOTS - 1);
		/* j's entry may move to i only if its home is not in (i, j] cyclically */
		if (((j - home) & (TSQ_SLOTS - 1)) >= ((j - i) & (TSQ_SLOTS - 1))) {
			e->tsq[i] = e->tsq[j];
			e->tsq[j].used = 0;
			i = j;
		}
	}
}

/* A packet left the qdisc or ring for good: give its bytes back. Safe inside a
 * qdisc callback: never moves table entries, only queues a release. */
static void tsq_uncharge(struct lab_emu *e, uint32_t hash, int32_t charge)
{
	int i;

	if (!charge || !e->tsq)
		return;
	i = tsq_find(e, hash);
	if (i < 0)
		return;
	e->tsq[i].bytes -= charge;
	if (!e->tsq[i].pending) {
		e->tsq[i].pending = 1;
		e->tsq_release[e->tsq_nrelease++] = hash; /* one entry per used slot at most */
	}
}

static bool tsq_fits(const struct lab_emu *e, const struct tsq_flow *fl, uint32_t bytes)
{
	return fl->bytes <= 0 || fl->bytes + bytes <= e->tsq_bytes;
}

static int qdisc_enqueue(struct txpath *tx, struct emu_pkt *p, uint64_t t);

/*
 * Let flows whose account dropped send what they hold, in order, as far as their
 * budget allows. Runs outside qdisc calls (enqueue may drop, which queues more
 * releases). Returns the number of packets released into the qdisc.
 */
static unsigned tsq_settle(struct lab_emu *e, uint64_t t)
{
	struct txpath *tx = &e->dir[LAB_BOARD_TX].tx;
	unsigned released = 0;

	while (e->tsq_nrelease) {
		uint32_t hash = e->tsq_release[--e->tsq_nrelease];
		int i = tsq_find(e, hash);

		if (i < 0)
			continue;
		e->tsq[i].pending = 0;
		/* The slot cannot move while we release: entries move only when a flow is
		 * forgotten, which happens only here and below. */
		while (e->tsq[i].held.head &&
		       tsq_fits(e, &e->tsq[i], e->tsq[i].held.head->pkt.len)) {
			struct emu_pkt *p = pktq_pop(&e->tsq[i].held);

			e->tsq_held_bytes -= p->pkt.len;
			e->tsq[i].bytes += p->pkt.len;
			p->tsq_charge = (int32_t)p->pkt.len;
			qdisc_enqueue(tx, p, t);
			released++;
		}
		tsq_maybe_forget(e, (uint32_t)i);
	}
	return released;
}

/* ---- qdisc callbacks ---- */

static void qdisc_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	struct txpath *tx = ctx;
	struct lab_emu *e = tx->e;
	struct emu_pkt *p = pkt->data;

	(void)why;
	if (!e->destroying) {
		count_drop(e, tx->stage, p);
		tsq_uncharge(e, p->pkt.hash, p->tsq_charge);
	}
	pkt_free(e, p);
}

static void qdisc_mark(struct db_pkt *pkt, void *ctx)
{
	struct txpath *tx = ctx;
	struct emu_pkt *p = pkt->data;

	if (lab_frame_set_ce(p->buf, p->len, &p->f) == 0)
		tx->e->stage[tx->stage].marks++;
	pkt->tos = p->f.tos;
}

/* Returns 0 queued, 1 dropped (and counted). */
static int qdisc_enqueue(struct txpath *tx, struct emu_pkt *p, uint64_t t)
{
	struct lab_emu *e = tx->e;
	struct db_qdisc_stats st;
	int ret;

	e->stage[tx->stage].pkts++;
	ret = db_qdisc_enqueue(tx->q, &p->pkt, t);
	if (tx->dir == LAB_BOARD_TX) {
		db_qdisc_stats(tx->q, &st);
		if (st.backlog_bytes > e->qdisc_backlog_max)
			e->qdisc_backlog_max = st.backlog_bytes;
	}
	return ret == DB_ENQ_DROPPED;
}

/* ---- the driver: ring, completions, wire ---- */

static void post(struct txpath *tx, struct emu_pkt *p, uint64_t t)
{
	uint32_t slot = tx->head + tx->in_use;
	struct desc *d;

	if (slot >= tx->nring)
		slot -= tx->nring;
	d = &tx->desc[slot];
	d->bytes = p->pkt.len;
	d->hash = p->pkt.hash;
	d->tsq_charge = p->tsq_charge;
	tx->in_use++;
	if (tx->in_use > tx->in_use_max)
		tx->in_use_max = tx->in_use;
	tx->ring_bytes += d->bytes;
	if (tx->bql)
		db_dql_queued_at(&tx->dql, d->bytes, t);
	link_push(&tx->wire, p, t);
}

/*
 * Pack p into the open URB if it fits there (urb_frames, urb_bytes), else close that
 * one and open the next free URB, which takes p whatever its size. false when no URB
 * is free: p must wait.
 */
static bool urb_take(struct txpath *tx, const struct emu_pkt *p)
{
	uint32_t need = p->pkt.len + tx->urb_overhead;
	struct urb *u;

	if (tx->urb_open) {
		uint32_t i = tx->urb_head + tx->urb_used - 1;

		u = &tx->urb[i >= tx->nurb ? i - tx->nurb : i];
		if ((!tx->urb_frames || u->descs < tx->urb_frames) &&
		    u->bytes + need <= tx->urb_bytes)
			goto add;
		tx->urb_open = false; /* full: submitted */
	}
	if (tx->urb_used == tx->nurb)
		return false;
	u = &tx->urb[(tx->urb_head + tx->urb_used) % tx->nurb];
	*u = (struct urb){0};
	tx->urb_used++;
	if (tx->urb_used > tx->urb_used_max)
		tx->urb_used_max = tx->urb_used;
	tx->urb_open = true;
add:
	u->descs++;
	u->segs += p->pkt.segs;
	u->bytes += need;
	u->left++;
	return true;
}

/* The driver's transmit loop, as Linux's qdisc_restart + ndo_start_xmit. With URBs,
 * what one run posts is packed into URBs in order, and the last one is submitted
 * when the run ends, however full (the driver's bottom half after start_xmit). */
static void xmit(struct txpath *tx, uint64_t t)
{
	struct lab_emu *e = tx->e;

	while (tx->in_use < tx->nring && !(tx->bql && db_dql_avail(&tx->dql) < 0)) {
		struct emu_pkt *p;

		if (tx->nurb && !tx->urb_open && tx->urb_used == tx->nurb)
			break; /* every URB is on the bus */
		p = pktq_pop(&tx->requeue);
		if (!p) {
			struct db_pkt *dp = db_qdisc_dequeue(tx->q, t);

			if (!dp) {
				uint64_t next = db_qdisc_next_ns(tx->q, t);

				/* next <= t would be a discipline that holds back what it
				 * could send: retry a nanosecond later rather than stall */
				tx->pace_ns = !next ? NEVER : next > t ? next : t + 1;
				tx->urb_open = false;
				return;
			}
			p = dp->data;
			if (tx->dir == LAB_BOARD_TX)
				hist_record(&e->sojourn, t - dp->enqueue_ns);
			if (tx->split && p->pkt.segs > 1) {
				if (split_pkt(e, p, &tx->requeue, tx->stage) < 0) {
					tsq_uncharge(e, p->pkt.hash, p->tsq_charge);
					drop_pkt(e, tx->stage, p);
				}
				continue;
			}
		}
		if (tx->nurb && !urb_take(tx, p)) {
			pktq_push_head(&tx->requeue, p); /* as Linux requeues on NETDEV_TX_BUSY */
			break;
		}
		post(tx, p, t);
	}
	tx->urb_open = false;
	tx->pace_ns = NEVER; /* stopped by the ring: a completion restarts us */
}

/* Dequeue what may go, and let TSQ release what the dequeue made room for. */
static void txpath_run(struct txpath *tx, uint64_t t)
{
	do
		xmit(tx, t);
	while (tx->dir == LAB_BOARD_TX && tsq_settle(tx->e, t));
}

/* Report every finished descriptor: free them, feed DQL, restart the queue. */
static void complete(struct txpath *tx, uint64_t t)
{
	struct lab_emu *e = tx->e;
	uint64_t bytes = 0;

	while (tx->finished) {
		const struct desc *d = &tx->desc[tx->head];

		bytes += d->bytes;
		tsq_uncharge(e, d->hash, d->tsq_charge);
		if (++tx->head == tx->nring)
			tx->head = 0;
		tx->in_use--;
		tx->finished--;
	}
	tx->ring_bytes -= bytes;
	if (tx->nurb) {
		tx->urb_head = (tx->urb_head + tx->urb_sent) % tx->nurb;
		tx->urb_used -= tx->urb_sent;
		tx->urb_sent = 0;
	}
	tx->unreported_frames = 0;
	tx->timer_ns = NEVER;
	if (tx->bql && bytes) {
		db_dql_completed(&tx->dql, (uint32_t)bytes, t);
		if (tx->dir == LAB_BOARD_TX)
			hist_record(&e->limit, tx->dql.limit);
		if (tx->dql.limit > tx->limit_max_seen)
			tx->limit_max_seen = tx->dql.limit;
	}
	txpath_run(tx, t);
}

static void deliver(struct lab_emu *e, enum lab_dir dir, struct emu_pkt *p, uint64_t t)
{
	struct dirpath *dp = &e->dir[dir];

	hist_record(&dp->path, t - p->in_ns);
	dp->tx_bytes += p->pkt.len;
	dp->tx_pkts++;
	if (e->hooks.deliver)
		e->hooks.deliver(dir, p->buf, p->len, t, e->hooks.ctx);
	pkt_free(e, p);
}

static uint32_t frame_l2(uint32_t ip_bytes)
{
	uint32_t l2 = ip_bytes + LAB_ETH_HDR_LEN;

	return l2 < LAB_ETH_MIN_FRAME ? LAB_ETH_MIN_FRAME : l2;
}

/* Whether any frame of super-packet p fits in room bytes: its frames are all full
 * but the last, so it is enough to try the first and the last. Saves segmenting a
 * super-packet that a full port would drop whole. */
static bool any_frame_fits(const struct emu_pkt *p, uint64_t room)
{
	uint32_t payload, last;

	if (p->pkt.segs < 2 || !p->f.gso_size)
		return false;
	payload = p->f.ip_len - p->f.hdr_len;
	last = payload - (uint32_t)(p->pkt.segs - 1) * p->f.gso_size;
	return frame_l2(p->f.hdr_len + p->f.gso_size) <= room ||
	       frame_l2(p->f.hdr_len + last) <= room;
}

/* Tail drop per frame: a super-packet that does not fit whole is split and the
 * frames that fit are kept. */
static void port_accept(struct lab_emu *e, enum lab_dir dir, struct emu_pkt *p, uint64_t t)
{
	struct port *pt = &e->dir[dir].port;
	struct pktq frames = {0};
	int n;

	if (!pt->present) {
		/* Only the switch towards the client may be absent (switch_rate 0); the
		 * port towards the board always exists. */
		deliver(e, dir, p, t);
		return;
	}
	e->stage[pt->stage].pkts++;
	if (!pt->limit_bytes || pt->link.q.bytes + p->pkt.len <= pt->limit_bytes) {
		link_push(&pt->link, p, t);
		return;
	}
	if (!any_frame_fits(p, pt->limit_bytes - pt->link.q.bytes) ||
	    (n = split_pkt(e, p, &frames, pt->stage)) < 0) {
		drop_pkt(e, pt->stage, p);
		return;
	}
	if (n > 1)
		e->stage[pt->stage].pkts += (unsigned)n - 1;
	while ((p = pktq_pop(&frames))) {
		if (pt->link.q.bytes + p->pkt.len <= pt->limit_bytes)
			link_push(&pt->link, p, t);
		else
			drop_pkt(e, pt->stage, p);
	}
}

/* Deliver what the board's download shaper lets go now; retry when it says. */
static void ingress_run(struct lab_emu *e, struct dirpath *dp, enum lab_dir dir, uint64_t t)
{
	struct db_pkt *pkt;
	uint64_t next;

	while ((pkt = db_qdisc_dequeue(dp->ing.q, t)))
		deliver(e, dir, pkt->data, t);
	next = db_qdisc_next_ns(dp->ing.q, t);
	dp->ing.pace_ns = !next ? NEVER : next > t ? next : t + 1;
}

/* p has crossed into the board: through its download shaper, if it has one. */
static void board_receive(struct lab_emu *e, enum lab_dir dir, struct emu_pkt *p, uint64_t t)
{
	struct dirpath *dp = &e->dir[dir];

	if (!dp->ing_present) {
		deliver(e, dir, p, t);
		return;
	}
	qdisc_enqueue(&dp->ing, p, t); /* a drop is counted and freed by qdisc_drop */
	ingress_run(e, dp, dir, t);
}

/* A received packet enters the board's receive ring, to cross the shared bus; a
 * super-packet counts as its frames and is kept or dropped whole. */
static void rx_accept(struct lab_emu *e, struct dirpath *dp, struct emu_pkt *p, uint64_t t)
{
	e->stage[LAB_STAGE_BOARD_RX].pkts++;
	if (dp->rx_frames + p->pkt.segs > dp->rx_limit) {
		drop_pkt(e, LAB_STAGE_BOARD_RX, p);
		return;
	}
	dp->rx_frames += p->pkt.segs;
	link_push(&dp->rx, p, t);
}

/* p reached the far end of direction dir's cable and port. */
static void arrive(struct lab_emu *e, enum lab_dir dir, struct emu_pkt *p, uint64_t t)
{
	struct dirpath *dp = &e->dir[dir];

	if (dp->rx_present)
		rx_accept(e, dp, p, t);
	else
		board_receive(e, dir, p, t);
}

static void rx_done(struct lab_emu *e, enum lab_dir dir, uint64_t t)
{
	struct dirpath *dp = &e->dir[dir];
	struct emu_pkt *p = link_pop(&dp->rx);

	dp->rx_frames -= p->pkt.segs;
	board_receive(e, dir, p, t);
}

/* A frame (or TSO super-packet) left the wire at t. */
static void wire_done(struct txpath *tx, uint64_t t)
{
	struct lab_emu *e = tx->e;
	struct dirpath *dp = &e->dir[tx->dir];
	struct emu_pkt *p = link_pop(&tx->wire);
	bool sent = true; /* a descriptor (or a whole URB) is done and may be reported */

	if (tx->nurb) {
		struct urb *u = &tx->urb[(tx->urb_head + tx->urb_sent) % tx->nurb];

		sent = --u->left == 0;
		if (sent) {
			tx->urb_sent++;
			tx->finished += u->descs;
			tx->unreported_frames += u->segs;
		}
	} else {
		tx->finished++;
		tx->unreported_frames += p->pkt.segs;
	}
	if (dp->delay_first && dp->delay_ns) {
		p->due_ns = t + dp->delay_ns;
		pktq_push(&dp->delay, p);
	} else {
		port_accept(e, tx->dir, p, t);
	}
	if (!sent)
		return;
	if (tx->unreported_frames >= tx->batch_frames ||
	    (tx->report_empty && tx->wire.done_ns == NEVER))
		complete(tx, t);
	else if (tx->batch_ns && tx->timer_ns == NEVER)
		tx->timer_ns = t + tx->batch_ns;
	else if (!tx->batch_ns && tx->wire.done_ns == NEVER)
		complete(tx, t); /* no timer (profile.c refuses it): the ring going quiet reports */
}

static void delay_done(struct lab_emu *e, enum lab_dir dir, uint64_t t)
{
	struct emu_pkt *p = pktq_pop(&e->dir[dir].delay);

	if (e->dir[dir].delay_first)
		port_accept(e, dir, p, t);
	else
		arrive(e, dir, p, t);
}

static void port_done(struct lab_emu *e, enum lab_dir dir, uint64_t t)
{
	struct dirpath *dp = &e->dir[dir];
	struct emu_pkt *p = link_pop(&dp->port.link);

	if (!dp->delay_first && dp->delay_ns) {
		p->due_ns = t + dp->delay_ns;
		pktq_push(&dp->delay, p);
	} else {
		arrive(e, dir, p, t);
	}
}

/* ---- events ---- */

/* Per direction, in the order ties are broken: downstream first (a port frees room
 * before the cable brings more), a frame's end before the completion timer. */
enum ev_kind { EV_INGRESS, EV_RX, EV_PORT, EV_DELAY, EV_WIRE, EV_TIMER, EV_PACE, EV_KINDS };

static uint64_t ev_time(const struct lab_emu *e, unsigned dir, unsigned kind)
{
	const struct dirpath *dp = &e->dir[dir];

	switch (kind) {
	case EV_INGRESS:
		return dp->ing_present ? dp->ing.pace_ns : NEVER;
	case EV_RX:
		return dp->rx.done_ns;
	case EV_PORT:
		return dp->port.link.done_ns;
	case EV_DELAY:
		return dp->delay.head ? dp->delay.head->due_ns : NEVER;
	case EV_WIRE:
		return dp->tx.wire.done_ns;
	case EV_TIMER:
		return dp->tx.timer_ns;
	default:
		return dp->tx.pace_ns;
	}
}

static uint64_t next_event(const struct lab_emu *e, unsigned *dir, unsigned *kind)
{
	uint64_t best = NEVER;

	for (unsigned d = 0; d < 2; d++) {
		for (unsigned k = 0; k < EV_KINDS; k++) {
			uint64_t t = ev_time(e, d, k);

			if (t < best) {
				best = t;
				*dir = d;
				*kind = k;
			}
		}
	}
	return best;
}

uint64_t lab_emu_next_ns(const struct lab_emu *e)
{
	unsigned d, k;

	return next_event(e, &d, &k);
}

/* How long link l takes to send p at the least (link_begin without the carry). */
static uint64_t ser_ns(const struct link *l, const struct emu_pkt *p)
{
	return (uint64_t)p->f.wire_bytes * 1000000000ull / l->rate_Bps;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* An idle port takes a packet that fits whole at its full length (one that does not
 * fit is split, and its first frame may be short); a busy one is bounded by itself. */
static bool port_takes_whole(const struct port *pt, const struct emu_pkt *p)
{
	return pt->present && pt->link.done_ns == NEVER &&
	       (!pt->limit_bytes || p->pkt.len <= pt->limit_bytes);
}

#define MIN_WIRE_BYTES (LAB_ETH_MIN_FRAME + LAB_WIRE_OVERHEAD)

/*
 * When the first packet to reach the board at t or later is delivered at the
 * earliest: at once, or after its time on the shared bus, which is free no earlier
 * than it is now (claims only push that later). p's own bus time counts only when
 * the receive ring surely takes p (`sure`: nothing else can reach the ring before
 * it, and it has room now, which only grows); else p may be dropped there and the
 * packet behind it, however short, delivered instead.
 */
static uint64_t rx_after(const struct dirpath *dp, const struct emu_pkt *p, bool sure, uint64_t t)
{
	const struct bus *b = dp->rx.bus;
	uint32_t bytes = MIN_WIRE_BYTES;

	if (!dp->rx_present)
		return t;
	if (sure && dp->rx_frames + p->pkt.segs <= dp->rx_limit)
		bytes = p->f.wire_bytes;
	if (b->free_ns > t)
		t = b->free_ns;
	return t + (uint64_t)bytes * 1000000000ull / b->rate_Bps;
}

/* Direction d's part of lab_emu_next_delivery_ns (see emu.h). */
static uint64_t next_delivery(const struct dirpath *dp)
{
	const struct port *pt = &dp->port;
	const struct txpath *tx = &dp->tx;
	uint64_t best = NEVER, delay_after = dp->delay_first ? 0 : dp->delay_ns;
	const struct emu_pkt *p;

	/* Held by the download shaper: exact for its head; what comes behind it reaches
	 * the shaper no earlier than the bounds below. */
	if (dp->ing_present)
		best = dp->ing.pace_ns;
	/* Crossing the bus into the board: exact (unless the shaper holds it). */
	if (dp->rx_present && dp->rx.done_ns != NEVER)
		best = min_u64(best, dp->rx.done_ns);
	/* On the cable towards delivery: exact (plus the bus); towards the port: plus
	 * its sending. */
	if ((p = dp->delay.head)) {
		uint64_t t = p->due_ns;

		if (dp->delay_first && port_takes_whole(pt, p))
			t += ser_ns(&pt->link, p);
		best = min_u64(best, dp->delay_first ? t : rx_after(dp, p, true, t));
	}
	if (pt->present && (p = pt->link.q.head) && pt->link.done_ns != NEVER)
		best =
		    min_u64(best, rx_after(dp, p, !dp->delay.head, pt->link.done_ns + delay_after));
	if ((p = tx->wire.q.head) && tx->wire.done_ns != NEVER) {
		uint64_t t = tx->wire.done_ns + dp->delay_ns;
		bool whole = port_takes_whole(pt, p);

		if (whole)
			t += ser_ns(&pt->link, p);
		/* a port that splits it may hand the bus a short frame first */
		best = min_u64(best, rx_after(dp, p, whole && !dp->delay.head, t));
	} else {
		best = min_u64(best, min_u64(tx->timer_ns, tx->pace_ns));
	}
	return best;
}

uint64_t lab_emu_next_delivery_ns(const struct lab_emu *e)
{
	return min_u64(next_delivery(&e->dir[0]), next_delivery(&e->dir[1]));
}

uint64_t lab_emu_next_delivery_dir_ns(const struct lab_emu *e, enum lab_dir dir)
{
	return next_delivery(&e->dir[dir]);
}

void lab_emu_advance(struct lab_emu *e, uint64_t now_ns)
{
	unsigned d = 0, k = 0;
	uint64_t t;

	while ((t = next_event(e, &d, &k)) <= now_ns && t != NEVER) {
		struct txpath *tx = &e->dir[d].tx;

		if (t < e->now_ns)
			t = e->now_ns; /* never: kept monotonic for the qdiscs' sake */
		e->now_ns = t;
		switch (k) {
		case EV_INGRESS:
			e->dir[d].ing.pace_ns = NEVER;
			ingress_run(e, &e->dir[d], d, t);
			break;
		case EV_RX:
			rx_done(e, d, t);
			break;
		case EV_PORT:
			port_done(e, d, t);
			break;
		case EV_DELAY:
			delay_done(e, d, t);
			break;
		case EV_WIRE:
			wire_done(tx, t);
			break;
		case EV_TIMER:
			complete(tx, t);
			break;
		default:
			tx->pace_ns = NEVER;
			txpath_run(tx, t);
			break;
		}
	}
	if (now_ns > e->now_ns)
		e->now_ns = now_ns;
}

/* ---- input ---- */

int lab_emu_input(struct lab_emu *e, enum lab_dir dir, const uint8_t *buf, size_t len,
		  uint64_t now_ns)
{
	struct txpath *tx = &e->dir[dir == LAB_CLIENT_TX].tx;
	struct lab_frame f;
	struct emu_pkt *p;
	uint64_t t;
	int ret;

	lab_emu_advance(e, now_ns);
	t = e->now_ns;
	e->stage[LAB_STAGE_INPUT].pkts++;
	if (lab_frame_parse(buf, len, &f) < 0) {
		e->stage[LAB_STAGE_INPUT].drops++;
		e->stage[LAB_STAGE_INPUT].drop_frames++;
		return -EBADMSG;
	}
	if (e->mem_bytes + pkt_cost((uint32_t)len) > LAB_EMU_MEMORY_MAX ||
	    !(p = pkt_new(e, buf, (uint32_t)len, &f, t))) {
		e->stage[LAB_STAGE_INPUT].drops++;
		e->stage[LAB_STAGE_INPUT].drop_frames += f.segs ? f.segs : 1;
		return 1;
	}
	if (tx->dir == LAB_BOARD_TX && e->tsq) {
		int i = tsq_get(e, p->pkt.hash);

		if (i >= 0) {
			struct tsq_flow *fl = &e->tsq[i];

			if (fl->held.n || !tsq_fits(e, fl, p->pkt.len)) {
				e->stage[LAB_STAGE_TSQ].pkts++;
				e->tsq_held_bytes += p->pkt.len;
				pktq_push(&fl->held, p);
				return 0;
			}
			fl->bytes += p->pkt.len;
			p->tsq_charge = (int32_t)p->pkt.len;
		}
	}
	ret = qdisc_enqueue(tx, p, t);
	txpath_run(tx, t);
	return ret;
}

/* ---- setup ---- */

/* "pfifo_fast" and "pfifo" without their length option get txqueuelen, as Linux
 * sizes them from the device. */
static int spec_with_txqueuelen(const char *spec, uint32_t txqueuelen, char *out, size_t outlen)
{
	char kind[32] = "";
	const char *opt = NULL, *s = spec;
	size_t n;
	int len;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strcspn(s, " \t");
	if (n < sizeof(kind)) {
		memcpy(kind, s, n);
		kind[n] = '\0';
	}
	if (!strcmp(kind, "pfifo_fast"))
		opt = "txqueuelen";
	else if (!strcmp(kind, "pfifo"))
		opt = "limit";
	for (s += n; opt && *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		n = strcspn(s, " \t");
		if (n == strlen(opt) && !strncmp(s, opt, n))
			opt = NULL;
		s += n;
	}
	len = opt ? snprintf(out, outlen, "%s %s %u", spec, opt, txqueuelen)
		  : snprintf(out, outlen, "%s", spec);
	return len < 0 || (size_t)len >= outlen ? -EINVAL : 0;
}

static int txpath_init(struct lab_emu *e, struct txpath *tx, enum lab_dir dir, const char *key,
		       const char *spec, uint32_t txqueuelen, uint32_t ring, char *err,
		       size_t errlen)
{
	char full[LAB_SPEC_MAX + 32], msg[192];
	int ret;

	tx->e = e;
	tx->dir = dir;
	tx->stage = dir == LAB_BOARD_TX ? LAB_STAGE_QDISC : LAB_STAGE_CLIENT_QDISC;
	tx->pace_ns = NEVER;
	tx->timer_ns = NEVER;
	tx->wire.done_ns = NEVER;
	tx->env = (struct db_qdisc_env){.drop = qdisc_drop, .mark_ce = qdisc_mark, .ctx = tx};
	if (spec_with_txqueuelen(spec, txqueuelen, full, sizeof(full)) < 0) {
		snprintf(err, errlen, "%s: spec too long", key);
		return -EINVAL;
	}
	msg[0] = '\0';
	ret = db_qdisc_create(full, &tx->env, &tx->q, msg, sizeof(msg));
	if (ret < 0) {
		snprintf(err, errlen, "%s: \"%s\": %s", key, spec, msg[0] ? msg : strerror(-ret));
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	if (!ring) {
		snprintf(err, errlen, "%s: a ring of 0 descriptors sends nothing",
			 dir == LAB_BOARD_TX ? "ring" : "client_ring");
		return -EINVAL;
	}
	tx->nring = ring;
	tx->desc = calloc(ring, sizeof(*tx->desc));
	if (!tx->desc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

void lab_emu_destroy(struct lab_emu *e)
{
	if (!e)
		return;
	e->destroying = true;
	for (unsigned d = 0; d < 2; d++) {
		struct dirpath *dp = &e->dir[d];

		if (dp->tx.q)
			db_qdisc_destroy(dp->tx.q);
		if (dp->ing.q)
			db_qdisc_destroy(dp->ing.q);
		pktq_free(e, &dp->tx.requeue);
		pktq_free(e, &dp->tx.wire.q);
		pktq_free(e, &dp->port.link.q);
		pktq_free(e, &dp->delay);
		pktq_free(e, &dp->rx.q);
		free(dp->tx.desc);
		free(dp->tx.urb);
		hist_free(&dp->path);
	}
	if (e->tsq) {
		for (uint32_t i = 0; i < TSQ_SLOTS; i++)
			if (e->tsq[i].used)
				pktq_free(e, &e->tsq[i].held);
	}
	free(e->tsq);
	free(e->tsq_release);
	hist_free(&e->sojourn);
	hist_free(&e->limit);
	free(e->scratch);
	lab_pool_clear(&e->pool);
	free(e);
}

int lab_emu_create(const struct lab_profile *p, const struct lab_emu_hooks *hooks,
		   struct lab_emu **out, char *err, size_t errlen)
{
	struct lab_emu *e;
	struct dirpath *b, *c;
	int ret = -ENOMEM;
	uint32_t ring;

	if (!p->rate_bps || !p->client_rate_bps) {
		snprintf(err, errlen, "%s: a rate of 0 sends nothing",
			 p->rate_bps ? "client_rate" : "rate");
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->prof = *p;
	if (hooks)
		e->hooks = *hooks;
	b = &e->dir[LAB_BOARD_TX];
	c = &e->dir[LAB_CLIENT_TX];
	if (hist_init(&e->sojourn) < 0 || hist_init(&e->limit) < 0 || hist_init(&b->path) < 0 ||
	    hist_init(&c->path) < 0)
		goto fail_nomem;

	/* Board -> client. With URBs the descriptors are the frames the URBs may hold:
	 * ring x the most frames one takes (by count, or minimum frames by bytes). */
	ring = p->ring;
	if (p->urb_bytes && p->ring) {
		uint64_t per = p->urb_frames ? p->urb_frames
					     : p->urb_bytes / (LAB_ETH_MIN_FRAME + p->urb_overhead);

		per = per ? per : 1;
		ring = per * p->ring < URB_DESCS_MAX ? (uint32_t)(per * p->ring) : URB_DESCS_MAX;
	}
	ret = txpath_init(e, &b->tx, LAB_BOARD_TX, "qdisc", p->qdisc, p->txqueuelen, ring, err,
			  errlen);
	if (ret < 0)
		goto fail;
	if (p->urb_bytes) {
		b->tx.nurb = p->ring;
		b->tx.urb_bytes = p->urb_bytes;
		b->tx.urb_frames = p->urb_frames;
		b->tx.urb_overhead = p->urb_overhead;
		b->tx.urb = calloc(p->ring, sizeof(*b->tx.urb));
		if (!b->tx.urb)
			goto fail_nomem;
	}
	b->tx.report_empty = p->completion_empty;
	b->tx.split = !p->tso;
	b->tx.batch_frames = p->completion_frames ? p->completion_frames : 1;
	b->tx.batch_ns = p->completion_ns;
	b->tx.bql = p->bql;
	db_dql_init(&b->tx.dql, p->bql_hold_ns ? p->bql_hold_ns : DB_DQL_DEFAULT_HOLD_NS);
	if (db_dql_set_limits(&b->tx.dql, p->bql_limit_min, p->bql_limit_max) < 0) {
		snprintf(err, errlen, "bql_limit_min %u is above bql_limit_max %u",
			 p->bql_limit_min, p->bql_limit_max);
		ret = -EINVAL;
		goto fail;
	}
	b->tx.wire.rate_Bps = p->rate_bps;
	b->delay_ns = p->delay_ns;
	b->delay_first = true;
	b->port.present = p->switch_rate_bps != 0;
	b->port.link.rate_Bps = p->switch_rate_bps;
	b->port.link.done_ns = NEVER;
	b->port.limit_bytes = p->switch_buffer_bytes;
	b->port.stage = LAB_STAGE_SWITCH;

	/* Client -> board: a fast, well-behaved host. */
	ret = txpath_init(e, &c->tx, LAB_CLIENT_TX, "client_qdisc", p->client_qdisc, 1000,
			  p->client_ring, err, errlen);
	if (ret < 0)
		goto fail;
	c->tx.split = false;
	c->tx.batch_frames = 1;
	c->tx.bql = true;
	db_dql_init(&c->tx.dql, DB_DQL_DEFAULT_HOLD_NS);
	c->tx.wire.rate_Bps = p->client_rate_bps;
	c->delay_ns = p->delay_ns;
	c->delay_first = false;
	c->port.present = true;
	c->port.link.rate_Bps = p->rate_bps;
	c->port.link.done_ns = NEVER;
	c->port.limit_bytes = p->board_port_buffer_bytes;
	c->port.stage = LAB_STAGE_BOARD_PORT;

	/* The ceiling: the board's wire waits for the bus; shared, so does what it
	 * receives, through a receive ring of rx_ring frames. */
	b->rx.done_ns = NEVER;
	c->rx.done_ns = NEVER;
	if (p->ceiling_bps) {
		e->bus.rate_Bps = p->ceiling_bps;
		b->tx.wire.bus = &e->bus;
		if (p->ceiling_shared) {
			c->rx_present = true;
			c->rx.bus = &e->bus;
			c->rx.bus_only = true;
			c->rx_limit = p->rx_ring ? p->rx_ring : 1;
		}
	}

	/* The board's download shaper (an ifb on a real board). */
	c->ing.pace_ns = NEVER;
	if (p->ingress[0] && strcmp(p->ingress, "off")) {
		char msg[192] = "";

		c->ing.e = e;
		c->ing.dir = LAB_CLIENT_TX;
		c->ing.stage = LAB_STAGE_BOARD_INGRESS;
		c->ing.env = (struct db_qdisc_env){
		    .drop = qdisc_drop, .mark_ce = qdisc_mark, .ctx = &c->ing};
		ret = db_qdisc_create(p->ingress, &c->ing.env, &c->ing.q, msg, sizeof(msg));
		if (ret < 0) {
			snprintf(err, errlen, "ingress: \"%s\": %s", p->ingress,
				 msg[0] ? msg : strerror(-ret));
			ret = ret == -ENOMEM ? -ENOMEM : -EINVAL;
			goto fail;
		}
		c->ing_present = true;
	}

	if (p->tsq_bytes) {
		e->tsq_bytes = p->tsq_bytes;
		e->tsq = calloc(TSQ_SLOTS, sizeof(*e->tsq));
		e->tsq_release = calloc(TSQ_SLOTS, sizeof(*e->tsq_release));
		if (!e->tsq || !e->tsq_release)
			goto fail_nomem;
	}
	*out = e;
	return 0;

fail_nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
fail:
	lab_emu_destroy(e);
	return ret;
}

/* ---- telemetry ---- */

void lab_emu_telemetry(const struct lab_emu *e, uint64_t now_ns, struct lab_telemetry *t)
{
	const struct dirpath *b = &e->dir[LAB_BOARD_TX], *c = &e->dir[LAB_CLIENT_TX];
	struct db_qdisc_stats st;

	memset(t, 0, sizeof(*t));
	t->t_ns = now_ns;
	t->tsq_held_bytes = e->tsq_held_bytes;
	db_qdisc_stats(b->tx.q, &st);
	/* A split super-packet's frames waiting for descriptors are still the qdisc's,
	 * as Linux counts its requeued gso_skb. */
	t->qdisc_backlog_bytes = st.backlog_bytes + b->tx.requeue.bytes;
	t->qdisc_backlog_pkts = st.backlog_pkts + b->tx.requeue.n;
	t->ring_descs = b->tx.in_use;
	t->ring_urbs = b->tx.urb_used;
	t->ring_bytes = b->tx.ring_bytes;
	if (b->tx.bql) {
		t->bql_limit = b->tx.dql.limit;
		t->bql_inflight = db_dql_inflight(&b->tx.dql);
	}
	t->switch_backlog_bytes = b->port.link.q.bytes;
	db_qdisc_stats(c->tx.q, &st);
	t->client_qdisc_backlog_bytes = st.backlog_bytes;
	t->board_port_backlog_bytes = c->port.link.q.bytes;
	memcpy(t->stage, e->stage, sizeof(t->stage));
	t->board_wire_busy_ns = link_busy(&b->tx.wire, now_ns);
	t->client_wire_busy_ns = link_busy(&c->port.link, now_ns);
	t->board_tx_bytes = b->tx_bytes;
	t->client_tx_bytes = c->tx_bytes;
	t->board_tx_pkts = b->tx_pkts;
	t->client_tx_pkts = c->tx_pkts;
	t->memory_bytes = e->mem_bytes;
}

static void dist_of(const struct hist *h, struct lab_dist *d)
{
	d->count = h->count;
	d->p50_ns = hist_quantile(h, 0.50);
	d->p90_ns = hist_quantile(h, 0.90);
	d->p99_ns = hist_quantile(h, 0.99);
	d->max_ns = h->count ? h->max : 0;
}

void lab_emu_summary(const struct lab_emu *e, uint64_t now_ns, struct lab_emu_summary *s)
{
	const struct txpath *tx = &e->dir[LAB_BOARD_TX].tx;

	memset(s, 0, sizeof(*s));
	lab_emu_telemetry(e, now_ns, &s->last);
	dist_of(&e->sojourn, &s->qdisc_sojourn);
	dist_of(&e->dir[LAB_BOARD_TX].path, &s->board_path);
	dist_of(&e->dir[LAB_CLIENT_TX].path, &s->client_path);
	if (tx->bql) {
		s->bql_limit_max_seen = tx->limit_max_seen;
		s->bql_limit_p50 = (uint32_t)hist_quantile(&e->limit, 0.50);
	}
	s->ring_descs_max = tx->in_use_max;
	s->ring_urbs_max = tx->urb_used_max;
	s->qdisc_backlog_max_bytes = e->qdisc_backlog_max;
}
