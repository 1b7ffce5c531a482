/* SPDX-License-Identifier: MIT */
/*
 * meter/result-print.c - meter/result-print.h: a test's result, each fact printed once,
 * where the JSON document has it. The text tells the facts in an order of its own (the
 * latency table, the drain, the throughput, a summary line, the warnings; test rpm's
 * stages): each call sends its words to the part of the text they belong in (print.h's
 * sections and table), and print_sections_end() lays the parts out in reading order.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "base/outfile.h"
#include "debloat/rpm.h"
#include "meter/result-print.h"

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

/* A stage of test rpm's text, in reading order (the JSON's is the stage's keys'). */
enum stage_part {
	ST_HEAD,	  /* "download  1180 RPM (Good)" */
	ST_CONFIDENCE,	  /* ", confidence high", end of line */
	ST_FOREIGN,	  /* "foreign 1770 RPM" */
	ST_FOREIGN_PARTS, /* " (TCP handshake 12.25 ms, TLS handshake ..., HTTP GET ... ms)" */
	ST_LOADED,	  /* ", loaded 885 RPM (" */
	ST_SELF_PROBE,	  /* "HTTP GET on the load" */
	ST_HTTP_L,	  /* " 80.12 ms)", end of line */
	ST_GOODPUT,	  /* "goodput 93.75 Mbit/s in 8 connections," */
	ST_SATURATED,	  /* " saturated", end of line */
	ST_CAPACITY,	  /* both ways at once: "download 47.10 Mbit/s in 4 connections, ..." */
	ST_STABLE,	  /* verbose: "RPM stable," */
	ST_INTERVALS,	  /* " 14 intervals" */
	ST_DURATION,	  /* " in 14.5 s," */
	ST_PROBES,	  /* " 140 foreign and 1120 self probes", end of line */
	ST_ERROR,	  /* "stopped early: ..." */
	ST_COUNT
};

/* The text's parts in reading order; a document fills those of its kind (rrul or rpm). */
enum section {
	S_HEAD,	      /* "rrul to 192.0.2.1" */
	S_HEAD_RUN,   /* " (IPv4): load 6.0 s, ..." or " (IPv4, h2 over TLS, sequential)" */
	S_HEAD_LABEL, /* ", label "x", cc bbr", end of line */
	S_RPM_DRAFT,  /* test rpm: "following draft-ietf-ippm-responsiveness-09" */
	S_RPM_CONFIG, /* test rpm, verbose: the config URL */
	S_RPM_PARAMS, /* test rpm, verbose: the draft's parameters; a blank line */
	S_LATENCY,    /* the latency table */
	S_DRAIN,      /* the drain; a blank line */
	S_DOWNLOAD,   /* "download  80.00 Mbit/s", " in 4 flows", ", fairness 1.000:", flows */
	S_UPLOAD = S_DOWNLOAD + 4,
	S_FLOWS_END = S_UPLOAD + 4, /* a blank line after them */
	S_SUM_INDUCED,		    /* "induced latency 94.5 ms" */
	S_SUM_GRADE,		    /* ", grade C" */
	S_SUM_RPM,		    /* ", responsiveness from probe p50 550 RPM" */
	S_SUM_LOSS,		    /* ", loss 1.49%", end of line */
	S_RPM_STAGE,		    /* test rpm: ST_COUNT a stage */
	S_RPM_END = S_RPM_STAGE + RESULT_RPM_MAX_STAGES * ST_COUNT, /* "responsiveness ..." */
	S_WARN_INTERRUPTED,
	S_WARN_OVERLOADED,
	S_WARN_CPU,
	S_WARN_UNAVAILABLE,
	S_COUNT
};
_Static_assert(S_COUNT <= PRINT_SECTIONS, "print.h keeps PRINT_SECTIONS sections");

/* Text to section s when this document shows it, else nowhere (JSON only). */
static void to(struct printer *p, bool shown, unsigned s)
{
	print_section(p, shown ? s : PRINT_SECTION_NONE);
}

/*
 * The latency table: "%-20s %8s %8s %8s  %8s %8s %8s  %8s  %6s", a probe a row. Each
 * cell is right-aligned in itself (a blank before the loaded, induced and loss
 * columns); the blank between two cells is the one print_text() puts after a word.
 */
enum { COL_IDLE = 0, COL_LOADED = 3, COL_INDUCED = 6, COL_LOSS = 7 };
/* Fits 80 columns: probes named in 12, p50s 8 wide, p90s and p99s 7 (a blank between
 * cells, one more before the loaded, induced and loss columns). */
static const struct print_table_layout latency_layout = {.label_w = 12, .col_w = 0, .sep = ""};

/* {"p50", "p90", "p99", "samples"} and three cells of row (NULL: JSON only) from col. */
static void print_latency(struct printer *p, const char *key, const struct latency_stats *st,
			  const char *row, size_t col)
{
	const char *lead = col == COL_LOADED ? " " : "";
	char b[24];

	print_open_object(p, key);
	print_double_cell(p, "p50", st->p50, col, row, "%s%8s", lead, num(b, 24, st->p50, 2));
	print_double_cell(p, "p90", st->p90, col + 1, row, "%7s", num(b, 24, st->p90, 2));
	print_double_cell(p, "p99", st->p99, col + 2, row, "%7s", num(b, 24, st->p99, 2));
	print_uint(p, "samples", st->n, PRINT_JSON_ONLY);
	print_close(p);
}

/* A probe's row: "Ping (ms) UDP EF" shows as "UDP EF". */
static const char *probe_row(const struct probe_summary *ps)
{
	return strncmp(ps->name, "Ping (ms) ", 10) ? ps->name : ps->name + 10;
}

/* "TCP download EF" -> "EF"; "TCP upload::3" -> "3"; "TCP upload" stays. */
static const char *flow_shortname(const char *name)
{
	const char *s = strrchr(name, ':');

	if (s)
		return s + 1;
	if ((s = strrchr(name, ' ')) && strcmp(s, " upload") && strcmp(s, " download"))
		return s + 1;
	return name;
}

static void print_probe(struct printer *p, const struct probe_summary *ps)
{
	const char *row = probe_row(ps);
	char b[24];

	print_open_object(p, NULL);
	print_str(p, "name", ps->name, PRINT_JSON_ONLY); /* the row's label */
	print_uint(p, "tos", ps->tos, PRINT_JSON_ONLY);
	print_latency(p, "latency_idle_ms", &ps->idle, row, COL_IDLE);
	print_latency(p, "latency_loaded_ms", &ps->loaded, row, COL_LOADED);
	print_double_cell(p, "induced_latency_ms", ps->induced_ms, COL_INDUCED, row, " %8s",
			  num(b, 24, ps->induced_ms, 2));
	print_uint(p, "sent", ps->sent, PRINT_JSON_ONLY);
	print_uint(p, "lost", ps->lost, PRINT_JSON_ONLY);
	print_double_cell(p, "loss_pct", ps->loss_pct, COL_LOSS, row, "%6s",
			  num(b, 24, ps->loss_pct, 1));
	print_close(p);
}

/* The table's heading and rows, named before the cells (which come in the JSON's order). */
static void latency_table_begin(struct printer *p, const struct summary *s)
{
	static const char *const head[] = {"idle p50", "p90", "p99",	 "load p50",
					   "p90",      "p99", "induced", "loss%"};

	print_table_begin(p);
	for (size_t c = 0; c < COUNT(head); c++)
		print_cell(p, c, "latency (ms)", "%s%*s",
			   c == COL_LOADED || c == COL_INDUCED ? " " : "",
			   c == COL_LOSS ? 6
			   : c == COL_IDLE + 1 || c == COL_IDLE + 2 || c == COL_LOADED + 1 ||
				   c == COL_LOADED + 2
			       ? 7
			       : 8,
			   head[c]);
	for (size_t i = 0; i < s->nprobes; i++)
		print_table_row(p, probe_row(&s->probes[i]));
}

/* How long the queue took to empty after the load, which the idle numbers leave out. */
static void print_drain(struct printer *p, const struct summary *s, bool shown)
{
	char b[24];

	to(p, shown, S_DRAIN);
	print_double_phrase(p, "drain_s", s->drain_s, "%s",
			    s->drain == DRAIN_DONE    ? "queue drained "
			    : s->drain == DRAIN_NEVER ? "queue still draining when the test ended"
						      : "");
	if (s->drain == DRAIN_DONE)
		print_phrase(p, "%s s after the load", num(b, 24, s->drain_s, 2));
	if (s->drain == DRAIN_NONE)
		print_null_phrase(p, "drained", "%s", "");
	else
		print_bool_phrase(p, "drained", s->drain == DRAIN_DONE, "%s", "");
	print_double_phrase(p, "idle_threshold_ms", s->idle_threshold_ms, "%s%s%s",
			    s->drain == DRAIN_DONE    ? " (probes back at or below "
			    : s->drain == DRAIN_NEVER ? " (probes above "
						      : "",
			    s->drain == DRAIN_NONE ? "" : num(b, 24, s->idle_threshold_ms, 1),
			    s->drain == DRAIN_DONE ? " ms); idle excludes the drain"
			    : s->drain == DRAIN_NEVER
				? " ms): idle is the time before the load only"
				: "");
	if (s->drain != DRAIN_NONE)
		print_nl(p);
	print_nl(p);
}

static void print_flow(struct printer *p, const struct summary *s, const struct flow_summary *f,
		       bool shown)
{
	bool down = f->kind == SERIES_DOWNLOAD, up = f->kind == SERIES_UPLOAD;
	char b[24];

	/* a line for each direction that has flows: "download ...: BE 20.0 BK 20.0" */
	to(p, shown && ((down && s->download.nflows) || (up && s->upload.nflows)),
	   (down ? S_DOWNLOAD : S_UPLOAD) + 3);
	print_open_object(p, NULL);
	print_str_phrase(p, "name", f->name, " %s", flow_shortname(f->name));
	print_str(p, "direction", kind_name(f->kind), PRINT_JSON_ONLY);
	print_uint(p, "tos", f->tos, PRINT_JSON_ONLY);
	print_double_phrase(p, "mean_mbps", f->mean_mbps, " %s", num(b, 24, f->mean_mbps, 1));
	print_double(p, "tcp_rtt_p50_ms", f->tcp_rtt_p50_ms, 3, PRINT_JSON_ONLY);
	print_close(p);
}

static void print_summary(struct printer *p, const struct test_result *r, const struct summary *s)
{
	bool shown = !r->rpm.present; /* test rpm's text is the draft's figures */
	bool down = shown && s->download.nflows, up = shown && s->upload.nflows;
	const char *all = s->nprobes > 1 ? "all probes" : NULL; /* the pooled row */
	char b[24];

	print_open_object(p, "summary");
	latency_table_begin(p, s);
	print_table_row(p, all);
	to(p, down, S_DOWNLOAD);
	print_double_phrase(p, "download_mbps", s->download.sum_mbps, "%-9s %s Mbit/s", "download",
			    num(b, 24, s->download.sum_mbps, 2));
	to(p, up, S_UPLOAD);
	print_double_phrase(p, "upload_mbps", s->upload.sum_mbps, "%-9s %s Mbit/s", "upload",
			    num(b, 24, s->upload.sum_mbps, 2));
	print_latency(p, "latency_idle_ms", &s->idle, all, COL_IDLE);
	print_latency(p, "latency_loaded_ms", &s->loaded, all, COL_LOADED);
	print_drain(p, s, shown);
	/* the pooled row's, and the summary line's with one decimal less (more for loss) */
	print_cell(p, COL_INDUCED, all, " %8s", num(b, 24, s->induced_ms, 2));
	to(p, shown, S_SUM_INDUCED);
	print_double_phrase(p, "induced_latency_ms", s->induced_ms, "induced latency %s ms",
			    num(b, 24, s->induced_ms, 1));
	print_cell(p, COL_LOSS, all, "%6s", num(b, 24, s->loss_pct, 1));
	to(p, shown, S_SUM_LOSS);
	print_double_phrase(p, "loss_pct", s->loss_pct, ", loss %s%%", num(b, 24, s->loss_pct, 2));
	print_nl(p);
	to(p, shown, S_SUM_RPM);
	print_double_phrase(p, "rpm", s->rpm, ", responsiveness from probe p50 %s RPM",
			    num(b, 24, s->rpm, 0));
	if (r->rpm.present) /* test rpm only: other tests' documents keep their keys */
		print_double(p, "rpm_ietf", s->rpm_ietf, 0, PRINT_JSON_ONLY);
	to(p, shown, S_SUM_GRADE);
	print_str_phrase(p, "grade", s->grade[0] ? s->grade : NULL, ", grade %s",
			 s->grade[0] ? s->grade : "-");
	to(p, down, S_DOWNLOAD + 2);
	print_double_phrase(p, "download_fairness", s->download.jain,
			    ", fairness %s:", num(b, 24, s->download.jain, 3));
	to(p, up, S_UPLOAD + 2);
	print_double_phrase(p, "upload_fairness", s->upload.jain,
			    ", fairness %s:", num(b, 24, s->upload.jain, 3));
	to(p, down, S_DOWNLOAD + 1);
	print_uint_phrase(p, "download_flows", s->download.nflows, " in %zu flow%s",
			  s->download.nflows, s->download.nflows == 1 ? "" : "s");
	to(p, up, S_UPLOAD + 1);
	print_uint_phrase(p, "upload_flows", s->upload.nflows, " in %zu flow%s", s->upload.nflows,
			  s->upload.nflows == 1 ? "" : "s");

	print_open_array(p, "flows");
	for (size_t i = 0; i < s->nflows; i++)
		print_flow(p, s, &s->flows[i], shown);
	print_close(p);
	to(p, down, S_DOWNLOAD + 3);
	print_nl(p);
	to(p, up, S_UPLOAD + 3);
	print_nl(p);
	to(p, down || up, S_FLOWS_END);
	print_nl(p);

	print_open_array(p, "probes");
	for (size_t i = 0; i < s->nprobes; i++)
		print_probe(p, &s->probes[i]);
	print_close(p);
	print_close(p);
	to(p, shown, S_LATENCY);
	print_table_end(p, &latency_layout);
}

/*
 * Each direction's share of the goodput (JSON: every stage; null for a direction not
 * loaded), in text for a stage that loaded both at once: the capacity each way.
 */
static void print_stage_capacity(struct printer *p, const struct result_rpm_stage *st, unsigned sec)
{
	static const char *const key[2][2] = {{"download_mbps", "download_connections"},
					      {"upload_mbps", "upload_connections"}};
	bool both = !strcmp(st->direction, "both");
	char b[24];

	to(p, both, sec + ST_CAPACITY);
	for (int d = 0; d < 2; d++) {
		print_double_phrase(p, key[d][0], st->dir_mbps[d], "%s %s Mbit/s",
				    d ? ", upload" : "download", num(b, 24, st->dir_mbps[d], 2));
		print_uint_phrase(p, key[d][1], st->dir_connections[d], " in %u connection%s",
				  st->dir_connections[d], st->dir_connections[d] == 1 ? "" : "s");
	}
	print_nl(p);
}

static void print_rpm_stage(struct printer *p, const struct result_rpm *m, size_t i, bool verbose)
{
	const struct result_rpm_stage *st = &m->stages[i];
	unsigned sec = S_RPM_STAGE + (unsigned)i * ST_COUNT;
	bool h1 = !strcmp(m->protocol, "http/1.1");
	char b[24];

	print_open_object(p, NULL);
	print_section(p, sec + ST_HEAD);
	print_str_phrase(p, "direction", st->direction, "%-9s", st->direction);
	print_double_phrase(p, "rpm", st->rpm, " %s RPM", num(b, 24, st->rpm, 0));
	print_str_phrase(p, "class", isfinite(st->rpm) ? rpm_class(st->rpm) : NULL, " (%s)",
			 isfinite(st->rpm) ? rpm_class(st->rpm) : "not measured");
	print_section(p, sec + ST_FOREIGN);
	print_indent(p, 1);
	print_double_phrase(p, "foreign_rpm", st->foreign_rpm, "foreign %s RPM",
			    num(b, 24, st->foreign_rpm, 0));
	print_section(p, sec + ST_LOADED);
	print_double_phrase(p, "loaded_rpm", st->loaded_rpm, ", loaded %s RPM (",
			    num(b, 24, st->loaded_rpm, 0));
	/* the draft's foreign components: TCP, TLS (over TLS only), HTTP */
	print_section(p, sec + ST_FOREIGN_PARTS);
	print_double_phrase(p, "tcp_f_ms", st->tcp_ms, " (TCP handshake %s ms,",
			    num(b, 24, st->tcp_ms, 2));
	print_double_phrase(p, "tls_f_ms", st->tls_ms, "%s%s%s", m->tls ? " TLS handshake " : "",
			    m->tls ? num(b, 24, st->tls_ms, 2) : "", m->tls ? " ms," : "");
	print_double_phrase(p, "http_f_ms", st->http_f_ms, " HTTP GET %s ms)",
			    num(b, 24, st->http_f_ms, 2));
	print_section(p, sec + ST_HTTP_L);
	print_double_phrase(p, "http_l_ms", st->http_l_ms, " %s ms)", num(b, 24, st->http_l_ms, 2));
	print_nl(p);
	print_section(p, sec + ST_SELF_PROBE);
	print_str_phrase(p, "self_probe", h1 ? "tcp_info" : "http", "%s",
			 h1 ? "TCP RTT of the load" : "HTTP GET on the load");
	print_section(p, sec + ST_GOODPUT);
	print_double_phrase(p, "goodput_mbps", st->goodput_mbps, "goodput %s Mbit/s",
			    num(b, 24, st->goodput_mbps, 2));
	print_uint_phrase(p, "connections", st->connections, " in %u connection%s,",
			  st->connections, st->connections == 1 ? "" : "s");
	to(p, verbose, sec + ST_INTERVALS);
	print_uint_phrase(p, "intervals", st->intervals, " %u intervals", st->intervals);
	print_section(p, sec + ST_SATURATED);
	print_bool_phrase(p, "goodput_saturated", st->saturated, " %s",
			  st->saturated ? "saturated" : "not saturated");
	print_nl(p);
	print_stage_capacity(p, st, sec);
	to(p, verbose, sec + ST_STABLE);
	print_bool_phrase(p, "rpm_stable", st->stable, "RPM %s,",
			  st->stable ? "stable" : "not stable");
	print_section(p, sec + ST_CONFIDENCE);
	print_str_phrase(p, "confidence", st->confidence, ", confidence %s", st->confidence);
	print_nl(p);
	to(p, verbose, sec + ST_PROBES);
	print_uint_phrase(p, "foreign_probes", st->foreign_probes, " %u foreign",
			  st->foreign_probes);
	print_uint_phrase(p, "self_probes", st->self_probes, " and %u self probes",
			  st->self_probes);
	print_nl(p);
	to(p, verbose, sec + ST_DURATION);
	print_double(p, "start_s", st->start_s, 3, PRINT_JSON_ONLY);
	print_double_phrase(p, "duration_s", st->duration_s, " in %s s,",
			    num(b, 24, st->duration_s, 1));
	print_section(p, sec + ST_ERROR);
	print_str_phrase(p, "error", st->error[0] ? st->error : NULL, "%s%s",
			 st->error[0] ? "stopped early: " : "", st->error);
	if (st->error[0])
		print_nl(p);
	print_indent(p, 0);
	print_close(p);
}

/* Test rpm's figures: its text (the header's protocol, the stages, the result). */
static void print_rpm(struct printer *p, const struct result_rpm *m, bool verbose)
{
	char b[24], safe[4 * sizeof(m->config_url)];

	print_open_object(p, "rpm");
	print_section(p, S_HEAD_RUN);
	print_str_phrase(p, "protocol", m->protocol, ", %s", m->protocol);
	print_bool_phrase(p, "tls", m->tls, "%s", m->tls ? " over TLS" : "");
	print_str_phrase(p, "mode", m->sequential ? "sequential" : "concurrent", ", %s)",
			 m->sequential ? "sequential" : "concurrent");
	print_section(p, S_RPM_DRAFT);
	print_str_phrase(p, "draft", m->draft[0] ? m->draft : NULL, "%s%s",
			 m->draft[0] ? "following " : "", m->draft);
	if (m->draft[0])
		print_nl(p);
	to(p, verbose, S_RPM_CONFIG);
	print_str_phrase(p, "config_url", m->config_url, "config %s",
			 print_escape(safe, sizeof(safe), m->config_url));
	print_nl(p);
	print_section(p, S_RPM_END);
	print_nl(p);
	print_double_phrase(p, "rpm", m->rpm, "responsiveness %s RPM", num(b, 24, m->rpm, 0));
	print_str_phrase(p, "class", isfinite(m->rpm) ? rpm_class(m->rpm) : NULL, " (%s)%s",
			 isfinite(m->rpm) ? rpm_class(m->rpm) : "not measured",
			 m->nstages > 1 ? ", the worse direction" : "");
	print_nl(p);

	to(p, verbose, S_RPM_PARAMS);
	print_open_object(p, "parameters");
	print_uint_phrase(p, "mad", m->mad, "MAD %u", m->mad);
	print_double_phrase(p, "id_s", m->id_s, ", ID %s s", num(b, 24, m->id_s, 2));
	print_uint_phrase(p, "tmp_pct", m->tmp, ", TMP %u%%", m->tmp);
	print_double_phrase(p, "sdt_pct", m->sdt * 100, ", SDT %s%%", num(b, 24, m->sdt * 100, 1));
	print_uint_phrase(p, "mnp", m->mnp, ", MNP %u", m->mnp);
	print_uint_phrase(p, "mps", m->mps, ", MPS %u", m->mps);
	print_double_phrase(p, "ptc_pct", m->ptc * 100, ", PTC %s%%", num(b, 24, m->ptc * 100, 1));
	print_double_phrase(p, "max_time_s", m->max_s, ", at most %s s a stage",
			    num(b, 24, m->max_s, 1));
	print_nl(p);
	print_close(p);
	print_section(p, S_RPM_PARAMS);
	print_nl(p); /* the blank line before the stages, verbose or not */

	print_open_array(p, "stages");
	for (size_t i = 0; i < m->nstages && i < RESULT_RPM_MAX_STAGES; i++)
		print_rpm_stage(p, m, i, verbose);
	print_close(p);
	print_close(p);
}

static void print_series(struct printer *p, const struct test_result *r)
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

/* A warning line of its own when flag is set and this document's text shows it. */
static void print_warning(struct printer *p, const char *key, bool flag, bool shown, unsigned sec,
			  const char *words)
{
	to(p, shown, sec);
	print_bool_phrase(p, key, flag, "%s%s", flag ? "warning: " : "", flag ? words : "");
	if (flag)
		print_nl(p);
}

static void print_document(struct printer *p, const struct test_result *r, const struct summary *s,
			   bool verbose)
{
	bool rrul = !r->rpm.present; /* the text of any test but rpm */
	char b[24], safe[4 * sizeof(r->label)], words[sizeof(r->unavailable) + 32];

	print_section(p, S_HEAD);
	print_str_phrase(p, "test", r->test, "%s to", rrul ? r->test : "rpm");
	print_str_phrase(p, "host", r->host, " %s", r->host);
	print_str(p, "local_host", r->local_host, PRINT_JSON_ONLY);
	print_section(p, S_HEAD_LABEL);
	print_str_phrase(
	    p, "label", r->label[0] ? r->label : NULL, "%s%s%s", r->label[0] ? ", label \"" : "",
	    r->label[0] ? print_escape(safe, sizeof(safe), r->label) : "", r->label[0] ? "\"" : "");
	print_str_phrase(p, "cc", r->cc[0] ? r->cc : NULL, "%s%s", r->cc[0] && rrul ? ", cc " : "",
			 r->cc[0] && rrul ? print_escape(safe, sizeof(safe), r->cc) : "");
	print_nl(p);
	if (rrul)
		print_nl(p);
	print_section(p, S_HEAD_RUN);
	print_uint_phrase(p, "ip_version", (uint64_t)r->ip_version, " (IPv%d%s", r->ip_version,
			  rrul ? "):" : "");
	to(p, rrul, S_HEAD_RUN);
	print_double_phrase(p, "length_s", r->length_s, " load %s s,", num(b, 24, r->length_s, 1));
	print_double_phrase(p, "delay_s", r->delay_s, " idle %s s before and after,",
			    num(b, 24, r->delay_s, 1));
	print_double_phrase(p, "step_s", r->step_s, " step %s s", num(b, 24, r->step_s, 2));
	print_double(p, "t0", r->t0, 6, PRINT_JSON_ONLY);
	print_str(p, "time", r->time_utc[0] ? r->time_utc : NULL, PRINT_JSON_ONLY);
	print_warning(p, "server_overloaded", r->server_overloaded, rrul, S_WARN_OVERLOADED,
		      "the server reported it was overloaded: these numbers may measure the "
		      "server, not the path");
	print_warning(p, "client_cpu_saturated", r->client_cpu_saturated, rrul, S_WARN_CPU,
		      "this client's CPU was saturated during the load: throughput and latency "
		      "may be limited by this host");
	print_warning(p, "interrupted", r->interrupted, true, S_WARN_INTERRUPTED,
		      "interrupted: these numbers cover only the part that ran");
	to(p, rrul, S_WARN_UNAVAILABLE);
	snprintf(words, sizeof(words), "warning: not measured: %s", r->unavailable);
	print_str_phrase(p, "unavailable", r->unavailable[0] ? r->unavailable : NULL, "%s",
			 r->unavailable[0] ? words : "");
	if (r->unavailable[0])
		print_nl(p);
	print_open_object(p, "granted");
	print_uint(p, "interval_us", r->granted_interval_us, PRINT_JSON_ONLY);
	print_uint(p, "probe_len_bytes", r->granted_probe_len, PRINT_JSON_ONLY);
	print_uint(p, "duration_ms", r->granted_duration_ms, PRINT_JSON_ONLY);
	print_close(p);
	print_summary(p, r, s);
	if (r->rpm.present)
		print_rpm(p, &r->rpm, verbose);
	print_series(p, r);
	print_sections_end(p);
}

void result_print_rpm(struct printer *p, const struct test_result *r, const struct summary *s,
		      bool verbose)
{
	print_document(p, r, s, verbose);
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
