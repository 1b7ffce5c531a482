/* SPDX-License-Identifier: MIT */
/* run.c - the lab's event loop between the two tun devices (run.h). */
#include "run.h"
#include "base/array.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hist.h"
#include "frame.h"
#include "gro.h"
#include "telemetry.h"
#include "writer.h"

static void hist_dist(const struct hist *h, struct lab_dist *d)
{
	d->count = h->count;
	d->p50_ns = hist_quantile(h, 0.50);
	d->p90_ns = hist_quantile(h, 0.90);
	d->p99_ns = hist_quantile(h, 0.99);
	d->max_ns = h->max;
}

/* The recent wake-up lateness, for the spin margin (see run.h). */
#define LATE_SAMPLES 128
#define LATE_EVERY   32

/* A direction's GRO output: the lab_run and the direction. */
struct gro_ctx {
	struct lab_run *r;
	enum lab_dir dir;
};

struct lab_run {
	struct lab_profile profile;
	struct lab_gro *gro[2]; /* writes from the loop only */
	struct gro_ctx gro_ctx[2];
	struct lab_writer *writer[2]; /* by direction, with writer_threads; else NULL */
	struct lab_emu *emu;
	const struct lab_run_config *cfg;
	int epfd, timerfd;
	bool use_timerfd; /* no epoll_pwait2 (ENOSYS): sleep on a timerfd instead */
	bool stop, ran;
	uint8_t *buf;
	struct hist sched, wake, write_cost;
	uint64_t late[LATE_SAMPLES];
	unsigned nlate;
	uint64_t margin95_ns, margin99_ns;  /* the lateness quantiles, + bookkeeping */
	bool cheap;			    /* the last window used < half the CPU budget */
	bool spin_ok;			    /* this window's CPU is within LAB_RUN_CPU_BUDGET */
	uint64_t cpu_prev_ns, wall_prev_ns; /* the window's start */
	struct lab_run_stats stats;
};

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/*
 * The loop is the link's hardware: at the lowest real-time priority it runs before
 * the endpoints' processes (and anything else of the default class) the moment its
 * timer fires, instead of waiting for a time slice. Children never inherit it.
 * False when not allowed (a container without CAP_SYS_NICE): the loop still works.
 */
static bool set_realtime(bool on)
{
	struct sched_param sp = {.sched_priority = on ? 1 : 0};

	int policy = (on ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK;

	return sched_setscheduler(0, policy, &sp) == 0;
}

/* Write one packet of `frames` deliveries to direction dir's receiving tun. */
static void write_tun(const uint8_t *buf, size_t len, unsigned frames, const uint64_t *due_ns,
		      size_t delivered_bytes, void *ctx)
{
	struct gro_ctx *g = ctx;
	struct lab_run *r = g->r;
	struct lab_dir_stats *d = &r->stats.dir[g->dir];
	int fd = g->dir == LAB_BOARD_TX ? r->cfg->client_tun : r->cfg->board_tun;
	uint64_t now = mono_ns();
	ssize_t n;

	for (unsigned i = 0; i < frames; i++)
		hist_record(&r->sched, now > due_ns[i] ? now - due_ns[i] : 0);
	n = write(fd, buf, len);
	hist_record(&r->write_cost, mono_ns() - now);
	d->writes++;
	if (n >= 0) {
		d->delivered_pkts += frames;
		d->delivered_bytes += delivered_bytes;
	} else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
		d->write_drops += frames;
	} else {
		d->write_errors += frames;
	}
}

static void deliver(enum lab_dir dir, const uint8_t *buf, size_t len, uint64_t due_ns, void *ctx)
{
	struct lab_run *r = ctx;

	if (r->writer[dir])
		lab_writer_push(r->writer[dir], buf, len, due_ns); /* a full ring counts it */
	else if (r->cfg->no_gro)
		write_tun(buf, len, 1, &due_ns, len, &r->gro_ctx[dir]);
	else
		lab_gro_offer(r->gro[dir], buf, len, due_ns);
}

/* After each step of the emulator: what it delivered is written (gro.h). */
static void flush_deliveries(struct lab_run *r)
{
	if (r->writer[0]) {
		for (int d = 0; d < 2; d++) {
			lab_writer_expect(r->writer[d],
					  lab_emu_next_delivery_dir_ns(r->emu, (enum lab_dir)d),
					  r->spin_ok);
			lab_writer_kick(r->writer[d]);
		}
		return;
	}
	lab_gro_flush(r->gro[LAB_BOARD_TX]);
	lab_gro_flush(r->gro[LAB_CLIENT_TX]);
}

int lab_run_new(const struct lab_profile *p, struct lab_run **out, char *err, size_t errlen)
{
	struct lab_emu_hooks hooks = {.deliver = deliver};
	struct lab_run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->epfd = r->timerfd = -1;
	if (!(r->buf = malloc(LAB_MAX_PACKET)) || hist_init(&r->sched) < 0 ||
	    hist_init(&r->wake) < 0 || hist_init(&r->write_cost) < 0) {
		snprintf(err, errlen, "out of memory");
		lab_run_free(r);
		return -ENOMEM;
	}
	for (int d = 0; d < 2; d++) {
		struct lab_gro_out gout = {.emit = write_tun, .ctx = &r->gro_ctx[d]};

		r->gro_ctx[d] = (struct gro_ctx){.r = r, .dir = (enum lab_dir)d};
		if (lab_gro_new(&gout, &r->gro[d]) < 0) {
			snprintf(err, errlen, "out of memory");
			lab_run_free(r);
			return -ENOMEM;
		}
	}
	r->profile = *p;
	r->margin95_ns = r->margin99_ns = 20000;
	r->spin_ok = true;
	hooks.ctx = r;
	ret = lab_emu_create(&r->profile, &hooks, &r->emu, err, errlen);
	if (ret < 0) {
		lab_run_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void lab_run_free(struct lab_run *r)
{
	if (!r)
		return;
	if (r->emu)
		lab_emu_destroy(r->emu);
	lab_writer_free(r->writer[0]);
	lab_writer_free(r->writer[1]);
	lab_gro_free(r->gro[0]);
	lab_gro_free(r->gro[1]);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->timerfd >= 0)
		close(r->timerfd);
	hist_free(&r->sched);
	hist_free(&r->wake);
	hist_free(&r->write_cost);
	free(r->buf);
	free(r);
}

uint64_t lab_run_error_bound_ns(const struct lab_profile *p)
{
	uint64_t frame = (uint64_t)p->mtu + LAB_ETH_HDR_LEN + LAB_WIRE_OVERHEAD;

	return p->rate_bps ? 2 * frame * 1000000000ull / p->rate_bps : 0;
}

const struct lab_run_stats *lab_run_stats(const struct lab_run *r)
{
	return &r->stats;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The spin margin in use. Spinning past the 99th percentile pays when few events
 * come (a fast link of big packets); when they are many, the 95th keeps the CPU for
 * the endpoints. */
static uint64_t margin(const struct lab_run *r)
{
	return r->cheap ? r->margin99_ns : r->margin95_ns;
}

static uint64_t spin_cap(uint64_t margin_ns)
{
	return margin_ns < LAB_RUN_SPIN_MAX_NS ? margin_ns : LAB_RUN_SPIN_MAX_NS;
}

/* A sleep that timed out woke `late` ns after it was asked to. */
static void note_lateness(struct lab_run *r, uint64_t late)
{
	uint64_t sorted[LATE_SAMPLES];

	r->late[r->nlate++ % LATE_SAMPLES] = late;
	if (r->nlate < LATE_SAMPLES || r->nlate % LATE_EVERY)
		return;
	memcpy(sorted, r->late, sizeof(sorted));
	qsort(sorted, LATE_SAMPLES, sizeof(*sorted), cmp_u64);
	/* About the 95th or 99th percentile, plus the wake-up's own bookkeeping. */
	r->margin95_ns = spin_cap(sorted[LATE_SAMPLES * 95 / 100] + 2000);
	r->margin99_ns = spin_cap(sorted[LATE_SAMPLES * 99 / 100] + 2000);
}

static void drain_timer(struct lab_run *r)
{
	uint64_t ticks;

	if (read(r->timerfd, &ticks, sizeof(ticks)) < 0)
		return; /* EAGAIN: already read */
}

/* Sleep until `until` (absolute) or an fd event. Number of events, or -errno. */
static int sleep_until(struct lab_run *r, uint64_t now, uint64_t until, struct epoll_event *ev,
		       int maxev)
{
	uint64_t wait = until - now;
	int n;

	if (!r->use_timerfd && !r->cfg->force_timerfd) {
		struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000ull),
				      .tv_nsec = (long)(wait % 1000000000ull)};

		n = epoll_pwait2(r->epfd, ev, maxev, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n < 0 ? -errno : n;
	}
	if (!r->use_timerfd) { /* no epoll_pwait2 (Linux < 5.11): from now on a timerfd */
		r->use_timerfd = true;
		r->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (r->timerfd < 0)
			return -errno;
		struct epoll_event tev = {.events = EPOLLIN, .data.fd = r->timerfd};

		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->timerfd, &tev) < 0)
			return -errno;
	}
	struct itimerspec its = {.it_value = {.tv_sec = (time_t)(until / 1000000000ull),
					      .tv_nsec = (long)(until % 1000000000ull)}};

	if (timerfd_settime(r->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	n = epoll_wait(r->epfd, ev, maxev, -1);
	if (n < 0)
		return -errno;
	/* The timer's own event is a timeout, as epoll_pwait2's would be: drop it. */
	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd != r->timerfd)
			continue;
		drain_timer(r);
		ev[i--] = ev[--n];
	}
	return n;
}

/*
 * The loop woke `margin` before a delivery due at `deadline`: wake the writer that
 * will write it now, so that it is up and spinning when the delivery comes instead
 * of waking only then (writer.h).
 */
static void prewake_writers(struct lab_run *r, uint64_t deadline)
{
	if (!r->writer[0])
		return;
	for (int d = 0; d < 2; d++)
		if (lab_emu_next_delivery_dir_ns(r->emu, (enum lab_dir)d) <=
		    deadline + LAB_WRITER_GRACE_NS)
			lab_writer_kick(r->writer[d]);
}

/*
 * Wait for an fd event or until `deadline`. When `precise`, sleep only until the
 * margin before it and spin the rest; else (telemetry only) sleep all the way.
 */
static int wait_events(struct lab_run *r, uint64_t deadline, bool precise, struct epoll_event *ev,
		       int maxev)
{
	uint64_t now = mono_ns(), until;
	bool timed = precise; /* a delivery, not only telemetry */
	int n;

	if (deadline <= now)
		return 0;
	precise = precise && r->spin_ok;
	until = precise ? (deadline > now + margin(r) ? deadline - margin(r) : now) : deadline;
	if (until > now) {
		n = sleep_until(r, now, until, ev, maxev);
		if (n < 0 && n != -EINTR)
			return n;
		if (n > 0)
			return n;
		now = mono_ns();
		if (n == 0 && now >= until)
			note_lateness(r, now - until);
		if (precise)
			prewake_writers(r, deadline);
	}
	/* Spin the last stretch, still taking packets as they come. */
	while (precise && now < deadline) {
		n = epoll_wait(r->epfd, ev, maxev, 0);
		if (n != 0)
			return n < 0 && errno != EINTR ? -errno : (n < 0 ? 0 : n);
		now = mono_ns();
	}
	if (timed)
		hist_record(&r->wake, now - deadline);
	return 0;
}

/* Read what a tun holds, at most a batch, into the emulator. */
static void read_tun(struct lab_run *r, int fd, enum lab_dir dir)
{
	struct lab_dir_stats *d = &r->stats.dir[dir];

	for (unsigned i = 0; i < LAB_RUN_BATCH; i++) {
		ssize_t n = read(fd, r->buf, LAB_MAX_PACKET);
		uint64_t t;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		t = mono_ns();
		d->read_pkts++;
		d->read_bytes += (uint64_t)n;
		/* Events due before this packet run first, so the model sees time in order. */
		lab_emu_advance(r->emu, t);
		if (lab_emu_input(r->emu, dir, r->buf, (size_t)n, t) == -EBADMSG)
			r->stats.input_errors++;
		flush_deliveries(r);
	}
}

static void read_signals(struct lab_run *r)
{
	struct signalfd_siginfo si[8];
	ssize_t n;

	while ((n = read(r->cfg->signal_fd, si, sizeof(si))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(*si); i++)
			if (r->cfg->on_signal(&si[i], r->cfg->ctx))
				r->stop = true;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Once a window (each telemetry tick): spin in the next one only if this one used
 * less than LAB_RUN_CPU_BUDGET of a CPU. Where waking up takes tens of microseconds
 * (VMs), spinning would otherwise fill the CPU at 100 Mbit/s already, and a
 * real-time task that uses 95% of a CPU is throttled by the kernel for 50 ms.
 */
static void cpu_budget(struct lab_run *r, uint64_t now)
{
	uint64_t cpu = thread_cpu_ns(), wall = now - r->wall_prev_ns;

	if (wall) {
		double used = (double)(cpu - r->cpu_prev_ns);

		r->spin_ok = used < LAB_RUN_CPU_BUDGET * (double)wall;
		r->cheap = used < LAB_RUN_CPU_BUDGET / 2 * (double)wall;
	}
	if (!r->spin_ok)
		r->stats.spin_off_windows++;
	r->cpu_prev_ns = cpu;
	r->wall_prev_ns = now;
}

static void sample_telemetry(struct lab_run *r, struct lab_telemetry *prev, uint64_t now,
			     uint64_t t0)
{
	struct lab_telemetry cur;
	int e;

	lab_emu_telemetry(r->emu, now, &cur);
	if (r->cfg->telemetry && !r->stats.telemetry_error) {
		e = lab_telemetry_sample(r->cfg->telemetry, prev, &cur, t0);
		if (e < 0)
			r->stats.telemetry_error = e;
		else
			r->stats.telemetry_samples++;
	}
	*prev = cur;
}

/* A writer thread per direction (writer.h), each writing to its receiving tun. */
static int start_writers(struct lab_run *r, char *err, size_t errlen)
{
	static const char *const names[2] = {"lab-to-client", "lab-to-board"};
	int e;

	for (int d = 0; d < 2; d++) {
		struct lab_writer_config wc = {
		    .fd = d == LAB_BOARD_TX ? r->cfg->client_tun : r->cfg->board_tun,
		    .no_gro = r->cfg->no_gro,
		    .realtime = r->stats.realtime,
		    .name = names[d],
		};

		e = lab_writer_start(&wc, &r->writer[d]);
		if (e < 0) {
			snprintf(err, errlen, "cannot start a writer thread: %s", strerror(-e));
			return e;
		}
	}
	return 0;
}

/* Join the writers; their counters and distributions become the run's. */
static void stop_writers(struct lab_run *r)
{
	for (int d = 0; d < 2; d++) {
		const struct lab_writer_stats *ws;
		struct lab_dir_stats *ds = &r->stats.dir[d];

		if (!r->writer[d])
			continue;
		lab_writer_stop(r->writer[d]);
		ws = lab_writer_stats(r->writer[d]);
		ds->delivered_pkts += ws->delivered_pkts;
		ds->delivered_bytes += ws->delivered_bytes;
		ds->write_drops += ws->write_drops + ws->ring_drops;
		ds->write_errors += ws->write_errors;
		ds->writes += ws->writes;
		hist_add(&r->sched, &ws->sched);
		hist_add(&r->write_cost, &ws->write_cost);
	}
}

static int add_fd(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int lab_run_loop(struct lab_run *r, const struct lab_run_config *c, char *err, size_t errlen)
{
	struct epoll_event ev[8];
	struct lab_telemetry prev;
	struct timespec wall;
	uint64_t t0, now, next, tel_next;
	double cpu0;
	bool precise;
	int n, ret = 0;

	if (r->ran)
		return -EALREADY;
	r->ran = true;
	r->cfg = c;
	/* The default 50 us of timer slack would be most of our error budget. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0 || add_fd(r->epfd, c->board_tun) < 0 ||
	    add_fd(r->epfd, c->client_tun) < 0 || add_fd(r->epfd, c->signal_fd) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot set up epoll: %s", strerror(errno));
		return ret;
	}
	r->stats.realtime = set_realtime(true);
	if (c->writer_threads && (ret = start_writers(r, err, errlen)) < 0) {
		stop_writers(r);
		if (r->stats.realtime)
			set_realtime(false);
		return ret;
	}
	cpu0 = cpu_seconds();
	t0 = mono_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	lab_emu_telemetry(r->emu, t0, &prev);
	if (c->telemetry) {
		struct lab_telemetry_header h = {
		    .profile = r->profile.name,
		    .describe = c->describe ? c->describe : "",
		    .interval_ms = (unsigned)(LAB_RUN_TELEMETRY_NS / 1000000),
		    .start_unix_s = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9,
		};

		r->stats.telemetry_error = lab_telemetry_begin(c->telemetry, &h);
	}
	tel_next = t0 + LAB_RUN_TELEMETRY_NS;
	r->cpu_prev_ns = thread_cpu_ns();
	r->wall_prev_ns = t0;
	while (!r->stop) {
		/* Only deliveries touch the world: other events run late, at their own
		 * times, in the next advance. A delivery just after the telemetry tick
		 * is waited for precisely rather than slept towards. */
		next = lab_emu_next_delivery_ns(r->emu);
		precise = next != UINT64_MAX && next <= tel_next + margin(r);
		n = wait_events(r, precise ? next : tel_next, precise, ev, (int)COUNT(ev));
		if (n < 0) {
			ret = n;
			snprintf(err, errlen, "waiting for packets failed: %s", strerror(-n));
			break;
		}
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == c->board_tun)
				read_tun(r, c->board_tun, LAB_BOARD_TX);
			else if (ev[i].data.fd == c->client_tun)
				read_tun(r, c->client_tun, LAB_CLIENT_TX);
			else if (ev[i].data.fd == c->signal_fd)
				read_signals(r);
			else if (ev[i].data.fd == r->timerfd)
				drain_timer(r); /* an old expiry, seen while spinning */
		}
		now = mono_ns();
		lab_emu_advance(r->emu, now);
		flush_deliveries(r);
		if (now >= tel_next) {
			sample_telemetry(r, &prev, now, t0);
			cpu_budget(r, now);
			tel_next += LAB_RUN_TELEMETRY_NS;
			/* Fell behind (stopped, swapped out): no burst of samples. */
			if (tel_next <= now)
				tel_next = now + LAB_RUN_TELEMETRY_NS;
		}
	}
	flush_deliveries(r);
	r->stats.writer_threads = r->writer[0] != NULL;
	stop_writers(r); /* they write what is queued first */
	if (r->stats.realtime)
		set_realtime(false);
	now = mono_ns();
	r->stats.duration_ns = now - t0;
	r->stats.cpu_s = cpu_seconds() - cpu0;
	r->stats.spin_margin_ns = margin(r);
	hist_dist(&r->sched, &r->stats.sched_error);
	hist_dist(&r->wake, &r->stats.wake_late);
	hist_dist(&r->write_cost, &r->stats.tun_write);
	lab_emu_summary(r->emu, now, &r->stats.emu);
	return ret;
}
