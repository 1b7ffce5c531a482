/* SPDX-License-Identifier: MIT */
/* writer.c - a direction's deliveries written by a thread of their own (writer.h). */
#include "writer.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "frame.h"
#include "gro.h"

/* A record in the ring: this header, then len bytes, padded to 8. */
struct rec {
	uint32_t len; /* REC_WRAP: the rest of the ring is unused, go on at offset 0 */
	uint32_t pad;
	uint64_t due_ns;
};
#define REC_WRAP  UINT32_MAX
#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

struct lab_writer {
	struct lab_writer_config cfg;
	uint8_t *ring;
	/* Byte offsets that only grow; the position in the ring is modulo its size. */
	_Alignas(64) _Atomic uint64_t head; /* written by the producer */
	uint64_t ring_drops;		    /* the producer's */
	_Alignas(64) _Atomic uint64_t tail; /* written by the consumer */
	_Atomic uint32_t seq;		    /* the futex word: bumped to wake */
	_Atomic int sleeping;		    /* the consumer is about to sleep or sleeps */
	_Atomic int stopping;
	_Atomic uint64_t expect_ns; /* the next delivery's due time (producer) */
	_Atomic int may_spin;	    /* the loop's CPU budget allows spinning */
	struct lab_gro *gro;
	struct lab_writer_stats stats;
	pthread_t thread;
	bool started, joined;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
	__asm__ __volatile__("yield");
#endif
}

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* gro.h's output, and the no-GRO path: one write of `frames` delivered packets. */
static void emit(const uint8_t *buf, size_t len, unsigned frames, const uint64_t *due_ns,
		 size_t delivered_bytes, void *ctx)
{
	struct lab_writer *w = ctx;
	struct lab_writer_stats *s = &w->stats;
	uint64_t now = mono_ns();
	ssize_t n;

	for (unsigned i = 0; i < frames; i++)
		hist_record(&s->sched, now > due_ns[i] ? now - due_ns[i] : 0);
	n = write(w->cfg.fd, buf, len);
	hist_record(&s->write_cost, mono_ns() - now);
	s->writes++;
	if (n >= 0) {
		s->delivered_pkts += frames;
		s->delivered_bytes += delivered_bytes;
	} else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
		s->write_drops += frames;
	} else {
		s->write_errors += frames;
	}
}

/* Write what the ring held when we looked, merged by GRO. Returns false if empty. */
static bool drain(struct lab_writer *w)
{
	uint64_t head = atomic_load_explicit(&w->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&w->tail, memory_order_relaxed);

	if (head == tail)
		return false;
	while (tail != head) {
		size_t off = (size_t)(tail % LAB_WRITER_RING);
		const struct rec *h = (const struct rec *)(w->ring + off);

		if (h->len == REC_WRAP) {
			tail += LAB_WRITER_RING - off;
			continue;
		}
		if (w->cfg.no_gro)
			emit((const uint8_t *)(h + 1), h->len, 1, &h->due_ns, h->len, w);
		else
			lab_gro_offer(w->gro, (const uint8_t *)(h + 1), h->len, h->due_ns);
		tail += sizeof(*h) + ALIGN8(h->len);
		/* gro.h copies what it holds: the record's bytes are free now. */
		atomic_store_explicit(&w->tail, tail, memory_order_release);
	}
	if (!w->cfg.no_gro)
		lab_gro_flush(w->gro);
	return true;
}

/*
 * Spin while the next delivery is due soon (writer.h). True when something came
 * (or the writer is stopping), false when the wait ran out or was not allowed.
 */
static bool spin_for_next(struct lab_writer *w)
{
	uint64_t due = atomic_load_explicit(&w->expect_ns, memory_order_relaxed);
	uint64_t now = mono_ns();

	if (!atomic_load_explicit(&w->may_spin, memory_order_relaxed) || due == UINT64_MAX ||
	    due > now + LAB_WRITER_SPIN_NS)
		return false;
	while (now < due + LAB_WRITER_GRACE_NS) {
		if (atomic_load_explicit(&w->head, memory_order_acquire) !=
			atomic_load_explicit(&w->tail, memory_order_relaxed) ||
		    atomic_load_explicit(&w->stopping, memory_order_relaxed))
			return true;
		cpu_relax();
		now = mono_ns();
	}
	return false;
}

static void *writer_main(void *arg)
{
	struct lab_writer *w = arg;

	if (w->cfg.realtime) {
		struct sched_param sp = {.sched_priority = 1};

		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); /* best effort */
	}
	for (;;) {
		uint32_t seq;

		if (drain(w))
			continue;
		if (atomic_load(&w->stopping)) {
			if (!drain(w))
				break;
			continue;
		}
		/* Dekker with the producer's kick: announce, look again, then sleep on a
		 * value read before looking, so that a kick in between is not lost. */
		seq = atomic_load(&w->seq);
		atomic_store(&w->sleeping, 1);
		if (atomic_load(&w->head) == atomic_load_explicit(&w->tail, memory_order_relaxed) &&
		    !atomic_load(&w->stopping)) {
			futex_wait(&w->seq, seq);
			atomic_store(&w->sleeping, 0);
			spin_for_next(w); /* woken ahead of a delivery, or for one */
			continue;
		}
		atomic_store(&w->sleeping, 0);
	}
	return NULL;
}

int lab_writer_start(const struct lab_writer_config *c, struct lab_writer **out)
{
	struct lab_writer *w = calloc(1, sizeof(*w));
	struct lab_gro_out gout = {.emit = emit};
	int e;

	if (!w)
		return -ENOMEM;
	w->cfg = *c;
	atomic_init(&w->expect_ns, UINT64_MAX);
	gout.ctx = w;
	w->ring = malloc(LAB_WRITER_RING);
	if (!w->ring || hist_init(&w->stats.sched) < 0 || hist_init(&w->stats.write_cost) < 0 ||
	    lab_gro_new(&gout, &w->gro) < 0) {
		lab_writer_free(w);
		return -ENOMEM;
	}
	memset(w->ring, 0, LAB_WRITER_RING); /* no page faults while the link runs */
	e = pthread_create(&w->thread, NULL, writer_main, w);
	if (e) {
		lab_writer_free(w);
		return -e;
	}
	w->started = true;
	if (c->name)
		pthread_setname_np(w->thread, c->name); /* cosmetic: ps, perf */
	*out = w;
	return 0;
}

int lab_writer_push(struct lab_writer *w, const uint8_t *buf, size_t len, uint64_t due_ns)
{
	uint64_t head = atomic_load_explicit(&w->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&w->tail, memory_order_acquire);
	size_t off = (size_t)(head % LAB_WRITER_RING), need = sizeof(struct rec) + ALIGN8(len);
	size_t skip = off + need > LAB_WRITER_RING ? LAB_WRITER_RING - off : 0;
	struct rec *h;

	if (len > LAB_MAX_PACKET || head + skip + need - tail > LAB_WRITER_RING) {
		w->ring_drops++;
		return -ENOBUFS;
	}
	if (skip) { /* no room before the end: mark the rest unused, start over at 0 */
		((struct rec *)(w->ring + off))->len = REC_WRAP;
		head += skip;
		off = 0;
	}
	h = (struct rec *)(w->ring + off);
	h->len = (uint32_t)len;
	h->due_ns = due_ns;
	memcpy(h + 1, buf, len);
	atomic_store_explicit(&w->head, head + need, memory_order_release);
	return 0;
}

void lab_writer_kick(struct lab_writer *w)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&w->sleeping)) {
		atomic_fetch_add(&w->seq, 1);
		futex_wake(&w->seq);
	}
}

void lab_writer_expect(struct lab_writer *w, uint64_t due_ns, bool may_spin)
{
	atomic_store_explicit(&w->expect_ns, due_ns, memory_order_relaxed);
	atomic_store_explicit(&w->may_spin, may_spin, memory_order_relaxed);
}

void lab_writer_stop(struct lab_writer *w)
{
	if (!w || !w->started || w->joined)
		return;
	atomic_store(&w->stopping, 1);
	atomic_fetch_add(&w->seq, 1);
	futex_wake(&w->seq);
	pthread_join(w->thread, NULL);
	w->joined = true;
	w->stats.ring_drops = w->ring_drops;
}

const struct lab_writer_stats *lab_writer_stats(const struct lab_writer *w)
{
	return &w->stats;
}

void lab_writer_free(struct lab_writer *w)
{
	if (!w)
		return;
	lab_writer_stop(w);
	lab_gro_free(w->gro);
	hist_free(&w->stats.sched);
	hist_free(&w->stats.write_cost);
	free(w->ring);
	free(w);
}
