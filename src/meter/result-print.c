/* SPDX-License-Identifier: MIT */
/* meter/result-print.c - meter/result-print.h: the text summary and the JSON document of a test. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debloat/rpm.h"
#include "meter/result-print.h"
#include "base/outfile.h"

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

static void json_summary(struct printer *p, const struct test_result *r, const struct summary *s)
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
	if (r->rpm.present) /* test rpm only: other tests' documents keep their keys */
		print_double(p, "rpm_ietf", s->rpm_ietf, 0, PRINT_JSON_ONLY);
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

static void json_rpm(struct printer *p, const struct result_rpm *m)
{
	bool h1 = !strcmp(m->protocol, "http/1.1");

	print_open_object(p, "rpm");
	print_str(p, "protocol", m->protocol, PRINT_JSON_ONLY);
	print_bool(p, "tls", m->tls, PRINT_JSON_ONLY);
	print_str(p, "mode", m->sequential ? "sequential" : "concurrent", PRINT_JSON_ONLY);
	print_str(p, "config_url", m->config_url, PRINT_JSON_ONLY);
	print_double(p, "rpm", m->rpm, 0, PRINT_JSON_ONLY);
	print_str(p, "class", isfinite(m->rpm) ? rpm_class(m->rpm) : NULL, PRINT_JSON_ONLY);
	print_open_object(p, "parameters");
	print_uint(p, "mad", m->mad, PRINT_JSON_ONLY);
	print_double(p, "id_s", m->id_s, 3, PRINT_JSON_ONLY);
	print_uint(p, "tmp_pct", m->tmp, PRINT_JSON_ONLY);
	print_double(p, "sdt_pct", m->sdt * 100, 3, PRINT_JSON_ONLY);
	print_uint(p, "mnp", m->mnp, PRINT_JSON_ONLY);
	print_uint(p, "mps", m->mps, PRINT_JSON_ONLY);
	print_double(p, "ptc_pct", m->ptc * 100, 3, PRINT_JSON_ONLY);
	print_double(p, "max_time_s", m->max_s, 3, PRINT_JSON_ONLY);
	print_close(p);
	print_open_array(p, "stages");
	for (size_t i = 0; i < m->nstages; i++) {
		const struct result_rpm_stage *st = &m->stages[i];

		print_open_object(p, NULL);
		print_str(p, "direction", st->direction, PRINT_JSON_ONLY);
		print_double(p, "rpm", st->rpm, 0, PRINT_JSON_ONLY);
		print_str(p, "class", isfinite(st->rpm) ? rpm_class(st->rpm) : NULL,
			  PRINT_JSON_ONLY);
		print_double(p, "foreign_rpm", st->foreign_rpm, 0, PRINT_JSON_ONLY);
		print_double(p, "loaded_rpm", st->loaded_rpm, 0, PRINT_JSON_ONLY);
		print_double(p, "tcp_f_ms", st->tcp_ms, 3, PRINT_JSON_ONLY);
		print_double(p, "tls_f_ms", st->tls_ms, 3, PRINT_JSON_ONLY);
		print_double(p, "http_f_ms", st->http_f_ms, 3, PRINT_JSON_ONLY);
		print_double(p, "http_l_ms", st->http_l_ms, 3, PRINT_JSON_ONLY);
		print_str(p, "self_probe", h1 ? "tcp_info" : "http", PRINT_JSON_ONLY);
		print_double(p, "goodput_mbps", st->goodput_mbps, 3, PRINT_JSON_ONLY);
		print_uint(p, "connections", st->connections, PRINT_JSON_ONLY);
		print_uint(p, "intervals", st->intervals, PRINT_JSON_ONLY);
		print_bool(p, "goodput_saturated", st->saturated, PRINT_JSON_ONLY);
		print_bool(p, "rpm_stable", st->stable, PRINT_JSON_ONLY);
		print_str(p, "confidence", st->confidence, PRINT_JSON_ONLY);
		print_uint(p, "foreign_probes", st->foreign_probes, PRINT_JSON_ONLY);
		print_uint(p, "self_probes", st->self_probes, PRINT_JSON_ONLY);
		print_double(p, "duration_s", st->duration_s, 3, PRINT_JSON_ONLY);
		print_str(p, "error", st->error[0] ? st->error : NULL, PRINT_JSON_ONLY);
		print_close(p);
	}
	print_close(p);
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
	json_summary(p, r, s);
	if (r->rpm.present)
		json_rpm(p, &r->rpm);
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

	print_text(p,
		   "induced latency %s ms, grade %s, responsiveness from probe p50 %s RPM, "
		   "loss %s%%",
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

/* ---- text of test rpm ---- */

static void text_rpm_stage(struct printer *p, const struct result_rpm *m,
			   const struct result_rpm_stage *st, bool verbose)
{
	bool h1 = !strcmp(m->protocol, "http/1.1");
	char b[8][24];

	print_text(p, "%-9s %s RPM (%s), confidence %s", st->direction, num(b[0], 24, st->rpm, 0),
		   isfinite(st->rpm) ? rpm_class(st->rpm) : "not measured", st->confidence);
	print_nl(p);
	print_indent(p, 1);
	/* the draft's foreign components: TCP, TLS (over TLS only), HTTP */
	if (m->tls)
		snprintf(b[5], sizeof(b[5]), "%s", num(b[6], 24, st->tls_ms, 2));
	print_text(p,
		   "foreign %s RPM (TCP handshake %s ms, %s%s%sHTTP GET %s ms), loaded %s RPM "
		   "(%s %s ms)",
		   num(b[0], 24, st->foreign_rpm, 0), num(b[1], 24, st->tcp_ms, 2),
		   m->tls ? "TLS handshake " : "", m->tls ? b[5] : "", m->tls ? " ms, " : "",
		   num(b[2], 24, st->http_f_ms, 2), num(b[3], 24, st->loaded_rpm, 0),
		   h1 ? "TCP RTT of the load" : "HTTP GET on the load",
		   num(b[4], 24, st->http_l_ms, 2));
	print_nl(p);
	print_text(p, "goodput %s Mbit/s in %u connection%s, %s",
		   num(b[0], 24, st->goodput_mbps, 2), st->connections,
		   st->connections == 1 ? "" : "s", st->saturated ? "saturated" : "not saturated");
	print_nl(p);
	if (verbose) {
		print_text(p, "RPM %s, %u intervals in %s s, %u foreign and %u self probes",
			   st->stable ? "stable" : "not stable", st->intervals,
			   num(b[1], 24, st->duration_s, 1), st->foreign_probes, st->self_probes);
		print_nl(p);
	}
	if (st->error[0]) {
		print_text(p, "stopped early: %s", st->error);
		print_nl(p);
	}
	print_indent(p, 0);
}

static void text_rpm(struct printer *p, const struct test_result *r, bool verbose)
{
	const struct result_rpm *m = &r->rpm;
	char b[4][24], safe[4 * sizeof(r->label)];

	print_text(p, "rpm to %s (IPv%d, %s%s, %s)", r->host, r->ip_version, m->protocol,
		   m->tls ? " over TLS" : "", m->sequential ? "sequential" : "concurrent");
	if (r->label[0])
		print_text(p, ", label \"%s\"", print_escape(safe, sizeof(safe), r->label));
	print_nl(p);
	if (verbose) {
		print_text(p, "config %s", print_escape(safe, sizeof(safe), m->config_url));
		print_nl(p);
		print_text(p,
			   "MAD %u, ID %s s, TMP %u%%, SDT %s%%, MNP %u, MPS %u, PTC %s%%, "
			   "at most %s s a stage",
			   m->mad, num(b[0], 24, m->id_s, 2), m->tmp,
			   num(b[1], 24, m->sdt * 100, 1), m->mnp, m->mps,
			   num(b[2], 24, m->ptc * 100, 1), num(b[3], 24, m->max_s, 1));
		print_nl(p);
	}
	print_nl(p);
	for (size_t i = 0; i < m->nstages; i++)
		text_rpm_stage(p, m, &m->stages[i], verbose);
	print_nl(p);
	print_text(p, "responsiveness %s RPM (%s)%s", num(b[0], 24, m->rpm, 0),
		   isfinite(m->rpm) ? rpm_class(m->rpm) : "not measured",
		   m->nstages > 1 ? ", the worse direction" : "");
	print_nl(p);
	if (r->interrupted) {
		print_text(p, "warning: interrupted: these numbers cover only the part that ran");
		print_nl(p);
	}
}

void result_print_rpm(struct printer *p, const struct test_result *r, const struct summary *s,
		      bool verbose)
{
	if (print_is_json(p))
		json_document(p, r, s);
	else if (r->rpm.present)
		text_rpm(p, r, verbose);
	else
		text_document(p, r, s);
}

void result_print(struct printer *p, const struct test_result *r, const struct summary *s)
{
	result_print_rpm(p, r, s, false);
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
