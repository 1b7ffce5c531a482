/* SPDX-License-Identifier: MIT */
/* meter/report.c - meter/report.h: the text summary and the JSON document of a test. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meter/report.h"
#include "outfile.h"

static const char *kind_name(enum series_kind k)
{
	switch (k) {
	case SERIES_UPLOAD:
		return "upload";
	case SERIES_DOWNLOAD:
		return "download";
	case SERIES_PROBE:
		return "probe";
	case SERIES_TCP_RTT:
	default:
		return "tcp_rtt";
	}
}

/* "12.3" or "-" for text columns. */
static const char *num(char *buf, size_t len, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", decimals, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* ---- JSON ---- */

static void json_latency(struct printer *p, const char *key, const struct latency_stats *st)
{
	print_open_object(p, key);
	print_double(p, "p50", st->p50, 3, PRINT_JSON_ONLY);
	print_double(p, "p90", st->p90, 3, PRINT_JSON_ONLY);
	print_double(p, "p99", st->p99, 3, PRINT_JSON_ONLY);
	print_uint(p, "samples", st->n, PRINT_JSON_ONLY);
	print_close(p);
}

/* drain_s and drained: null when there was nothing to tell (summary.h). */
static void json_drain(struct printer *p, const struct summary *s)
{
	print_double(p, "drain_s", s->drain_s, 3, PRINT_JSON_ONLY);
	if (s->drain == DRAIN_NONE)
		print_null(p, "drained", NULL, PRINT_JSON_ONLY);
	else
		print_bool(p, "drained", s->drain == DRAIN_DONE, PRINT_JSON_ONLY);
	print_double(p, "idle_threshold_ms", s->idle_threshold_ms, 3, PRINT_JSON_ONLY);
}

static void json_summary(struct printer *p, const struct summary *s)
{
	print_open_object(p, "summary");
	print_double(p, "download_mbps", s->download.sum_mbps, 2, PRINT_JSON_ONLY);
	print_double(p, "upload_mbps", s->upload.sum_mbps, 2, PRINT_JSON_ONLY);
	json_latency(p, "latency_idle_ms", &s->idle);
	json_latency(p, "latency_loaded_ms", &s->loaded);
	json_drain(p, s);
	print_double(p, "induced_latency_ms", s->induced_ms, 3, PRINT_JSON_ONLY);
	print_double(p, "loss_pct", s->loss_pct, 3, PRINT_JSON_ONLY);
	print_double(p, "rpm", s->rpm, 0, PRINT_JSON_ONLY);
	if (s->grade[0])
		print_str(p, "grade", s->grade, PRINT_JSON_ONLY);
	else
		print_null(p, "grade", NULL, PRINT_JSON_ONLY);
	print_double(p, "download_fairness", s->download.jain, 4, PRINT_JSON_ONLY);
	print_double(p, "upload_fairness", s->upload.jain, 4, PRINT_JSON_ONLY);
	print_uint(p, "download_flows", s->download.nflows, PRINT_JSON_ONLY);
	print_uint(p, "upload_flows", s->upload.nflows, PRINT_JSON_ONLY);

	print_open_array(p, "flows");
	for (size_t i = 0; i < s->nflows; i++) {
		const struct flow_summary *f = &s->flows[i];

		print_open_object(p, NULL);
		print_str(p, "name", f->name, PRINT_JSON_ONLY);
		print_str(p, "direction", kind_name(f->kind), PRINT_JSON_ONLY);
		print_uint(p, "tos", f->tos, PRINT_JSON_ONLY);
		print_double(p, "mean_mbps", f->mean_mbps, 3, PRINT_JSON_ONLY);
		print_double(p, "tcp_rtt_p50_ms", f->tcp_rtt_p50_ms, 3, PRINT_JSON_ONLY);
		print_close(p);
	}
	print_close(p);

	print_open_array(p, "probes");
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct probe_summary *ps = &s->probes[i];

		print_open_object(p, NULL);
		print_str(p, "name", ps->name, PRINT_JSON_ONLY);
		print_uint(p, "tos", ps->tos, PRINT_JSON_ONLY);
		json_latency(p, "latency_idle_ms", &ps->idle);
		json_latency(p, "latency_loaded_ms", &ps->loaded);
		print_double(p, "induced_latency_ms", ps->induced_ms, 3, PRINT_JSON_ONLY);
		print_uint(p, "sent", ps->sent, PRINT_JSON_ONLY);
		print_uint(p, "lost", ps->lost, PRINT_JSON_ONLY);
		print_double(p, "loss_pct", ps->loss_pct, 3, PRINT_JSON_ONLY);
		print_close(p);
	}
	print_close(p);
	print_close(p);
}

static void json_series(struct printer *p, const struct test_result *r)
{
	print_open_object(p, "series");
	for (size_t i = 0; i < r->nseries; i++) {
		const struct series *se = &r->series[i];

		print_open_object(p, se->name);
		print_str(p, "kind", kind_name(se->kind), PRINT_JSON_ONLY);
		print_str(p, "unit", se->unit, PRINT_JSON_ONLY);
		print_uint(p, "tos", se->tos, PRINT_JSON_ONLY);
		print_open_array(p, "values");
		for (size_t k = 0; k < r->nsteps; k++)
			print_double(p, NULL, se->values[k], 3, PRINT_JSON_ONLY);
		print_close(p);
		print_close(p);
	}
	print_close(p);
}

static void json_document(struct printer *p, const struct test_result *r, const struct summary *s)
{
	print_str(p, "test", r->test, PRINT_JSON_ONLY);
	print_str(p, "host", r->host, PRINT_JSON_ONLY);
	print_str(p, "local_host", r->local_host, PRINT_JSON_ONLY);
	print_str(p, "label", r->label[0] ? r->label : NULL, PRINT_JSON_ONLY);
	print_str(p, "cc", r->cc[0] ? r->cc : NULL, PRINT_JSON_ONLY);
	print_uint(p, "ip_version", (uint64_t)r->ip_version, PRINT_JSON_ONLY);
	print_double(p, "length_s", r->length_s, 3, PRINT_JSON_ONLY);
	print_double(p, "delay_s", r->delay_s, 3, PRINT_JSON_ONLY);
	print_double(p, "step_s", r->step_s, 3, PRINT_JSON_ONLY);
	print_double(p, "t0", r->t0, 6, PRINT_JSON_ONLY);
	print_str(p, "time", r->time_utc[0] ? r->time_utc : NULL, PRINT_JSON_ONLY);
	print_bool(p, "server_overloaded", r->server_overloaded, PRINT_JSON_ONLY);
	print_bool(p, "client_cpu_saturated", r->client_cpu_saturated, PRINT_JSON_ONLY);
	print_bool(p, "interrupted", r->interrupted, PRINT_JSON_ONLY);
	print_str(p, "unavailable", r->unavailable[0] ? r->unavailable : NULL, PRINT_JSON_ONLY);
	print_open_object(p, "granted");
	print_uint(p, "interval_us", r->granted_interval_us, PRINT_JSON_ONLY);
	print_uint(p, "probe_len_bytes", r->granted_probe_len, PRINT_JSON_ONLY);
	print_uint(p, "duration_ms", r->granted_duration_ms, PRINT_JSON_ONLY);
	print_close(p);
	json_summary(p, s);
	json_series(p, r);
}

/* ---- text ---- */

static void text_latency_row(struct printer *p, const char *name, const struct latency_stats *idle,
			     const struct latency_stats *loaded, double induced, double loss)
{
	char b[8][24];

	print_text(p, "%-20s %8s %8s %8s  %8s %8s %8s  %8s  %6s", name, num(b[0], 24, idle->p50, 2),
		   num(b[1], 24, idle->p90, 2), num(b[2], 24, idle->p99, 2),
		   num(b[3], 24, loaded->p50, 2), num(b[4], 24, loaded->p90, 2),
		   num(b[5], 24, loaded->p99, 2), num(b[6], 24, induced, 2),
		   num(b[7], 24, loss, 1));
	print_nl(p);
}

/* How long the queue took to empty after the load, which the idle numbers leave out. */
static void text_drain(struct printer *p, const struct summary *s)
{
	char b[2][24];

	if (s->drain == DRAIN_DONE)
		print_text(p, "queue drained %s s after the load (probes back at or below %s ms); "
			      "idle excludes the drain",
			   num(b[0], 24, s->drain_s, 2), num(b[1], 24, s->idle_threshold_ms, 1));
	else if (s->drain == DRAIN_NEVER)
		print_text(p, "queue still draining when the test ended (probes above %s ms): "
			      "idle is the time before the load only",
			   num(b[0], 24, s->idle_threshold_ms, 1));
	else
		return;
	print_nl(p);
}

static void text_direction(struct printer *p, const char *label, enum series_kind kind,
			   const struct summary *s, const struct direction_summary *d)
{
	char b[2][24];

	if (!d->nflows)
		return;
	print_text(p, "%-9s %s Mbit/s in %zu flow%s, fairness %s:", label,
		   num(b[0], 24, d->sum_mbps, 2), d->nflows, d->nflows == 1 ? "" : "s",
		   num(b[1], 24, d->jain, 3));
	for (size_t i = 0; i < s->nflows; i++) {
		const struct flow_summary *f = &s->flows[i];
		/* "TCP download EF" -> "EF"; "TCP upload::3" -> "3"; "TCP upload" stays. */
		const char *shortname = strrchr(f->name, ':');

		if (f->kind != kind)
			continue;
		if (shortname)
			shortname++;
		else if ((shortname = strrchr(f->name, ' ')) && strcmp(shortname, " upload") &&
			 strcmp(shortname, " download"))
			shortname++;
		else
			shortname = f->name;
		print_text(p, "%s %s", shortname, num(b[0], 24, f->mean_mbps, 1));
	}
	print_nl(p);
}

static void text_document(struct printer *p, const struct test_result *r, const struct summary *s)
{
	char b[4][24], safe[4 * sizeof(r->label)];

	print_text(p, "%s to %s (IPv%d): load %s s, idle %s s before and after, step %s s", r->test,
		   r->host, r->ip_version, num(b[0], 24, r->length_s, 1),
		   num(b[1], 24, r->delay_s, 1), num(b[2], 24, r->step_s, 2));
	if (r->label[0])
		print_text(p, ", label \"%s\"", print_escape(safe, sizeof(safe), r->label));
	if (r->cc[0])
		print_text(p, ", cc %s", print_escape(safe, sizeof(safe), r->cc));
	print_nl(p);
	print_nl(p);

	print_text(p, "%-20s %8s %8s %8s  %8s %8s %8s  %8s  %6s", "latency (ms)", "idle p50", "p90",
		   "p99", "load p50", "p90", "p99", "induced", "loss%");
	print_nl(p);
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct probe_summary *ps = &s->probes[i];
		const char *name = strncmp(ps->name, "Ping (ms) ", 10) ? ps->name : ps->name + 10;

		text_latency_row(p, name, &ps->idle, &ps->loaded, ps->induced_ms, ps->loss_pct);
	}
	if (s->nprobes > 1)
		text_latency_row(p, "all probes", &s->idle, &s->loaded, s->induced_ms, s->loss_pct);
	text_drain(p, s);
	print_nl(p);

	text_direction(p, "download", SERIES_DOWNLOAD, s, &s->download);
	text_direction(p, "upload", SERIES_UPLOAD, s, &s->upload);
	if (s->download.nflows || s->upload.nflows)
		print_nl(p);

	print_text(p, "induced latency %s ms, grade %s, responsiveness %s RPM, loss %s%%",
		   num(b[0], 24, s->induced_ms, 1), s->grade[0] ? s->grade : "-",
		   num(b[1], 24, s->rpm, 0), num(b[2], 24, s->loss_pct, 2));
	print_nl(p);

	if (r->interrupted) {
		print_text(p, "warning: interrupted: these numbers cover only the part that ran");
		print_nl(p);
	}
	if (r->server_overloaded) {
		print_text(p, "warning: the server reported it was overloaded: these numbers may "
			      "measure the server, not the path");
		print_nl(p);
	}
	if (r->client_cpu_saturated) {
		print_text(p, "warning: this client's CPU was saturated during the load: "
			      "throughput and latency may be limited by this host");
		print_nl(p);
	}
	if (r->unavailable[0]) {
		print_text(p, "warning: not measured: %s", r->unavailable);
		print_nl(p);
	}
}

void result_print(struct printer *p, const struct test_result *r, const struct summary *s)
{
	if (print_is_json(p))
		json_document(p, r, s);
	else
		text_document(p, r, s);
}

int result_write_json(const char *path, const struct test_result *r, const struct summary *s)
{
	struct printer *p;
	struct outfile o;
	int ret = outfile_open(&o, path);

	if (ret < 0)
		return ret;
	p = print_new(o.f, PRINT_MODE_JSON);
	if (!p)
		return outfile_close(&o, -ENOMEM);
	result_print(p, r, s);
	ret = print_finish(p);
	print_free(p);
	return outfile_close(&o, ret);
}
