/* SPDX-License-Identifier: MIT */
/* telemetry.c - the lab's telemetry file and its summary (telemetry.h). */
#include "telemetry.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/json.h"

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

/* prefix and a duration for people, into buf: "p50 12.3 ms". */
static const char *with_ns(char *buf, size_t len, const char *prefix, uint64_t ns)
{
	char d[32];

	snprintf(buf, len, "%s%s", prefix, fmt_ns(d, sizeof(d), ns));
	return buf;
}

/* JSON: {"p50_us", "p90_us", "p99_us", "max_us", "count"}; text: "p50 X, p99 Y, max Z". */
static void print_dist(struct printer *p, const char *key, const struct lab_dist *d)
{
	char a[48];

	print_open_object(p, key);
	print_double_phrase(p, "p50_us", (double)d->p50_ns / 1e3, "%s",
			    d->count ? with_ns(a, sizeof(a), "p50 ", d->p50_ns) : "");
	print_double(p, "p90_us", (double)d->p90_ns / 1e3, 3, UNIT_US | PRINT_JSON_ONLY);
	print_double_phrase(p, "p99_us", (double)d->p99_ns / 1e3, "%s",
			    d->count ? with_ns(a, sizeof(a), ", p99 ", d->p99_ns) : "");
	print_double_phrase(p, "max_us", (double)d->max_ns / 1e3, "%s",
			    d->count ? with_ns(a, sizeof(a), ", max ", d->max_ns) : "");
	print_uint_phrase(p, "count", d->count, "%s", d->count ? "" : "no samples");
	print_close(p);
}

/* A line of its own: the label, then the distribution (and its JSON object). */
static void dist_line(struct printer *p, const char *label, const char *key,
		      const struct lab_dist *d)
{
	print_phrase(p, "%s", label);
	print_dist(p, key, d);
	print_nl(p);
}

static void print_direction(struct printer *p, const char *key, const char *label,
			    const struct lab_dir_stats *d, uint64_t l2_bytes, uint64_t busy_ns,
			    uint64_t duration_ns)
{
	double secs = (double)duration_ns / 1e9;
	double mbps = secs > 0 ? (double)l2_bytes * 8 / secs / 1e6 : 0;
	double util = duration_ns ? (double)busy_ns / (double)duration_ns : 0;
	char b[32];

	if (util > 1)
		util = 1;
	print_open_object(p, key);
	print_uint_phrase(p, "packets", d->delivered_pkts, "  %s: %llu packets", label,
			  (unsigned long long)d->delivered_pkts);
	print_format_size(b, sizeof(b), l2_bytes);
	print_uint_phrase(p, "bytes", l2_bytes, ", %s", b);
	print_double_phrase(p, "mbps", mbps, ", %.1f Mbit/s", mbps);
	print_double_phrase(p, "wire_util", util, ", wire busy %.1f%%", util * 100);
	print_uint(p, "read_packets", d->read_pkts, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_writes", d->writes, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_write_drops", d->write_drops, UNIT_NONE | PRINT_JSON_ONLY);
	print_uint(p, "tun_write_errors", d->write_errors, UNIT_NONE | PRINT_JSON_ONLY);
	print_close(p);
	print_nl(p);
}

/* " qdisc 12" (", qdisc 12" after another), or nothing for none. */
static const char *count_words(char *buf, size_t len, bool after, const char *name, uint64_t v)
{
	buf[0] = '\0';
	if (v)
		snprintf(buf, len, "%s %s %llu", after ? "," : "", name, (unsigned long long)v);
	return buf;
}

/*
 * The "stages" object, stage by stage, and its line, all drops then all marks: "drops:
 * qdisc 12, switch 3; CE marks: none" (section 0 has the drops, 1 the marks).
 */
static void print_stages(struct printer *p, const struct lab_telemetry *t)
{
	bool any[2] = {false, false};
	char w[64];

	print_section(p, 0);
	print_phrase(p, "  drops:");
	print_section(p, 1);
	print_phrase(p, "; CE marks:");
	print_open_object(p, "stages");
	for (int i = 0; i < LAB_STAGE_COUNT; i++) {
		const struct lab_stage_counts *c = &t->stage[i];
		const char *name = lab_stage_name((enum lab_stage)i);

		print_open_object(p, name);
		print_uint(p, "packets", c->pkts, UNIT_NONE | PRINT_JSON_ONLY);
		print_section(p, 0);
		print_uint_phrase(p, "drops", c->drops, "%s",
				  count_words(w, sizeof(w), any[0], name, c->drops));
		print_section(p, 1);
		print_uint_phrase(p, "marks", c->marks, "%s",
				  count_words(w, sizeof(w), any[1], name, c->marks));
		print_close(p);
		any[0] |= c->drops != 0;
		any[1] |= c->marks != 0;
	}
	print_close(p);
	for (int k = 0; k < 2; k++) {
		print_section(p, (unsigned)k);
		if (!any[k])
			print_phrase(p, " none");
	}
	print_nl(p);
	print_sections_end(p);
}

/* Whether the emulator kept time (run.h's bound), in JSON and in words. */
static void print_timing(struct printer *p, const struct lab_summary *s)
{
	const struct lab_dist *d = &s->run->sched_error;
	bool kept = !d->count || d->p99_ns <= s->error_bound_ns;
	char a[32], b[32];

	/* the JSON has the bound first, the text the verdict */
	print_section(p, 1);
	print_double_phrase(p, "sched_error_bound_us", (double)s->error_bound_ns / 1e3,
			    kept ? " within %s (two full frames at %g Mbit/s)"
				 : " over %s (two full frames at %g Mbit/s); this run's latency "
				   "tails (p99) are the emulator's as much as the model's: do not "
				   "trust them",
			    fmt_ns(b, sizeof(b), s->error_bound_ns), s->rate_mbps);
	print_nl(p);
	print_section(p, 0);
	print_bool_phrase(p, "kept_time", kept, "  %s: scheduling error p99 %s,",
			  kept ? "the emulator kept time" : "THE EMULATOR FELL BEHIND",
			  fmt_ns(a, sizeof(a), d->p99_ns));
	print_sections_end(p);
}

void lab_summary_print(struct printer *p, const struct lab_summary *s)
{
	const struct lab_run_stats *r = s->run;
	const struct lab_emu_summary *e = &r->emu;
	double gbit = (double)(e->last.board_tx_bytes + e->last.client_tx_bytes) * 8 / 1e9;
	uint64_t tun_drops = r->dir[0].write_drops + r->dir[1].write_drops;
	char a[32], per[64];

	print_str_phrase(p, "profile", s->profile, "lab: %s", s->profile);
	print_str_phrase(p, "describe", s->describe, " (%s)", s->describe);
	print_nl(p);
	print_double_phrase(p, "duration_s", (double)r->duration_ns / 1e9, "  ran %s",
			    fmt_ns(a, sizeof(a), r->duration_ns));
	if (s->exit_status >= 0)
		print_int_phrase(p, "exit_status", s->exit_status, ", command exit status %d",
				 s->exit_status);
	else
		print_null_phrase(p, "exit_status", "%s", "");
	print_nl(p);

	print_direction(p, "board_to_client", "board -> client", &r->dir[LAB_BOARD_TX],
			e->last.board_tx_bytes, e->last.board_wire_busy_ns, r->duration_ns);
	print_direction(p, "client_to_board", "client -> board", &r->dir[LAB_CLIENT_TX],
			e->last.client_tx_bytes, e->last.client_wire_busy_ns, r->duration_ns);

	print_stages(p, &e->last);

	print_phrase(p, "  qdisc sojourn ");
	print_dist(p, "qdisc_sojourn", &e->qdisc_sojourn);
	print_format_size(a, sizeof(a), e->qdisc_backlog_max_bytes);
	print_uint_phrase(p, "qdisc_backlog_max_bytes", e->qdisc_backlog_max_bytes,
			  "; backlog max %s", a);
	print_nl(p);
	print_open_object(p, "ring");
	print_uint_phrase(p, "max_descriptors", e->ring_descs_max, "  ring max %u descriptors",
			  e->ring_descs_max);
	/* URBs only for a USB NIC's profile (urb_bytes), once one was used */
	if (e->ring_urbs_max)
		print_uint_phrase(p, "max_urbs", e->ring_urbs_max, " (frames), %u URBs",
				  e->ring_urbs_max);
	else
		print_null(p, "max_urbs", "-", PRINT_JSON_ONLY);
	print_close(p);
	print_open_object(p, "bql");
	print_bool_phrase(p, "enabled", s->bql, "%s", s->bql ? "" : "; no BQL");
	if (s->bql) {
		print_uint_phrase(p, "limit_p50_bytes", e->bql_limit_p50,
				  "; BQL limit p50 %u bytes (%.1f full frames)", e->bql_limit_p50,
				  (double)e->bql_limit_p50 / 1514);
		print_uint_phrase(p, "limit_max_bytes", e->bql_limit_max_seen, ", max %u bytes",
				  e->bql_limit_max_seen);
	} else {
		print_null(p, "limit_p50_bytes", "-", PRINT_JSON_ONLY);
		print_null(p, "limit_max_bytes", "-", PRINT_JSON_ONLY);
	}
	print_close(p);
	print_nl(p);

	dist_line(p, "  transit board -> client ", "board_path", &e->board_path);
	dist_line(p, "  transit client -> board ", "client_path", &e->client_path);
	print_phrase(p, "  scheduling error ");
	print_dist(p, "sched_error", &r->sched_error);
	print_uint_phrase(p, "spin_margin_us", r->spin_margin_ns / 1000, " (spin margin %s",
			  fmt_ns(a, sizeof(a), r->spin_margin_ns));
	print_bool_phrase(p, "realtime", r->realtime, "%s",
			  r->realtime ? ", real-time priority" : "");
	print_bool_phrase(p, "writer_threads", r->writer_threads, "%s)",
			  r->writer_threads ? ", writer threads" : "");
	print_uint(p, "spin_off_windows", r->spin_off_windows, UNIT_NONE | PRINT_JSON_ONLY);
	print_nl(p);
	dist_line(p, "    of it: wake-up lateness ", "wake_late", &r->wake_late);
	dist_line(p, "    tun write() time ", "tun_write", &r->tun_write);
	print_timing(p, s);

	print_double_phrase(p, "cpu_s", r->cpu_s, "  emulator CPU %.2f s", r->cpu_s);
	snprintf(per, sizeof(per), ", %.2f s per Gbit carried", gbit > 0 ? r->cpu_s / gbit : 0);
	print_double_phrase(p, "cpu_s_per_gbit", gbit > 0 ? r->cpu_s / gbit : NAN, "%s",
			    gbit >= 0.01 ? per : "");
	print_uint_phrase(p, "tun_write_drops", tun_drops, "; tun write drops %llu",
			  (unsigned long long)tun_drops);
	/* the JSON has the errors before tun_queue_drops, the text after them */
	print_section(p, 2);
	print_uint_phrase(p, "input_errors", r->input_errors, "%s", "");
	if (r->input_errors)
		print_phrase(p, "; unparseable packets %llu", (unsigned long long)r->input_errors);
	print_nl(p);
	print_uint(p, "telemetry_samples", r->telemetry_samples, UNIT_NONE | PRINT_JSON_ONLY);
	print_section(p, 3);
	print_int_phrase(p, "telemetry_error", r->telemetry_error, "%s%s",
			 r->telemetry_error ? "  telemetry stopped: " : "",
			 r->telemetry_error ? strerror(-r->telemetry_error) : "");
	if (r->telemetry_error)
		print_nl(p);
	print_section(p, 1);
	print_open_object(p, "tun_queue_drops");
	for (int d = 0; d < 2; d++) {
		const char *key = d == LAB_BOARD_TX ? "board" : "client";
		long long v = s->tun_queue_drops[d];

		if (v < 0)
			print_null(p, key, "-", PRINT_JSON_ONLY);
		else if (v > 0)
			print_uint_phrase(p, key, (uint64_t)v,
					  "; %s's tun queue dropped %lld (emulator too slow)", key,
					  v);
		else
			print_uint(p, key, 0, UNIT_NONE | PRINT_JSON_ONLY);
	}
	print_close(p);
	print_sections_end(p);
}
