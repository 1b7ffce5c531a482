/* SPDX-License-Identifier: MIT */
/* meter/rpm-client.c - meter/rpm-client.h: the responsiveness test's load, probes and stages. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "debloat/rpm.h"
#include "meter/rpm-client.h"

#define MAX_LOAD (2 * 64) /* --mnp is at most 64 per direction */
#define MAX_SELF 64	  /* self probes in flight */

enum sample_kind { S_TCP, S_HTTP_F, S_HTTP_L, S_TLS, S_KINDS };

struct sample {
	unsigned interval;
	uint8_t kind;
	double ms;
};

struct run;

struct load_conn {
	struct run *run;
	struct hc_conn *c;
	enum rpm_dirs dir;
	bool connected;
	uint64_t bytes, bytes_at_interval;
};

struct foreign_probe {
	struct run *run;
	struct hc_conn *c; /* NULL: free */
	double t_start, t_req;
	int status;
};

struct self_probe {
	struct run *run;
	bool busy;
	double t_req;
	int status;
};

struct run {
	const struct rpm_params *p;
	struct hc_client *cl;
	const struct sockaddr *addr;
	socklen_t alen;
	const struct nq_config *cfg;
	struct test_result *r;
	struct series *series[2 + S_KINDS]; /* download, upload, then one per sample kind */
	double t0, t0_real;		    /* test start: monotonic and unix time */
	uint64_t seed;
	/* the stage */
	struct result_rpm_stage *st;
	enum rpm_dirs dirs;
	double stage_t0, rate;
	unsigned interval;
	struct rpm_window goodput, responsiveness;
	struct rpm_window dir_goodput[2]; /* download, upload: averages only */
	struct load_conn load[MAX_LOAD];
	size_t nload;
	struct foreign_probe foreign[RPM_MAX_FOREIGN];
	struct self_probe self[MAX_SELF];
	struct sample *samples;
	size_t nsamples, samples_cap;
	int err;
	char why[160];
	/* the result's grid */
	size_t step;		  /* the next value to write, x = step * step_s */
	uint64_t step_bytes[2];	  /* download, upload bytes in the current step */
	uint64_t tick_bytes[2];	  /* download, upload bytes since the last progress call */
	double step_sum[S_KINDS]; /* probe samples in the current step */
	unsigned step_n[S_KINDS];
};

void rpm_params_default(struct rpm_params *p)
{
	*p = (struct rpm_params){
	    .mad = RPM_DEFAULT_MAD,
	    .tmp = RPM_DEFAULT_TMP,
	    .mnp = RPM_DEFAULT_MNP,
	    .mps = RPM_DEFAULT_MPS,
	    .id_s = RPM_DEFAULT_ID_S,
	    .sdt = RPM_DEFAULT_SDT,
	    .ptc = RPM_DEFAULT_PTC,
	    .max_s = RPM_DEFAULT_MAX_S,
	    .proto = HC_H2C,
	    .dirs = RPM_BOTH,
	};
}

__attribute__((format(printf, 3, 4))) static void stage_fail(struct run *run, int err,
							     const char *fmt, ...)
{
	va_list ap;

	if (run->err)
		return;
	run->err = err;
	va_start(ap, fmt);
	vsnprintf(run->why, sizeof(run->why), fmt, ap);
	va_end(ap);
}

/* xorshift64: which load connection a self probe goes on (the draft: at random). */
static uint64_t next_random(struct run *run)
{
	run->seed ^= run->seed << 13;
	run->seed ^= run->seed >> 7;
	run->seed ^= run->seed << 17;
	return run->seed;
}

static void add_sample(struct run *run, enum sample_kind kind, double ms)
{
	if (!isfinite(ms) || ms < 0)
		return;
	if (run->nsamples == run->samples_cap) {
		int err;
		struct sample *s =
		    array_grow(run->samples, &run->samples_cap, sizeof(*s), 256, SIZE_MAX, &err);

		if (!s) {
			stage_fail(run, -ENOMEM, "%s", "out of memory");
			return;
		}
		run->samples = s;
	}
	run->samples[run->nsamples++] =
	    (struct sample){.interval = run->interval, .kind = (uint8_t)kind, .ms = ms};
	run->step_sum[kind] += ms;
	run->step_n[kind]++;
	if (kind == S_HTTP_L)
		run->st->self_probes++;
	else if (kind == S_HTTP_F)
		run->st->foreign_probes++;
	if (series_add_raw(run->series[2 + kind], run->t0_real + (hc_now() - run->t0), ms,
			   (uint32_t)run->series[2 + kind]->nraw) < 0)
		stage_fail(run, -ENOMEM, "%s", "out of memory");
}

/* ---- load connections ---- */

static void load_start(struct load_conn *lc);

static void load_status(void *ctx, int status)
{
	struct load_conn *lc = ctx;

	if (status != 200)
		stage_fail(lc->run, -EBADMSG, "the server answered %s with a status other than 200",
			   lc->dir == RPM_DOWNLOAD ? "large_download_url" : "upload_url");
}

static void load_data(void *ctx, const uint8_t *d, size_t n)
{
	struct load_conn *lc = ctx;

	(void)d;
	lc->bytes += n;
	lc->run->step_bytes[lc->dir == RPM_UPLOAD] += n;
	lc->run->tick_bytes[lc->dir == RPM_UPLOAD] += n;
}

static void load_done(void *ctx, int err)
{
	struct load_conn *lc = ctx;

	if (err < 0) {
		stage_fail(lc->run, err, "a load connection failed: %s", strerror(-err));
		return;
	}
	load_start(lc); /* the server ended the object: ask again */
}

static const struct hc_stream_ops load_stream_ops = {load_status, load_data, load_done};

static void load_start(struct load_conn *lc)
{
	const struct nq_url *u =
	    lc->dir == RPM_UPLOAD ? &lc->run->cfg->upload : &lc->run->cfg->large;
	int r = hc_request(lc->c, u->path, lc->dir == RPM_UPLOAD, &load_stream_ops, lc);

	if (r < 0 && r != -EBUSY)
		stage_fail(lc->run, r, "cannot start a load request: %s", strerror(-r));
}

static void load_connected(void *ctx, struct hc_conn *c, double connect_s)
{
	struct load_conn *lc = ctx;

	(void)connect_s;
	if (hc_conn_proto(c) != lc->run->p->proto) {
		stage_fail(lc->run, -EPROTO,
			   "the server chose %s for a load connection (ALPN): try %s",
			   hc_conn_proto(c) == HC_HTTP1 ? "HTTP/1.1" : "HTTP/2",
			   hc_conn_proto(c) == HC_HTTP1 ? "--http1" : "--http2");
		return;
	}
	lc->connected = true;
	load_start(lc);
}

static void load_failed(void *ctx, struct hc_conn *c, int err)
{
	struct load_conn *lc = ctx;

	stage_fail(lc->run, err, "a load connection failed: %s",
		   hc_conn_error(c)[0] ? hc_conn_error(c) : strerror(-err));
}

static const struct hc_conn_ops load_conn_ops = {load_connected, load_failed};

static void load_add(struct run *run, enum rpm_dirs dir)
{
	struct load_conn *lc;

	if (run->nload >= MAX_LOAD)
		return;
	lc = &run->load[run->nload];
	*lc = (struct load_conn){.run = run, .dir = dir};
	lc->c = hc_connect(run->cl, run->addr, run->alen, run->p->proto, run->cfg->large.authority,
			   RPM_INITIAL_LOWAT, &load_conn_ops, lc);
	if (!lc->c) {
		stage_fail(run, -errno, "cannot open a load connection: %s", strerror(errno));
		return;
	}
	run->nload++;
}

static unsigned load_count(const struct run *run, enum rpm_dirs dir)
{
	unsigned n = 0;

	for (size_t i = 0; i < run->nload; i++)
		n += run->load[i].dir == dir;
	return n;
}

/* ---- probes ---- */

static void foreign_status(void *ctx, int status)
{
	((struct foreign_probe *)ctx)->status = status;
}

static void foreign_release(struct foreign_probe *fp)
{
	hc_close(fp->c);
	fp->c = NULL;
}

static void foreign_done(void *ctx, int err)
{
	struct foreign_probe *fp = ctx;

	if (!err && fp->status == 200)
		add_sample(fp->run, S_HTTP_F, (hc_now() - fp->t_req) * 1000);
	foreign_release(fp);
}

static const struct hc_stream_ops foreign_stream_ops = {foreign_status, NULL, foreign_done};

static void foreign_connected(void *ctx, struct hc_conn *c, double connect_s)
{
	struct foreign_probe *fp = ctx;

	if (hc_conn_proto(c) != fp->run->p->proto) { /* not the protocol measured: lost */
		foreign_release(fp);
		return;
	}
	add_sample(fp->run, S_TCP, connect_s * 1000);
	if (fp->run->p->tls)
		add_sample(fp->run, S_TLS, hc_tls_handshake_s(c) * 1000);
	fp->t_req = hc_now();
	if (hc_request(c, fp->run->cfg->small.path, false, &foreign_stream_ops, fp) < 0)
		foreign_release(fp);
}

static void foreign_failed(void *ctx, struct hc_conn *c, int err)
{
	(void)c, (void)err;
	foreign_release(ctx); /* a lost probe: no sample */
}

static const struct hc_conn_ops foreign_conn_ops = {foreign_connected, foreign_failed};

static void self_status(void *ctx, int status)
{
	((struct self_probe *)ctx)->status = status;
}

static void self_done(void *ctx, int err)
{
	struct self_probe *sp = ctx;

	if (!err && sp->status == 200)
		add_sample(sp->run, S_HTTP_L, (hc_now() - sp->t_req) * 1000);
	sp->busy = false;
}

static const struct hc_stream_ops self_stream_ops = {self_status, NULL, self_done};

static void probe_pair(struct run *run)
{
	struct load_conn *lc = NULL;
	size_t connected = 0, pick;

	double now = hc_now();

	for (size_t i = 0; i < RPM_MAX_FOREIGN; i++) /* older than the window: lost */
		if (run->foreign[i].c && now - run->foreign[i].t_start > run->p->mad * run->p->id_s)
			foreign_release(&run->foreign[i]);
	for (size_t i = 0; i < RPM_MAX_FOREIGN; i++) {
		struct foreign_probe *fp = &run->foreign[i];

		if (fp->c)
			continue;
		*fp = (struct foreign_probe){.run = run, .t_start = now};
		fp->c = hc_connect(run->cl, run->addr, run->alen, run->p->proto,
				   run->cfg->small.authority, 0, &foreign_conn_ops, fp);
		break;
	}
	for (size_t i = 0; i < run->nload; i++)
		connected += run->load[i].connected;
	if (!connected)
		return;
	pick = (size_t)(next_random(run) % connected);
	for (size_t i = 0; i < run->nload; i++)
		if (run->load[i].connected && !pick--) {
			lc = &run->load[i];
			break;
		}
	if (run->p->proto == HC_HTTP1) { /* no multiplexing: the kernel's RTT stands in */
		add_sample(run, S_HTTP_L, hc_tcp_rtt_ms(lc->c));
		return;
	}
	for (size_t i = 0; i < MAX_SELF; i++) {
		struct self_probe *sp = &run->self[i];

		if (sp->busy)
			continue;
		*sp = (struct self_probe){.run = run, .busy = true, .t_req = hc_now()};
		if (hc_request(lc->c, run->cfg->small.path, false, &self_stream_ops, sp) < 0)
			sp->busy = false;
		break;
	}
}

/* ---- the grid, intervals and stages ---- */

static void close_step(struct run *run)
{
	double step_s = run->r->step_s;

	run->step++;
	if (run->step < run->r->nsteps) {
		for (int d = 0; d < 2; d++)
			if (run->series[d])
				run->series[d]->values[run->step] =
				    run->step_bytes[d] * 8.0 / step_s / 1e6;
		for (int k = 0; k < S_KINDS; k++)
			if (run->series[2 + k])
				run->series[2 + k]->values[run->step] =
				    run->step_n[k] ? run->step_sum[k] / run->step_n[k] : NAN;
	}
	memset(run->step_bytes, 0, sizeof(run->step_bytes));
	memset(run->step_sum, 0, sizeof(run->step_sum));
	memset(run->step_n, 0, sizeof(run->step_n));
}

/* The trimmed mean of one kind over the last MAD intervals. */
static double window_mean(struct run *run, enum sample_kind kind, double *buf)
{
	unsigned first = run->interval + 1 >= run->p->mad ? run->interval + 1 - run->p->mad : 0;
	size_t n = 0;

	for (size_t i = 0; i < run->nsamples; i++)
		if (run->samples[i].kind == kind && run->samples[i].interval >= first)
			buf[n++] = run->samples[i].ms;
	return rpm_trimmed_mean(buf, n, run->p->tmp);
}

/*
 * The trimmed means of the samples of the last MAD intervals (the current one
 * included) into st's latencies, and their score. -ENOMEM.
 */
static int window_score(struct run *run, struct result_rpm_stage *st, struct rpm_score *score)
{
	double *buf = malloc((run->nsamples ? run->nsamples : 1) * sizeof(*buf));

	if (!buf)
		return -ENOMEM;
	st->tcp_ms = window_mean(run, S_TCP, buf);
	st->http_f_ms = window_mean(run, S_HTTP_F, buf);
	st->http_l_ms = window_mean(run, S_HTTP_L, buf);
	st->tls_ms = run->p->tls ? window_mean(run, S_TLS, buf) : NAN;
	free(buf);
	rpm_score(st->tcp_ms, st->tls_ms, st->http_f_ms, st->http_l_ms, score);
	return 0;
}

/* The end of interval run->interval: true when the stage is over. */
static bool end_interval(struct run *run)
{
	const struct rpm_params *p = run->p;
	struct result_rpm_stage *st = run->st;
	struct rpm_score score;
	uint64_t bytes = 0, dir_bytes[2] = {0, 0};
	double goodput_Bps;

	for (size_t i = 0; i < run->nload; i++) {
		struct load_conn *lc = &run->load[i];
		double conn_Bps = (double)(lc->bytes - lc->bytes_at_interval) / p->id_s;
		double lowat = conn_Bps * 0.005; /* the draft: throughput x 5 ms */

		bytes += lc->bytes - lc->bytes_at_interval;
		dir_bytes[lc->dir == RPM_UPLOAD] += lc->bytes - lc->bytes_at_interval;
		lc->bytes_at_interval = lc->bytes;
		if (lc->connected)
			hc_set_lowat(lc->c,
				     lowat > RPM_MIN_LOWAT ? (unsigned)lowat : RPM_MIN_LOWAT);
	}
	if (rpm_window_add(&run->goodput, (double)bytes))
		st->saturated = true;
	goodput_Bps = rpm_window_average(&run->goodput) / p->id_s;
	st->goodput_mbps = goodput_Bps * 8 / 1e6;
	for (int d = 0; d < 2; d++) {
		if (!(run->dirs & (d ? RPM_UPLOAD : RPM_DOWNLOAD)))
			continue;
		rpm_window_add(&run->dir_goodput[d], (double)dir_bytes[d]);
		st->dir_mbps[d] = rpm_window_average(&run->dir_goodput[d]) / p->id_s * 8 / 1e6;
	}
	if (window_score(run, st, &score) < 0) {
		stage_fail(run, -ENOMEM, "%s", "out of memory");
		return true;
	}
	st->rpm = score.rpm, st->foreign_rpm = score.foreign_rpm, st->loaded_rpm = score.loaded_rpm;
	st->stable = isfinite(score.rpm) && rpm_window_add(&run->responsiveness, score.rpm);
	st->intervals = ++run->interval;

	/* probes within PTC of the goodput, at most MPS pairs a second, at least one */
	run->rate = p->ptc * (double)bytes / p->id_s / (RPM_FOREIGN_BYTES + RPM_SELF_BYTES);
	run->rate = run->rate > p->mps ? p->mps : run->rate < 1 ? 1 : run->rate;
	if (!st->saturated)
		for (int d = RPM_DOWNLOAD; d <= RPM_UPLOAD; d <<= 1)
			if ((run->dirs & d) && load_count(run, (enum rpm_dirs)d) < p->mnp)
				load_add(run, (enum rpm_dirs)d);
	if (st->saturated && st->stable) {
		snprintf(st->confidence, sizeof(st->confidence), "high");
		return true;
	}
	if ((run->interval + 1) * p->id_s > p->max_s + 1e-9) {
		snprintf(st->confidence, sizeof(st->confidence), "%s",
			 run->interval >= p->mad ? "medium" : "low");
		return true;
	}
	return false;
}

static void stage_close(struct run *run)
{
	for (size_t i = 0; i < run->nload; i++)
		hc_close(run->load[i].c);
	for (size_t i = 0; i < RPM_MAX_FOREIGN; i++)
		if (run->foreign[i].c)
			foreign_release(&run->foreign[i]);
	run->nload = 0;
	memset(run->self, 0, sizeof(run->self));
	run->nsamples = 0;
}

/* The progress callback's view of the stage, the goodput since the last call. */
static void progress(struct run *run, double now, double *last)
{
	struct result_rpm_stage scratch = *run->st; /* window_score writes latencies */
	struct rpm_progress pr = {
	    .stage = (unsigned)run->r->rpm.nstages,
	    .nstages = run->p->dirs == RPM_BOTH && run->p->sequential ? 2 : 1,
	    .direction = run->st->direction,
	    .elapsed_s = now - run->stage_t0,
	    .max_s = run->p->max_s,
	};
	struct rpm_score score = {.rpm = NAN};

	for (int d = 0; d < 2; d++) {
		bool loaded = run->dirs & (d ? RPM_UPLOAD : RPM_DOWNLOAD);

		pr.conns[d] = load_count(run, d ? RPM_UPLOAD : RPM_DOWNLOAD);
		pr.mbps[d] =
		    loaded && now > *last ? run->tick_bytes[d] * 8.0 / (now - *last) / 1e6 : NAN;
	}
	if (window_score(run, &scratch, &score) < 0)
		score.rpm = NAN; /* out of memory: the next second may do */
	pr.rpm = score.rpm;
	memset(run->tick_bytes, 0, sizeof(run->tick_bytes));
	*last = now;
	run->p->progress(run->p->progress_ctx, &pr);
}

static int run_stage(struct run *run, enum rpm_dirs dirs)
{
	const struct rpm_params *p = run->p;
	struct result_rpm_stage *st = &run->r->rpm.stages[run->r->rpm.nstages++];
	double now = hc_now(), next_interval, next_probe, next_step, next_tick, last_tick;

	run->st = st;
	run->dirs = dirs;
	snprintf(st->direction, sizeof(st->direction), "%s",
		 dirs == RPM_BOTH     ? "both"
		 : dirs == RPM_UPLOAD ? "upload"
				      : "download");
	st->rpm = st->foreign_rpm = st->loaded_rpm = NAN;
	st->tcp_ms = st->tls_ms = st->http_f_ms = st->http_l_ms = st->goodput_mbps = NAN;
	st->dir_mbps[0] = st->dir_mbps[1] = NAN;
	st->start_s = now - run->t0;
	snprintf(st->confidence, sizeof(st->confidence), "low");
	rpm_window_init(&run->goodput, p->mad, p->sdt);
	rpm_window_init(&run->responsiveness, p->mad, p->sdt);
	rpm_window_init(&run->dir_goodput[0], p->mad, p->sdt);
	rpm_window_init(&run->dir_goodput[1], p->mad, p->sdt);
	memset(run->tick_bytes, 0, sizeof(run->tick_bytes));
	run->interval = 0;
	run->rate = p->mps;
	run->stage_t0 = now;
	next_interval = now + p->id_s;
	next_probe = now;
	next_step = run->t0 + (run->step + 1) * run->r->step_s;
	last_tick = now;
	next_tick = p->progress ? now + 1 : INFINITY;
	for (int d = RPM_DOWNLOAD; d <= RPM_UPLOAD; d <<= 1) /* INP: one per direction */
		if (dirs & d)
			load_add(run, (enum rpm_dirs)d);
	while (!run->err) {
		double wake;
		int r;

		now = hc_now();
		if (p->interrupt && *p->interrupt) {
			run->r->interrupted = true;
			break;
		}
		while (now >= next_step) {
			close_step(run);
			next_step += run->r->step_s;
		}
		if (now >= next_interval) {
			if (end_interval(run))
				break;
			next_interval += p->id_s;
		}
		if (now >= next_tick) {
			progress(run, now, &last_tick);
			next_tick += 1;
			if (next_tick < now)
				next_tick = now + 1;
		}
		if (now >= next_probe) {
			probe_pair(run);
			next_probe += 1 / run->rate;
			if (next_probe < now)
				next_probe = now; /* never catch up with a burst */
		}
		wake = fmin(fmin(fmin(next_step, next_interval), next_probe), next_tick) - now;
		r = hc_poll(run->cl, wake);
		if (r < 0 && r != -EINTR)
			stage_fail(run, r, "cannot wait for events: %s", strerror(-r));
	}
	st->connections = (unsigned)run->nload;
	for (int d = 0; d < 2; d++)
		st->dir_connections[d] = load_count(run, d ? RPM_UPLOAD : RPM_DOWNLOAD);
	st->duration_s = hc_now() - run->stage_t0;
	if (run->err)
		snprintf(st->error, sizeof(st->error), "%s", run->why);
	stage_close(run);
	return run->err;
}

static const char *const series_names[2 + S_KINDS] = {
    "TCP download",
    "TCP upload",
    "Ping (ms) RPM foreign TCP",
    "Ping (ms) RPM foreign HTTP",
    "Ping (ms) RPM self HTTP",
    "Ping (ms) RPM foreign TLS",
};

static int add_series(struct run *run, enum rpm_dirs dirs)
{
	for (int i = 0; i < 2 + S_KINDS; i++) {
		const char *name = series_names[i];
		enum series_kind kind = i == 0	 ? SERIES_DOWNLOAD
					: i == 1 ? SERIES_UPLOAD
						 : SERIES_PROBE;

		if ((i == 0 && !(dirs & RPM_DOWNLOAD)) || (i == 1 && !(dirs & RPM_UPLOAD)) ||
		    (i == 2 + S_TLS && !run->p->tls))
			continue;
		if (i == 2 + S_HTTP_L && run->p->proto == HC_HTTP1)
			name = "Ping (ms) RPM self TCP_INFO";
		run->series[i] = result_add_series(run->r, name, i < 2 ? "Mbits/s" : "ms", kind, 0);
		if (!run->series[i])
			return -ENOMEM;
	}
	return 0;
}

int rpm_run(const struct rpm_params *p, const struct sockaddr *addr, socklen_t alen,
	    const struct nq_config *cfg, struct test_result *r, char *err, size_t errlen)
{
	struct run *run = calloc(1, sizeof(*run));
	size_t stages = p->dirs == RPM_BOTH && p->sequential ? 2 : 1;
	struct timespec ts;
	time_t secs;
	int ret;

	if (!run) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*run = (struct run){.p = p, .addr = addr, .alen = alen, .cfg = cfg, .r = r};
	run->cl = hc_client_new();
	r->step_s = p->id_s / 5;
	ret = run->cl ? result_init(r, (size_t)ceil(stages * (p->max_s + p->id_s) / r->step_s) + 2)
		      : -errno;
	if (!ret && p->tls)
		ret = hc_client_set_tls(run->cl, p->tls, p->server_name ? p->server_name : "");
	if (!ret)
		ret = add_series(run, p->dirs);
	if (ret < 0) {
		snprintf(err, errlen, "cannot set up the test: %s", strerror(-ret));
		goto out;
	}
	snprintf(r->test, sizeof(r->test), "rpm");
	gethostname(r->local_host, sizeof(r->local_host) - 1);
	r->ip_version = addr->sa_family == AF_INET6 ? 6 : 4;
	r->rpm.present = true;
	clock_gettime(CLOCK_REALTIME, &ts);
	run->t0_real = r->t0 = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	secs = ts.tv_sec;
	{
		struct tm tm;
		char day[24];

		gmtime_r(&secs, &tm);
		strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(r->time_utc, sizeof(r->time_utc), "%s.%06ldZ", day, ts.tv_nsec / 1000);
	}
	run->t0 = hc_now();
	run->seed = (uint64_t)ts.tv_nsec * 2654435761u | 1;
	if (stages == 2) {
		ret = run_stage(run, RPM_DOWNLOAD);
		if (!ret && !r->interrupted)
			ret = run_stage(run, RPM_UPLOAD);
	} else {
		ret = run_stage(run, p->dirs);
	}
	close_step(run); /* the part-step at the end */
	r->nsteps = run->step + 1 < r->nsteps ? run->step + 1 : r->nsteps;
	r->length_s = (double)(r->nsteps - 1) * r->step_s;
	r->rpm.rpm = r->rpm.stages[0].rpm;
	for (size_t i = 1; i < r->rpm.nstages; i++) /* sequential: the worse direction */
		if (!(r->rpm.stages[i].rpm >= r->rpm.rpm))
			r->rpm.rpm = r->rpm.stages[i].rpm;
	if (ret < 0)
		snprintf(err, errlen, "%s", run->why);
out:
	hc_client_free(run->cl);
	free(run->samples);
	free(run);
	return ret;
}

/* ---- the config ---- */

struct fetch {
	char buf[NQ_MAX_CONFIG_BYTES + 1];
	size_t len;
	int status, err;
	bool connected, done, too_big;
	const char *path;
	enum hc_proto proto;  /* what the connection spoke */
	char why[TLS_ERRLEN]; /* TLS's reason for a failure, or "" */
};

static void fetch_status(void *ctx, int status)
{
	((struct fetch *)ctx)->status = status;
}

static void fetch_data(void *ctx, const uint8_t *d, size_t n)
{
	struct fetch *f = ctx;

	if (f->len + n > NQ_MAX_CONFIG_BYTES) {
		f->too_big = true;
		return;
	}
	memcpy(f->buf + f->len, d, n);
	f->len += n;
}

static void fetch_done(void *ctx, int err)
{
	struct fetch *f = ctx;

	if (f->done)
		return; /* an HTTP/1.x server closing after the response */
	f->done = true;
	f->err = err;
}

static const struct hc_stream_ops fetch_stream_ops = {fetch_status, fetch_data, fetch_done};

static void fetch_connected(void *ctx, struct hc_conn *c, double connect_s)
{
	struct fetch *f = ctx;
	int r = hc_request(c, f->path, false, &fetch_stream_ops, f);

	(void)connect_s;
	f->connected = true;
	f->proto = hc_conn_proto(c);
	if (r < 0)
		fetch_done(f, r);
}

static void fetch_failed(void *ctx, struct hc_conn *c, int err)
{
	struct fetch *f = ctx;

	snprintf(f->why, sizeof(f->why), "%s", hc_conn_error(c));
	fetch_done(f, err);
}

static const struct hc_conn_ops fetch_conn_ops = {fetch_connected, fetch_failed};

int rpm_fetch_config(const struct rpm_params *p, const struct sockaddr *addr, socklen_t alen,
		     const struct nq_url *url, double timeout_s, struct nq_config *out,
		     enum hc_proto *proto, char *err, size_t errlen)
{
	struct hc_client *cl = hc_client_new();
	struct fetch *f = calloc(1, sizeof(*f));
	double deadline = hc_now() + timeout_s;
	int ret = -ENOMEM;

	if (!cl || !f) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	f->path = url->path;
	f->proto = p->proto;
	if (p->tls && (ret = hc_client_set_tls(cl, p->tls, url->host)) < 0) {
		snprintf(err, errlen, "%s", strerror(-ret));
		goto out;
	}
	if (!hc_connect(cl, addr, alen, p->proto, url->authority, 0, &fetch_conn_ops, f)) {
		ret = -errno;
		snprintf(err, errlen, "cannot connect: %s", strerror(errno));
		goto out;
	}
	while (!f->done && hc_now() < deadline)
		if ((ret = hc_poll(cl, deadline - hc_now())) < 0 && ret != -EINTR)
			break;
	ret = 0;
	if (!f->done) {
		ret = -ETIMEDOUT;
		snprintf(err, errlen, "no answer within %g s", timeout_s);
	} else if (f->err) {
		ret = f->err;
		/* a server that closes before any answer is full or refusing us; one that
		 * answers the HTTP/2 preface with something else may speak HTTP/1.1 only */
		snprintf(err, errlen, "%s%s%s", f->why[0] ? f->why : strerror(-f->err),
			 f->err == -EKEYREJECTED ? " (-k, --insecure: do not verify)" : "",
			 f->connected && !f->status && f->err == -ECONNRESET
			     ? " (the server closed the connection without an answer: busy?)"
			 : f->proto == HC_H2C && f->connected && !f->status
			     ? " (an HTTP/1.1-only server? try --http1)"
			     : "");
	} else if (f->status != 200) {
		ret = -EBADMSG;
		snprintf(err, errlen, "HTTP status %d", f->status);
	} else if (f->too_big) {
		ret = -EBADMSG;
		snprintf(err, errlen, "the config is over %d bytes", NQ_MAX_CONFIG_BYTES);
	} else if ((ret = nq_config_parse(f->buf, f->len, out, err, errlen)) < 0) {
		ret = ret == -EINVAL ? -EBADMSG : ret;
	} else {
		*proto = f->proto;
	}
out:
	hc_client_free(cl);
	free(f);
	return ret;
}
