/* SPDX-License-Identifier: MIT */
/* serverlog.c - the server's log lines (serverlog.h). */
#include <errno.h>

#include "base/cli.h"
#include "base/print.h"
#include "meter/serverlog.h"

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

/* The text spelling of v in unit; buf must hold 32 bytes. */
static const char *unit_text(char *buf, uint64_t v, enum unit unit)
{
	print_format_unit(buf, 32, v, unit);
	return buf;
}

/*
 * Bytes a test moved one way: JSON the raw count; text a size for people and, over the
 * test's elapsed time, its average rate (" tx 4.89 MB (13 Mbit/s)").
 */
static void print_moved(struct printer *p, const char *label, const char *key, uint64_t bytes,
			uint32_t elapsed_ms)
{
	char size[32], rate[32];

	print_format_size(size, sizeof(size), bytes);
	if (!elapsed_ms || !bytes) {
		print_uint_phrase(p, key, bytes, " %s %s", label, size);
		return;
	}
	print_format_rate(rate, sizeof(rate),
			  bytes > UINT64_MAX / 8000 ? UINT64_MAX : bytes * 8000 / elapsed_ms);
	print_uint_phrase(p, key, bytes, " %s %s (%s)", label, size, rate);
}

/*
 * One line in phrases, so that text reads "elapsed 3.4 s ... tx 6.27 GB (14.7 Gbit/s)"
 * while JSON keeps the raw figures under the keys docs/json.md names.
 */
int server_log_test(FILE *out, bool json, const struct server_test_summary *t)
{
	struct printer *p = line_new(out, json);
	char a[32], b[32];

	if (!p)
		return -ENOMEM;
	print_text(p, "%s: test", PROG_NAME);
	print_str_phrase(p, "client", t->client, "from %s", t->client);
	print_str_phrase(p, "end", t->reason, " end %s", t->reason);
	print_uint_phrase(p, "elapsed_ms", t->elapsed_ms, " elapsed %s",
			  unit_text(a, t->elapsed_ms, UNIT_MS));
	print_uint_phrase(p, "granted_ms", t->duration_ms, " granted %s",
			  unit_text(a, t->duration_ms, UNIT_MS));
	print_uint_phrase(p, "interval_us", t->interval_us, " interval %s",
			  unit_text(a, t->interval_us, UNIT_US));
	print_uint_phrase(p, "flows", t->nflows, " flows %u", (unsigned)t->nflows);
	print_str_phrase(p, "cc", t->cc[0] ? t->cc : "default", " cc %s",
			 t->cc[0] ? t->cc : "default");
	print_moved(p, "rx", "rx_bytes", t->rx_bytes, t->elapsed_ms);
	print_moved(p, "tx", "tx_bytes", t->tx_bytes, t->elapsed_ms);
	print_uint_phrase(p, "probes_answered", t->probes_answered, " probes answered %u",
			  t->probes_answered);
	print_uint_phrase(p, "probes_dropped", t->probes_dropped, " dropped %u", t->probes_dropped);
	print_uint_phrase(p, "probes_held", t->probes_held, " held %u", t->probes_held);
	print_uint_phrase(p, "hold_max_us", t->hold_max_us, " hold_max %s",
			  unit_text(a, t->hold_max_us, UNIT_US));
	print_uint_phrase(p, "proc_max_us", t->proc_max_us, " proc_max %s",
			  unit_text(b, t->proc_max_us, UNIT_US));
	print_bool_phrase(p, "overloaded", t->flags & PROTO_REPORT_OVERLOADED, " overloaded %s",
			  t->flags & PROTO_REPORT_OVERLOADED ? "yes" : "no");
	print_bool_phrase(p, "flow_refused", t->flags & PROTO_REPORT_FLOW_REFUSED,
			  " flow_refused %s", t->flags & PROTO_REPORT_FLOW_REFUSED ? "yes" : "no");
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
