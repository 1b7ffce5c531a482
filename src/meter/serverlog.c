/* SPDX-License-Identifier: MIT */
/* serverlog.c - the server's log lines (serverlog.h). */
#include <errno.h>

#include "cli.h"
#include "meter/serverlog.h"
#include "print.h"

static struct printer *line_new(FILE *out, bool json)
{
	struct printer *p = print_new(out, json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);

	if (!p)
		return NULL;
	print_set_compact(p);
	print_set_width(p, 0); /* a log line stays one line, for grep and log tools */
	return p;
}

static int line_end(struct printer *p)
{
	int r;

	print_nl(p);
	r = print_finish(p);
	print_free(p);
	return r;
}

int server_log_test(FILE *out, bool json, const struct server_test_summary *t)
{
	struct printer *p = line_new(out, json);

	if (!p)
		return -ENOMEM;
	print_text(p, "%s: test from", PROG_NAME);
	print_str(p, "client", t->client, PRINT_BARE);
	print_str(p, "end", t->reason, 0);
	print_uint(p, "elapsed_ms", t->elapsed_ms, UNIT_MS);
	print_uint(p, "granted_ms", t->duration_ms, UNIT_MS);
	print_uint(p, "interval_us", t->interval_us, UNIT_US);
	print_uint(p, "flows", t->nflows, UNIT_NONE);
	print_str(p, "cc", t->cc[0] ? t->cc : "default", 0);
	print_uint(p, "rx_bytes", t->rx_bytes, UNIT_BYTES);
	print_uint(p, "tx_bytes", t->tx_bytes, UNIT_BYTES);
	print_uint(p, "probes_answered", t->probes_answered, UNIT_NONE);
	print_uint(p, "probes_dropped", t->probes_dropped, UNIT_NONE);
	print_uint(p, "probes_held", t->probes_held, UNIT_NONE);
	print_uint(p, "hold_max_us", t->hold_max_us, UNIT_US);
	print_uint(p, "proc_max_us", t->proc_max_us, UNIT_US);
	print_bool(p, "overloaded", t->flags & PROTO_REPORT_OVERLOADED, 0);
	print_bool(p, "flow_refused", t->flags & PROTO_REPORT_FLOW_REFUSED, 0);
	return line_end(p);
}

int server_log_stats(FILE *out, bool json, const struct server_probe_stats *st)
{
	struct printer *p = line_new(out, json);

	if (!p)
		return -ENOMEM;
	print_text(p, "%s: server: %s", PROG_NAME, st->final ? "probes since start" : "probes");
	print_str(p, "stats", st->final ? "run" : "window", PRINT_JSON_ONLY);
	print_uint(p, "window_ms", st->window_ns / 1000000, UNIT_MS);
	print_uint(p, "probes_answered", st->probes, UNIT_NONE);
	print_uint(p, "hold_p50_ns", st->hold_p50_ns, UNIT_NS);
	print_uint(p, "hold_p99_ns", st->hold_p99_ns, UNIT_NS);
	print_uint(p, "hold_max_ns", st->hold_max_ns, UNIT_NS);
	print_uint(p, "proc_p50_ns", st->proc_p50_ns, UNIT_NS);
	print_uint(p, "proc_p99_ns", st->proc_p99_ns, UNIT_NS);
	print_uint(p, "proc_max_ns", st->proc_max_ns, UNIT_NS);
	return line_end(p);
}

int server_log_rpm(FILE *out, bool json, const struct hserver_transfer *t)
{
	struct printer *p = line_new(out, json);

	if (!p)
		return -ENOMEM;
	print_text(p, "%s: server: rpm", PROG_NAME);
	print_str(p, "rpm", t->kind, PRINT_BARE);
	print_text(p, " from");
	print_str(p, "client", t->client, PRINT_BARE);
	print_str(p, "protocol", t->proto, 0);
	print_bool(p, "tls", t->tls, 0);
	print_str(p, "end", t->end, 0);
	print_uint(p, "bytes", t->bytes, UNIT_BYTES);
	print_uint(p, "elapsed_ms", t->elapsed_ms, UNIT_MS);
	return line_end(p);
}
