/* SPDX-License-Identifier: MIT */
/* telemetry.c - the lab's telemetry file and its summary (telemetry.h). */
#include "telemetry.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "json.h"

struct lab_telemetry_writer {
	FILE *f;
	bool own; /* we opened f */
	enum lab_telemetry_format fmt;
	bool begun;
	uint64_t samples;
	int err;
};

enum lab_telemetry_format lab_telemetry_format_of(const char *path)
{
	size_t n = strlen(path);

	return n >= 4 && !strcasecmp(path + n - 4, ".csv") ? LAB_TELEMETRY_CSV : LAB_TELEMETRY_JSON;
}

int lab_telemetry_new(FILE *f, enum lab_telemetry_format fmt, struct lab_telemetry_writer **out)
{
	struct lab_telemetry_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->f = f;
	w->fmt = fmt;
	*out = w;
	return 0;
}

int lab_telemetry_open(const char *path, enum lab_telemetry_format fmt,
		       struct lab_telemetry_writer **out)
{
	FILE *f = fopen(path, "we");
	int r;

	if (!f)
		return -errno;
	r = lab_telemetry_new(f, fmt, out);
	if (r < 0) {
		fclose(f);
		return r;
	}
	(*out)->own = true;
	return 0;
}

/* A JSON string literal for s (quotes and escapes), via json.h; NULL on ENOMEM. */
static char *json_quote(const char *s)
{
	struct jval *v = json_new_string(s);
	const char *text;
	char *copy = NULL;

	if (v && (text = json_text(v, NULL)))
		copy = strdup(text);
	json_free(v);
	return copy;
}

static void check(struct lab_telemetry_writer *w)
{
	if (!w->err && ferror(w->f))
		w->err = errno ? -errno : -EIO;
}

int lab_telemetry_begin(struct lab_telemetry_writer *w, const struct lab_telemetry_header *h)
{
	char *profile, *describe;

	if (w->err || w->begun)
		return w->err ? w->err : -EALREADY;
	w->begun = true;
	if (w->fmt == LAB_TELEMETRY_CSV) {
		fputs(
		    "t_s,qdisc_backlog_bytes,qdisc_backlog_pkts,ring_descs,ring_bytes,"
		    "bql_limit_bytes,bql_inflight_bytes,switch_backlog_bytes,"
		    "board_port_backlog_bytes,client_qdisc_backlog_bytes,tsq_held_bytes,wire_util",
		    w->f);
		for (int k = 0; k < 2; k++)
			for (int s = 0; s < LAB_STAGE_COUNT; s++)
				fprintf(w->f, ",%s_%s", k ? "marks" : "drops",
					lab_stage_name((enum lab_stage)s));
		fputc('\n', w->f);
		check(w);
		return w->err;
	}
	profile = json_quote(h->profile ? h->profile : "");
	describe = json_quote(h->describe ? h->describe : "");
	if (!profile || !describe) {
		w->err = -ENOMEM;
	} else {
		fprintf(w->f,
			"{\"profile\": %s, \"describe\": %s, \"interval_ms\": %u, "
			"\"start_unix_s\": %.6f, \"samples\": [\n",
			profile, describe, h->interval_ms, h->start_unix_s);
		check(w);
	}
	free(profile);
	free(describe);
	return w->err;
}

/* Counters only grow; a model reset (or a bug) must not print 2^64. */
static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

static double wire_util(const struct lab_telemetry *prev, const struct lab_telemetry *cur)
{
	uint64_t dt = delta(cur->t_ns, prev->t_ns);
	double u;

	if (!dt)
		return 0;
	u = (double)delta(cur->board_wire_busy_ns, prev->board_wire_busy_ns) / (double)dt;
	return u > 1 ? 1 : u;
}

int lab_telemetry_sample(struct lab_telemetry_writer *w, const struct lab_telemetry *prev,
			 const struct lab_telemetry *cur, uint64_t t0_ns)
{
	double t_s = (double)delta(cur->t_ns, t0_ns) / 1e9;
	bool csv = w->fmt == LAB_TELEMETRY_CSV;

	if (w->err)
		return w->err;
	if (!w->begun)
		return -EINVAL;
	if (csv)
		fprintf(w->f, "%.4f,%llu,%u,%u,%llu,%u,%u,%llu,%llu,%llu,%llu,%.4f", t_s,
			(unsigned long long)cur->qdisc_backlog_bytes, cur->qdisc_backlog_pkts,
			cur->ring_descs, (unsigned long long)cur->ring_bytes, cur->bql_limit,
			cur->bql_inflight, (unsigned long long)cur->switch_backlog_bytes,
			(unsigned long long)cur->board_port_backlog_bytes,
			(unsigned long long)cur->client_qdisc_backlog_bytes,
			(unsigned long long)cur->tsq_held_bytes, wire_util(prev, cur));
	else
		fprintf(
		    w->f,
		    "%s{\"t_s\": %.4f, \"qdisc_backlog_bytes\": %llu, \"qdisc_backlog_pkts\": %u, "
		    "\"ring_descs\": %u, \"ring_bytes\": %llu, \"bql_limit_bytes\": %u, "
		    "\"bql_inflight_bytes\": %u, \"switch_backlog_bytes\": %llu, "
		    "\"board_port_backlog_bytes\": %llu, \"client_qdisc_backlog_bytes\": %llu, "
		    "\"tsq_held_bytes\": %llu, \"wire_util\": %.4f",
		    w->samples ? ",\n" : "", t_s, (unsigned long long)cur->qdisc_backlog_bytes,
		    cur->qdisc_backlog_pkts, cur->ring_descs, (unsigned long long)cur->ring_bytes,
		    cur->bql_limit, cur->bql_inflight,
		    (unsigned long long)cur->switch_backlog_bytes,
		    (unsigned long long)cur->board_port_backlog_bytes,
		    (unsigned long long)cur->client_qdisc_backlog_bytes,
		    (unsigned long long)cur->tsq_held_bytes, wire_util(prev, cur));
	for (int k = 0; k < 2; k++) {
		if (!csv)
			fprintf(w->f, ", \"%s\": {", k ? "marks" : "drops");
		for (int s = 0; s < LAB_STAGE_COUNT; s++) {
			const struct lab_stage_counts *a = &prev->stage[s], *b = &cur->stage[s];
			uint64_t v = k ? delta(b->marks, a->marks) : delta(b->drops, a->drops);

			if (csv)
				fprintf(w->f, ",%llu", (unsigned long long)v);
			else
				fprintf(w->f, "%s\"%s\": %llu", s ? ", " : "",
					lab_stage_name((enum lab_stage)s), (unsigned long long)v);
		}
		if (!csv)
			fputc('}', w->f);
	}
	fputs(csv ? "\n" : "}", w->f);
	w->samples++;
	check(w);
	return w->err;
}

int lab_telemetry_close(struct lab_telemetry_writer *w)
{
	int err;

	if (!w)
		return 0;
	if (!w->err && w->begun && w->fmt == LAB_TELEMETRY_JSON)
		fputs(w->samples ? "\n]}\n" : "]}\n", w->f);
	if (fflush(w->f) != 0 && !w->err)
		w->err = -errno;
	check(w);
	if (w->own && fclose(w->f) != 0 && !w->err)
		w->err = -errno;
	err = w->err;
	free(w);
	return err;
}

/* --- the summary --- */

/* A duration for people: "850 ns", "42.1 us", "12.3 ms", "1.23 s". */
static const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}

/* A size for people, decimal: "592 B", "11.9 MB". */
static const char *fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b < 10000)
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	else if (b < 10000000)
		snprintf(buf, len, "%.1f kB", (double)b / 1e3);
	else if (b < 10000000000ull)
		snprintf(buf, len, "%.1f MB", (double)b / 1e6);
	else
		snprintf(buf, len, "%.2f GB", (double)b / 1e9);
	return buf;
}

/* A text line built in pieces, written with one print_text (which spaces words itself). */
struct line {
	char buf[512];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l->n >= sizeof(l->buf))
		return;
	va_start(ap, fmt);
	k = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		l->n = l->n + (size_t)k < sizeof(l->buf) ? l->n + (size_t)k : sizeof(l->buf) - 1;
}

static void put(struct printer *p, struct line *l)
{
	print_text(p, "%s", l->buf);
	print_nl(p);
	l->n = 0;
	l->buf[0] = '\0';
}

/* JSON: {"p50_us", "p90_us", "p99_us", "max_us", "count"}; text: "p50 X, p99 Y, max Z". */
static void print_dist(struct printer *p, struct line *l, const char *key, const struct lab_dist *d)
{
	char a[32], b[32], c[32];

	print_open_object(p, key);
	print_double(p, "p50_us", (double)d->p50_ns / 1e3, 3, UNIT_US | PRINT_JSON_ONLY);
	print_double(p, "p90_us", (double)d->p90_ns / 1e3, 3, UNIT_US | PRINT_JSON_ONLY);
	print_double(p, "p99_us", (double)d->p99_ns / 1e3, 3, UNIT_US | PRINT_JSON_ONLY);
	print_double(p, "max_us", (double)d->max_ns / 1e3, 3, UNIT_US | PRINT_JSON_ONLY);
	print_uint(p, "count", d->count, UNIT_NONE | PRINT_JSON_ONLY);
	print_close(p);
	if (d->count)
		add(l, "p50 %s, p99 %s, max %s", fmt_ns(a, sizeof(a), d->p50_ns),
		    fmt_ns(b, sizeof(b), d->p99_ns), fmt_ns(c, sizeof(c), d->max_ns));
	else
		add(l, "no samples");
}

/* A line of its own: the label, then the distribution (and its JSON object). */
static void dist_line(struct printer *p, const char *label, const char *key,
		      const struct lab_dist *d)
{
	struct line l = {0};

	add(&l, "%s", label);
	print_dist(p, &l, key, d);
	put(p, &l);
}

static void print_direction(struct printer *p, const char *key, const char *label,
			    const struct lab_dir_stats *d, uint64_t l2_bytes, uint64_t busy_ns,
			    uint64_t duration_ns)
{
	double secs = (double)duration_ns / 1e9;
	double mbps = secs > 0 ? (double)l2_bytes * 8 / secs / 1e6 : 0;
	double util = duration_ns ? (double)busy_ns / (double)duration_ns : 0;
	struct line l = {0};
	char b[32];

	if (util > 1)
		util = 1;
	print_open_object(p, key);
	print_uint(p, "packets", d->delivered_pkts, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "bytes", l2_bytes, UNIT_NONE | PRINT_JSON_ONLY);
	print_double(p, "mbps", mbps, 3, UNIT_MBPS | PRINT_JSON_ONLY);
	print_double(p, "wire_util", util, 4, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "read_packets", d->read_pkts, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_writes", d->writes, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_write_drops", d->write_drops, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_write_errors", d->write_errors, UNIT_NONE | PRINT_JSON_ONLY);
	print_close(p);
	add(&l, "  %s: %llu packets, %s, %.1f Mbit/s, wire busy %.1f%%", label,
	    (unsigned long long)d->delivered_pkts, fmt_bytes(b, sizeof(b), l2_bytes), mbps,
	    util * 100);
	put(p, &l);
}

/* "drops: qdisc 12, switch 3" or "drops: none". */
static void add_stage_counts(struct line *l, const struct lab_telemetry *t, bool marks)
{
	bool any = false;

	add(l, "%s:", marks ? "CE marks" : "drops");
	for (int i = 0; i < LAB_STAGE_COUNT; i++) {
		uint64_t v = marks ? t->stage[i].marks : t->stage[i].drops;

		if (!v)
			continue;
		add(l, "%s %s %llu", any ? "," : "", lab_stage_name((enum lab_stage)i),
		    (unsigned long long)v);
		any = true;
	}
	if (!any)
		add(l, " none");
}

/* Whether the emulator kept time (run.h's bound), in JSON and in words. */
static void print_timing(struct printer *p, const struct lab_summary *s)
{
	const struct lab_dist *d = &s->run->sched_error;
	bool kept = !d->count || d->p99_ns <= s->error_bound_ns;
	struct line l = {0};
	char a[32], b[32];

	print_double(p, "sched_error_bound_us", (double)s->error_bound_ns / 1e3, 1,
		     UNIT_NONE | PRINT_JSON_ONLY);
	print_bool(p, "kept_time", kept, PRINT_JSON_ONLY);
	fmt_ns(a, sizeof(a), d->p99_ns);
	fmt_ns(b, sizeof(b), s->error_bound_ns);
	if (kept)
		add(&l,
		    "  the emulator kept time: scheduling error p99 %s, within %s (two full "
		    "frames at %g Mbit/s)",
		    a, b, s->rate_mbps);
	else
		add(&l,
		    "  THE EMULATOR FELL BEHIND: scheduling error p99 %s, over %s (two full "
		    "frames at %g Mbit/s); this run's latency tails (p99) are the emulator's as "
		    "much as the model's: do not trust them",
		    a, b, s->rate_mbps);
	put(p, &l);
}

void lab_summary_print(struct printer *p, const struct lab_summary *s)
{
	const struct lab_run_stats *r = s->run;
	const struct lab_emu_summary *e = &r->emu;
	double gbit = (double)(e->last.board_tx_bytes + e->last.client_tx_bytes) * 8 / 1e9;
	uint64_t tun_drops = r->dir[0].write_drops + r->dir[1].write_drops;
	struct line l = {0};
	char a[32];

	print_str(p, "profile", s->profile, PRINT_JSON_ONLY);
	print_str(p, "describe", s->describe, PRINT_JSON_ONLY);
	print_double(p, "duration_s", (double)r->duration_ns / 1e9, 3, UNIT_NONE | PRINT_JSON_ONLY);
	if (s->exit_status >= 0)
		print_int(p, "exit_status", s->exit_status, UNIT_NONE | PRINT_JSON_ONLY);
	else
		print_null(p, "exit_status", "-", PRINT_JSON_ONLY);
	add(&l, "lab: %s (%s)", s->profile, s->describe);
	put(p, &l);
	add(&l, "  ran %s", fmt_ns(a, sizeof(a), r->duration_ns));
	if (s->exit_status >= 0)
		add(&l, ", command exit status %d", s->exit_status);
	put(p, &l);

	print_direction(p, "board_to_client", "board -> client", &r->dir[LAB_BOARD_TX],
			e->last.board_tx_bytes, e->last.board_wire_busy_ns, r->duration_ns);
	print_direction(p, "client_to_board", "client -> board", &r->dir[LAB_CLIENT_TX],
			e->last.client_tx_bytes, e->last.client_wire_busy_ns, r->duration_ns);

	print_open_object(p, "stages");
	for (int i = 0; i < LAB_STAGE_COUNT; i++) {
		const struct lab_stage_counts *c = &e->last.stage[i];

		print_open_object(p, lab_stage_name((enum lab_stage)i));
		print_uint(p, "packets", c->pkts, UNIT_NONE | PRINT_JSON_ONLY);
		print_uint(p, "drops", c->drops, UNIT_NONE | PRINT_JSON_ONLY);
		print_uint(p, "marks", c->marks, UNIT_NONE | PRINT_JSON_ONLY);
		print_close(p);
	}
	print_close(p);
	add(&l, "  ");
	add_stage_counts(&l, &e->last, false);
	add(&l, "; ");
	add_stage_counts(&l, &e->last, true);
	put(p, &l);

	add(&l, "  qdisc sojourn ");
	print_dist(p, &l, "qdisc_sojourn", &e->qdisc_sojourn);
	print_uint(p, "qdisc_backlog_max_bytes", e->qdisc_backlog_max_bytes,
		   UNIT_NONE | PRINT_JSON_ONLY);
	add(&l, "; backlog max %s", fmt_bytes(a, sizeof(a), e->qdisc_backlog_max_bytes));
	put(p, &l);
	print_open_object(p, "ring");
	print_uint(p, "max_descriptors", e->ring_descs_max, UNIT_NONE | PRINT_JSON_ONLY);
	/* URBs only for a USB NIC's profile (urb_bytes), once one was used */
	if (e->ring_urbs_max)
		print_uint(p, "max_urbs", e->ring_urbs_max, UNIT_NONE | PRINT_JSON_ONLY);
	else
		print_null(p, "max_urbs", "-", PRINT_JSON_ONLY);
	print_close(p);
	add(&l, "  ring max %u descriptors", e->ring_descs_max);
	if (e->ring_urbs_max)
		add(&l, " (frames), %u URBs", e->ring_urbs_max);
	print_open_object(p, "bql");
	print_bool(p, "enabled", s->bql, PRINT_JSON_ONLY);
	if (s->bql) {
		print_uint(p, "limit_p50_bytes", e->bql_limit_p50, UNIT_NONE | PRINT_JSON_ONLY);
		print_uint(p, "limit_max_bytes", e->bql_limit_max_seen,
			   UNIT_NONE | PRINT_JSON_ONLY);
		add(&l, "; BQL limit p50 %u bytes (%.1f full frames), max %u bytes",
		    e->bql_limit_p50, (double)e->bql_limit_p50 / 1514, e->bql_limit_max_seen);
	} else {
		print_null(p, "limit_p50_bytes", "-", PRINT_JSON_ONLY);
		print_null(p, "limit_max_bytes", "-", PRINT_JSON_ONLY);
		add(&l, "; no BQL");
	}
	print_close(p);
	put(p, &l);

	dist_line(p, "  transit board -> client ", "board_path", &e->board_path);
	dist_line(p, "  transit client -> board ", "client_path", &e->client_path);
	add(&l, "  scheduling error ");
	print_dist(p, &l, "sched_error", &r->sched_error);
	print_uint(p, "spin_margin_us", r->spin_margin_ns / 1000, UNIT_NONE | PRINT_JSON_ONLY);
	print_bool(p, "realtime", r->realtime, PRINT_JSON_ONLY);
	print_bool(p, "writer_threads", r->writer_threads, PRINT_JSON_ONLY);
	print_uint(p, "spin_off_windows", r->spin_off_windows, UNIT_NONE | PRINT_JSON_ONLY);
	add(&l, " (spin margin %s%s%s)", fmt_ns(a, sizeof(a), r->spin_margin_ns),
	    r->realtime ? ", real-time priority" : "", r->writer_threads ? ", writer threads" : "");
	put(p, &l);
	dist_line(p, "    of it: wake-up lateness ", "wake_late", &r->wake_late);
	dist_line(p, "    tun write() time ", "tun_write", &r->tun_write);
	print_timing(p, s);

	print_double(p, "cpu_s", r->cpu_s, 3, UNIT_NONE | PRINT_JSON_ONLY);
	print_double(p, "cpu_s_per_gbit", gbit > 0 ? r->cpu_s / gbit : NAN, 3,
		     UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_write_drops", tun_drops, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "input_errors", r->input_errors, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "telemetry_samples", r->telemetry_samples, UNIT_NONE | PRINT_JSON_ONLY);
	print_int(p, "telemetry_error", r->telemetry_error, UNIT_NONE | PRINT_JSON_ONLY);
	add(&l, "  emulator CPU %.2f s", r->cpu_s);
	if (gbit >= 0.01)
		add(&l, ", %.2f s per Gbit carried", r->cpu_s / gbit);
	add(&l, "; tun write drops %llu", (unsigned long long)tun_drops);
	print_open_object(p, "tun_queue_drops");
	for (int d = 0; d < 2; d++) {
		const char *key = d == LAB_BOARD_TX ? "board" : "client";

		if (s->tun_queue_drops[d] < 0)
			print_null(p, key, "-", PRINT_JSON_ONLY);
		else
			print_uint(p, key, (uint64_t)s->tun_queue_drops[d],
				   UNIT_NONE | PRINT_JSON_ONLY);
		if (s->tun_queue_drops[d] > 0)
			add(&l, "; %s's tun queue dropped %lld (emulator too slow)", key,
			    (long long)s->tun_queue_drops[d]);
	}
	print_close(p);
	if (r->input_errors)
		add(&l, "; unparseable packets %llu", (unsigned long long)r->input_errors);
	put(p, &l);
	if (r->telemetry_error) {
		add(&l, "  telemetry stopped: %s", strerror(-r->telemetry_error));
		put(p, &l);
	}
}
