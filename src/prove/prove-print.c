/* SPDX-License-Identifier: MIT */
#include "prove/prove-print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "audit/policy.h"
#include "base/json.h"
#include "host/avail.h"

static void print_ms(struct printer *p, const char *key, double v)
{
	if (isnan(v))
		print_null(p, key, "-", PRINT_BARE);
	else
		print_double(p, key, v, 1, PRINT_BARE);
}

static void print_queue(struct printer *p, const struct prove_watch *w, uint32_t mtu)
{
	print_open_object(p, "queue");
	print_indent(p, 2);
	print_text(p, "queue:");
	print_str(p, "where", watch_where(w, mtu), PRINT_BARE);
	print_text(p, "(qdisc backlog max");
	print_uint(p, "qdisc_backlog_max_bytes", w->backlog_max, PRINT_BARE);
	print_text(p, "B, drops");
	print_uint(p, "qdisc_drops", watch_drops(w), PRINT_BARE);
	print_text(p, ", BQL inflight max");
	if (w->inflight_max < 0)
		print_null(p, "bql_inflight_max_bytes", "-", PRINT_BARE);
	else
		print_int(p, "bql_inflight_max_bytes", w->inflight_max, PRINT_BARE);
	print_text(p, "B)");
	print_nl(p);
	print_close(p);
}

static void print_numbers(struct printer *p, const char *key, const char *title,
			  const struct prove_numbers *n, bool have, const struct prove_watch *w,
			  uint32_t mtu)
{
	if (!have) {
		print_null(p, key, NULL, PRINT_JSON_ONLY);
		return;
	}
	print_open_object(p, key);
	print_indent(p, 1);
	print_text(p, "%-7s induced", title);
	print_ms(p, "induced_ms", n->induced_ms);
	print_text(p, "ms, loaded p50");
	print_ms(p, "loaded_p50_ms", n->loaded_p50_ms);
	print_text(p, "p99");
	print_ms(p, "loaded_p99_ms", n->loaded_p99_ms);
	print_text(p, "ms, idle");
	print_ms(p, "idle_p50_ms", n->idle_p50_ms);
	print_text(p, "ms, RPM");
	if (isnan(n->rpm))
		print_null(p, "rpm", "-", PRINT_BARE);
	else
		print_double(p, "rpm", n->rpm, 0, PRINT_BARE);
	print_text(p, ", up");
	print_ms(p, "upload_mbps", n->up_mbps);
	print_text(p, "down");
	print_ms(p, "download_mbps", n->down_mbps);
	print_text(p, "Mbit/s, grade");
	print_str(p, "grade", n->grade[0] ? n->grade : "-", PRINT_BARE);
	print_nl(p);
	print_indent(p, 2);
	print_text(p, "one-way induced up");
	print_ms(p, "owd_up_induced_ms", n->owd_up_ms);
	print_text(p, "down");
	print_ms(p, "owd_down_induced_ms", n->owd_down_ms);
	print_text(p, "ms; own TCP counters up");
	print_ms(p, "own_upload_mbps", n->own_up_mbps);
	print_text(p, "down");
	print_ms(p, "own_download_mbps", n->own_down_mbps);
	print_text(p, "Mbit/s");
	print_nl(p);
	print_bool(p, "server_overloaded", n->server_overloaded, PRINT_JSON_ONLY);
	if (n->server_overloaded) {
		print_indent(p, 2);
		print_text(p, "the server flagged itself overloaded: it, not the path, may have "
			      "limited this run");
		print_nl(p);
	}
	print_queue(p, w, mtu);
	print_close(p);
}

/* One direction of the capacity: its rate, the report beside it, its queue. */
static void print_direction(struct printer *p, const char *key, const struct prove_direction *d)
{
	print_open_object(p, key);
	print_indent(p, 1);
	print_text(p, "%-5s", !strcmp(key, "up") ? "up:" : "down:");
	print_ms(p, "mbps", d->mbps);
	print_text(p, "Mbit/s (server's count");
	print_ms(p, "reported_mbps", d->reported_mbps);
	print_text(p, "), one-way +");
	print_ms(p, "induced_ms", d->induced_ms);
	print_text(p, "ms, queue");
	print_str(p, "where", d->where ? d->where : "unknown", PRINT_BARE);
	print_bool(p, "disagree", d->disagree, PRINT_JSON_ONLY);
	print_nl(p);
	print_close(p);
}

static void print_ratio(struct printer *p, const char *key, double v)
{
	if (isnan(v))
		print_null(p, key, "-", PRINT_BARE);
	else
		print_double(p, key, v, 2, PRINT_BARE);
}

/* One direction's part of the verdict: kept, put back or unchanged, and why. */
static void print_dir_verdict(struct printer *p, const char *key, const struct prove_dir_verdict *v)
{
	if (!v->outcome) {
		print_null(p, key, NULL, PRINT_JSON_ONLY);
		return;
	}
	print_open_object(p, key);
	print_indent(p, 1);
	print_text(p, "%s:", key);
	print_str(p, "outcome", v->outcome, PRINT_BARE);
	print_bool(p, "changed", v->changed, PRINT_JSON_ONLY);
	print_text(p, "- one way");
	print_ratio(p, "latency_ratio", v->latency_ratio);
	print_text(p, "x lower, goodput");
	print_ratio(p, "goodput_ratio", v->goodput_ratio);
	print_text(p, "x, alone");
	print_ratio(p, "alone_ratio", v->alone_ratio);
	print_text(p, "x");
	print_bool(p, "traded", v->traded, PRINT_JSON_ONLY);
	print_nl(p);
	print_indent(p, 2);
	print_str(p, "why", v->why, PRINT_BARE);
	print_nl(p);
	print_close(p);
}

/* "Raspberry Pi 4 Model B Rev 1.4", or the DMI product, or "". */
static void board_name(char *buf, size_t len)
{
	static const char *const files[] = {"/proc/device-tree/model",
					    "/sys/class/dmi/id/product_name"};

	buf[0] = '\0';
	for (size_t i = 0; i < 2 && !buf[0]; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f)
			continue;
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static const char *avail_word(enum qdisc_avail a)
{
	return a == QDISC_AVAIL_YES ? "yes" : a == QDISC_AVAIL_NO ? "no" : "unknown";
}

/* Whether this kernel has fq_codel and cake, and what lacking both costs. */
static void print_kernel_qdiscs(struct printer *p, const struct prove_report *r)
{
	enum qdisc_avail fqc = avail_of(r->host->qdisc_kinds, HOST_NQDISC_KINDS, "fq_codel");
	enum qdisc_avail cake = avail_of(r->host->qdisc_kinds, HOST_NQDISC_KINDS, "cake");

	print_open_object(p, "kernel_qdiscs");
	print_indent(p, 0);
	print_text(p, "kernel qdiscs: fq_codel");
	print_str(p, "fq_codel", avail_word(fqc), PRINT_BARE);
	print_text(p, ", cake");
	print_str(p, "cake", avail_word(cake), PRINT_BARE);
	print_nl(p);
	if (fqc == QDISC_AVAIL_NO && cake == QDISC_AVAIL_NO) {
		print_indent(p, 1);
		print_str(p, "cost",
			  "without both, a shaper can only hold a short FIFO: no flow "
			  "isolation, so the upload's ACKs wait in the same FIFO as the "
			  "download's data, and one flow's burst delays every other",
			  PRINT_BARE);
		print_nl(p);
	} else {
		print_null(p, "cost", NULL, PRINT_JSON_ONLY);
	}
	print_close(p);
}

static void print_interfaces(struct printer *p, const struct prove_report *r)
{
	char board[128];
	struct utsname u;

	board_name(board, sizeof(board));
	if (uname(&u) < 0)
		u.release[0] = '\0';
	print_indent(p, 0);
	print_text(p, "board");
	print_str(p, "board", board[0] ? board : "unknown", PRINT_BARE);
	print_text(p, ", kernel");
	print_str(p, "kernel", u.release, PRINT_BARE);
	print_nl(p);
	print_open_array(p, "interfaces");
	for (size_t i = 0; i < r->host->n; i++) {
		const struct iface *ifc = &r->host->ifaces[i];
		struct verdict v;

		policy_iface(ifc, r->host, &v);
		print_open_object(p, NULL);
		print_indent(p, 0);
		print_str(p, "name", ifc->name, PRINT_BARE);
		print_text(p, ": driver");
		print_str(p, "driver", ifc->driver[0] ? ifc->driver : ifc->kind, PRINT_BARE);
		print_text(p, ",");
		if (ifc->speed_mbps)
			print_uint(p, "speed_mbps", ifc->speed_mbps, UNIT_MBPS);
		else
			print_null(p, "speed_mbps", "speed unknown", PRINT_BARE);
		print_text(p, ", BQL");
		if (v.bql_in_use == TRI_UNKNOWN)
			print_null(p, "bql_in_use", "unknown", PRINT_BARE);
		else
			print_bool(p, "bql_in_use", v.bql_in_use == TRI_YES, PRINT_BARE);
		print_text(p, ", root qdisc");
		print_str(p, "qdisc", ifc->root_qdisc[0] ? ifc->root_qdisc : "unknown", PRINT_BARE);
		print_nl(p);
		print_close(p);
	}
	print_close(p);
	print_kernel_qdiscs(p, r);
}

/* What fix changed (or would have), from its report. */
static void print_plan(struct printer *p, const struct prove_report *r)
{
	struct jval *ifs = r->fix ? json_get(r->fix, "interfaces") : NULL;

	print_open_array(p, "plan");
	for (size_t i = 0; i < json_array_len(ifs); i++) {
		struct jval *steps = json_get(json_array_at(ifs, i), "steps");

		for (size_t k = 0; k < json_array_len(steps); k++) {
			struct jval *s = json_array_at(steps, k);
			const char *ifname = "", *kind = "", *name = NULL, *before = "",
				   *after = "", *status = "";

			json_get_string(s, "ifname", &ifname);
			json_get_string(s, "knob", &kind);
			json_get_string(s, "name", &name);
			json_get_string(s, "before", &before);
			json_get_string(s, "after", &after);
			json_get_string(s, "status", &status);
			if (!strcmp(status, "same"))
				continue;
			print_open_object(p, NULL);
			print_indent(p, 1);
			print_str(p, "ifname", ifname, PRINT_BARE);
			print_str(p, "kind", kind, PRINT_BARE);
			if (name && *name)
				print_str(p, "name", name, PRINT_BARE);
			print_text(p, ":");
			print_str(p, "before", before, PRINT_BARE);
			print_text(p, "->");
			print_str(p, "after", after, PRINT_BARE);
			print_text(p, "(");
			print_str(p, "status", status, PRINT_BARE);
			print_text(p, ")");
			print_nl(p);
			print_close(p);
		}
	}
	print_close(p);
}

void prove_report_print(struct printer *p, const struct prove_report *r)
{
	print_str(p, "server", r->server, PRINT_JSON_ONLY);
	print_str(p, "test", r->test, PRINT_JSON_ONLY);
	print_str(p, "output_dir", r->dir, PRINT_JSON_ONLY);
	print_interfaces(p, r);
	print_numbers(p, "before", "before:", r->before, r->before != NULL, r->watch_before,
		      r->mtu);
	print_numbers(p, "after", "after:", r->after, r->after != NULL, r->watch_after, r->mtu);
	print_open_object(p, "capacity_mbps");
	if (r->before) {
		print_indent(p, 0);
		print_text(p, "capacity: up");
		print_ms(p, "up", r->cap->up_mbps);
		print_text(p, "down");
		print_ms(p, "down", r->cap->down_mbps);
		print_text(p, "Mbit/s (");
		print_str(p, "source", r->cap->source ? r->cap->source : "none", PRINT_BARE);
		print_text(p, ")");
		if (r->cap->shape_rate) {
			print_text(p, ", shaper");
			print_double(p, "shape", (double)r->cap->shape_rate * 8 / 1e6, 1,
				     PRINT_BARE);
			print_text(p, "Mbit/s");
		} else {
			print_null(p, "shape", NULL, PRINT_JSON_ONLY);
		}
		if (r->cap->shape_down_rate) {
			print_text(p, ", download shaper");
			print_double(p, "shape_down", (double)r->cap->shape_down_rate * 8 / 1e6, 1,
				     PRINT_BARE);
			print_text(p, "Mbit/s");
		} else {
			print_null(p, "shape_down", NULL, PRINT_JSON_ONLY);
		}
		print_nl(p);
		print_open_object(p, "directions");
		print_direction(p, "up", &r->cap->up);
		print_direction(p, "down", &r->cap->down);
		print_close(p);
		print_indent(p, 1);
		print_str(p, "why", r->cap->why, PRINT_BARE);
		print_nl(p);
	}
	print_close(p);
	if (r->fix) {
		print_indent(p, 0);
		print_text(p, "what fix changed:");
		print_nl(p);
	}
	print_plan(p, r);
	print_open_object(p, "verdict");
	print_indent(p, 0);
	print_text(p, "verdict:");
	print_str(p, "outcome", r->outcome, PRINT_BARE);
	print_bool(p, "kept", !strcmp(r->outcome, "kept") || !strcmp(r->outcome, "already-fixed"),
		   PRINT_JSON_ONLY);
	print_text(p, "- ");
	print_str(p, "why", r->why, PRINT_BARE);
	print_nl(p);
	if (r->after) {
		print_indent(p, 1);
		print_text(p, "latency");
		print_ratio(p, "latency_ratio", r->verdict->latency_ratio);
		print_text(p, "x lower; goodput up");
		print_ratio(p, "upload_ratio", r->verdict->upload_ratio);
		print_text(p, "down");
		print_ratio(p, "download_ratio", r->verdict->download_ratio);
		print_text(p, "x of before (min gain");
		print_double(p, "min_gain", r->min_gain, 2, PRINT_BARE);
		print_text(p, ", max loss");
		print_double(p, "max_loss", r->max_loss, 2, PRINT_BARE);
		print_text(p, ")");
		print_nl(p);
		if (r->before) {
			/* each direction's queue before and after, in the text: the JSON has
			 * both runs' numbers */
			print_indent(p, 1);
			print_text(p, "one-way induced: up %.1f -> %.1f ms, down %.1f -> %.1f ms",
				   r->before->owd_up_ms, r->after->owd_up_ms,
				   r->before->owd_down_ms, r->after->owd_down_ms);
			print_nl(p);
		}
	}
	print_open_object(p, "directions");
	print_dir_verdict(p, "up", &r->verdict->dir[PROVE_UP]);
	print_dir_verdict(p, "down", &r->verdict->dir[PROVE_DOWN]);
	print_close(p);
	print_close(p);
	if (r->undo_cmd && !strcmp(r->outcome, "kept")) {
		print_indent(p, 0);
		print_text(p, "to put it back:");
		print_str(p, "undo", r->undo_cmd, PRINT_BARE);
		print_nl(p);
	} else {
		print_null(p, "undo", NULL, PRINT_JSON_ONLY);
	}
	print_indent(p, 0);
	print_text(p, "files in %s", r->dir);
	print_nl(p);
}
