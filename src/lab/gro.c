/* SPDX-License-Identifier: MIT */
/* gro.c - merge each flow's in-order TCP segments of one delivery step (gro.h). */
#include "gro.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	bool used;
	uint64_t age; /* when it began, in offers: the oldest is emitted first */
	uint8_t *buf; /* LAB_MAX_PACKET bytes */
	size_t len;
	struct lab_frame f; /* buf's parse */
	unsigned frames;
	uint64_t due_ns[LAB_MAX_SEGS];
	size_t delivered_bytes;
};

struct lab_gro {
	struct lab_gro_out out;
	struct slot slot[LAB_GRO_FLOWS];
	uint64_t offered, emitted;
};

int lab_gro_new(const struct lab_gro_out *out, struct lab_gro **g)
{
	struct lab_gro *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->out = *out;
	for (int i = 0; i < LAB_GRO_FLOWS; i++) {
		if (!(n->slot[i].buf = malloc(LAB_MAX_PACKET))) {
			lab_gro_free(n);
			return -ENOMEM;
		}
	}
	*g = n;
	return 0;
}

void lab_gro_free(struct lab_gro *g)
{
	if (!g)
		return;
	for (int i = 0; i < LAB_GRO_FLOWS; i++)
		free(g->slot[i].buf);
	free(g);
}

static void emit(struct lab_gro *g, const uint8_t *buf, size_t len, unsigned frames,
		 const uint64_t *due_ns, size_t bytes)
{
	g->emitted++;
	g->out.emit(buf, len, frames, due_ns, bytes, g->out.ctx);
}

static void emit_slot(struct lab_gro *g, struct slot *s)
{
	s->used = false;
	emit(g, s->buf, s->len, s->frames, s->due_ns, s->delivered_bytes);
}

static struct slot *find(struct lab_gro *g, const struct lab_frame *f)
{
	for (int i = 0; i < LAB_GRO_FLOWS; i++)
		if (g->slot[i].used && !memcmp(&g->slot[i].f.key, &f->key, sizeof(f->key)))
			return &g->slot[i];
	return NULL;
}

/* A free slot; when every one is in use, the oldest is emitted for it. */
static struct slot *take_slot(struct lab_gro *g)
{
	struct slot *oldest = &g->slot[0];

	for (int i = 0; i < LAB_GRO_FLOWS; i++) {
		if (!g->slot[i].used)
			return &g->slot[i];
		if (g->slot[i].age < oldest->age)
			oldest = &g->slot[i];
	}
	emit_slot(g, oldest);
	return oldest;
}

/* A super-packet ends with a short segment or PSH (gro.h), or when it is full. */
static bool ended(const struct slot *s)
{
	const uint8_t *th = s->buf + LAB_VNET_HDR_LEN + s->f.l4_off;
	uint32_t payload = s->f.ip_len - s->f.hdr_len;

	return (th[13] & 0x08) || !s->f.gso_size || payload % s->f.gso_size ||
	       s->frames == LAB_MAX_SEGS;
}

void lab_gro_offer(struct lab_gro *g, const uint8_t *buf, size_t len, uint64_t due_ns)
{
	struct lab_frame f;
	struct slot *s;

	g->offered++;
	if (lab_frame_parse(buf, len, &f) < 0) {
		emit(g, buf, len, 1, &due_ns, len);
		return;
	}
	if ((s = find(g, &f))) {
		if (s->frames < LAB_MAX_SEGS &&
		    !lab_frame_merge(s->buf, &s->len, LAB_MAX_PACKET, &s->f, buf, &f)) {
			s->due_ns[s->frames++] = due_ns;
			s->delivered_bytes += len;
			if (ended(s))
				emit_slot(g, s);
			return;
		}
		emit_slot(g, s); /* what it holds goes first: the flow keeps its order */
	}
	if (!lab_frame_mergeable(buf, &f) || len > LAB_MAX_PACKET) {
		emit(g, buf, len, 1, &due_ns, len);
		return;
	}
	s = take_slot(g);
	memcpy(s->buf, buf, len);
	*s = (struct slot){.used = true,
			   .age = g->offered,
			   .buf = s->buf,
			   .len = len,
			   .f = f,
			   .frames = 1,
			   .due_ns = {due_ns},
			   .delivered_bytes = len};
}

void lab_gro_flush(struct lab_gro *g)
{
	for (;;) {
		struct slot *oldest = NULL;

		for (int i = 0; i < LAB_GRO_FLOWS; i++)
			if (g->slot[i].used && (!oldest || g->slot[i].age < oldest->age))
				oldest = &g->slot[i];
		if (!oldest)
			return;
		emit_slot(g, oldest);
	}
}

void lab_gro_counts(const struct lab_gro *g, uint64_t *offered, uint64_t *emitted)
{
	*offered = g->offered;
	*emitted = g->emitted;
}
