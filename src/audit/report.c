/* SPDX-License-Identifier: MIT */
/* report.c - report.h: one function per section of the audit, text and JSON alike. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "host/qdisc.h"
#include "policy.h"
#include "report.h"

static const char *duplex_name(enum duplex d)
{
	return d == IFACE_DUPLEX_FULL ? "full" : d == IFACE_DUPLEX_HALF ? "half" : NULL;
}

/* A string or, when empty, a JSON null / the word "unknown". */
static void print_known_str(struct printer *p, const char *key, const char *s, unsigned flags)
{
	if (s && *s)
		print_str(p, key, s, flags);
	else
		print_null(p, key, "unknown", flags);
}

/* -1 is "could not be read": null in JSON, "unknown" in text. */
static void print_maybe(struct printer *p, const char *key, int64_t v, enum unit unit)
{
	if (v < 0)
		print_null(p, key, "unknown", unit);
	else
		print_uint(p, key, (uint64_t)v, unit);
}

/* Both units in JSON (ms for people and for docs/json.md's keys, us for precision). */
static void print_delay(struct printer *p, const char *ms_key, const char *us_key, int64_t us,
			unsigned flags)
{
	if (us < 0) {
		print_null(p, ms_key, "unknown", UNIT_MS | flags);
		print_null(p, us_key, NULL, PRINT_JSON_ONLY);
		return;
	}
	print_uint(p, ms_key, (uint64_t)((us + 500) / 1000), UNIT_MS | PRINT_JSON_ONLY);
	print_uint(p, us_key, (uint64_t)us, UNIT_US | flags);
}

static void print_qdisc(struct printer *p, const struct qdisc *q, unsigned level)
{
	char handle[16], parent[16];

	host_qdisc_format_handle(q->handle, handle, sizeof(handle));
	host_qdisc_format_handle(q->parent, parent, sizeof(parent));
	print_indent(p, level);
	print_text(p, "qdisc");
	print_str(p, "kind", q->kind, PRINT_BARE);
	print_str(p, "handle", handle, PRINT_BARE);
	print_str(p, "parent", parent, q->parent == 0xFFFFFFFFU ? PRINT_BARE : 0);
	for (unsigned i = 0; i < q->noptions; i++)
		print_value(p, &q->options[i], 0);
	if (q->options_err)
		print_bool(p, "options_malformed", true, 0);
	if (q->class_rate_bps) {
		struct value rate = value_uint("class_rate_bps", q->class_rate_bps, UNIT_BPS);

		print_value(p, &rate, 0);
	}
	print_nl(p);
	print_open_array(p, "children");
	for (size_t i = 0; i < q->nchildren; i++) {
		print_open_object(p, NULL);
		print_qdisc(p, &q->children[i], level + 1);
		print_close(p);
	}
	print_close(p);
}

static void print_bql(struct printer *p, const struct iface *ifc, const struct verdict *v)
{
	print_indent(p, 1);
	print_open_object(p, "bql");
	print_text(p, "bql");
	if (v->bql_in_use == TRI_UNKNOWN)
		print_null(p, "in_use", "unknown", 0);
	else
		print_bool(p, "in_use", v->bql_in_use == TRI_YES, 0);
	/* One text item, so that the parenthesis never runs past the width on its own. */
	print_str(p, "reason", v->bql_reason, PRINT_JSON_ONLY);
	print_text(p, "(%s)", v->bql_reason);
	print_nl(p);
	print_indent(p, 2);
	print_open_array(p, "queues");
	for (size_t i = 0; i < ifc->nbql; i++) {
		const struct bql_queue *q = &ifc->bql[i];

		if (!q->present)
			continue;
		print_open_object(p, NULL);
		print_text(p, "tx-%u", q->queue);
		print_uint(p, "queue", q->queue, PRINT_JSON_ONLY);
		/* The stall detector exists since Linux 6.9; say nothing where it does not. */
		for (size_t k = 0; k < BQL_NFIELDS; k++)
			if (!bql_fields[k].stall || q->stall_cnt >= 0)
				print_maybe(p, bql_fields[k].key, bql_field_get(q, &bql_fields[k]),
					    bql_fields[k].unit);
		print_nl(p);
		print_close(p);
	}
	print_close(p);
	print_close(p);
}

static void print_finding(struct printer *p, const struct finding *f, unsigned level)
{
	print_open_object(p, NULL);
	print_indent(p, level);
	print_str(p, "severity", severity_name(f->severity), PRINT_BARE);
	print_str(p, "code", f->code, PRINT_BARE);
	print_text(p, ":");
	print_str(p, "message", f->message, PRINT_BARE);
	print_nl(p);
	print_indent(p, level + 1);
	if (f->nevidence) {
		print_text(p, "evidence");
		print_open_object(p, "evidence");
		for (unsigned i = 0; i < f->nevidence; i++)
			print_value(p, &f->evidence[i], 0);
		print_close(p);
		print_nl(p);
	}
	if (f->delay_us >= 0 || f->grades) {
		print_text(p, "worst case");
		if (f->delay_min_us >= 0) {
			print_text(p, "delay");
			print_delay(p, "delay_min_ms", "delay_min_us", f->delay_min_us, PRINT_BARE);
			print_text(p, "(full-size frames) to");
			print_delay(p, "delay_ms", "delay_us", f->delay_us, PRINT_BARE);
			print_text(p, "(GSO packets, as TCP hands them)");
		} else {
			print_null(p, "delay_min_us", NULL, PRINT_JSON_ONLY);
			print_delay(p, "delay_ms", "delay_us", f->delay_us, 0);
		}
		print_nl(p);
	} else {
		print_null(p, "delay_min_us", NULL, PRINT_JSON_ONLY);
		print_delay(p, "delay_ms", "delay_us", -1, PRINT_JSON_ONLY);
	}
	/* The finding's own remedy, alone, is for JSON readers; the text prints one
	 * coherent set of commands instead (audit's "to fix it" part, from fix's plan). */
	print_str(p, "recommendation", f->recommendation, PRINT_JSON_ONLY);
	print_close(p);
}

static void print_unreadable(struct printer *p, const struct iface *ifc)
{
	print_open_array(p, "unreadable");
	if (ifc->nunreadable) {
		print_indent(p, 1);
		print_text(p, "could not read:");
	}
	for (size_t i = 0; i < ifc->nunreadable; i++) {
		const struct unreadable *u = &ifc->unreadable[i];
		const char *why =
		    u->err == -EXDEV ? "sysfs shows another network namespace" : strerror(-u->err);

		print_open_object(p, NULL);
		print_str(p, "what", u->what, PRINT_BARE);
		print_text(p, "(%s)%s", why, i + 1 < ifc->nunreadable ? "," : "");
		print_str(p, "error", why, PRINT_JSON_ONLY);
		print_close(p);
	}
	if (ifc->nunreadable)
		print_nl(p);
	print_close(p);
}

static void print_feature(struct printer *p, const char *key, enum feature_state s)
{
	if (s == FEATURE_UNKNOWN)
		print_null(p, key, "unknown", 0);
	else
		print_bool(p, key, s == FEATURE_ON, 0);
}

/* ethtool's rings and offloads; text says "unknown" for what the driver does not. */
static void print_device_queue(struct printer *p, const struct iface *ifc, const struct verdict *v)
{
	print_indent(p, 1);
	print_text(p, "ring");
	print_open_object(p, "rings");
	print_maybe(p, "tx", ifc->ring_tx, UNIT_NONE);
	print_maybe(p, "tx_max", ifc->ring_tx_max, UNIT_NONE);
	print_maybe(p, "rx", ifc->ring_rx, UNIT_NONE);
	print_maybe(p, "rx_max", ifc->ring_rx_max, UNIT_NONE);
	print_close(p);
	if (v->ring_from_table && v->ring_urb_bytes)
		print_text(p, "(%s usually queues %lld TX URBs of %u KB)", ifc->driver,
			   (long long)v->ring_tx, v->ring_urb_bytes / 1024);
	else if (v->ring_from_table)
		print_text(p, "(%s usually queues %lld TX frames)", ifc->driver,
			   (long long)v->ring_tx);
	print_text(p, "offloads");
	print_open_object(p, "offloads");
	print_feature(p, "tso", ifc->tso);
	print_feature(p, "gso", ifc->gso);
	print_feature(p, "gro", ifc->gro);
	print_feature(p, "lro", ifc->lro);
	print_close(p);
	print_nl(p);
	/* The board the driver table ties this driver to: context for its advice. */
	if (v->driver && v->driver->board) {
		print_indent(p, 1);
		print_text(p, "%s is the driver of", ifc->driver);
		print_str(p, "board", v->driver->board, PRINT_BARE);
		print_nl(p);
	} else {
		print_null(p, "board", NULL, PRINT_JSON_ONLY);
	}
}

static void print_iface(struct printer *p, const struct host *h, const struct iface *ifc)
{
	struct verdict v;

	policy_iface(ifc, h, &v);
	print_open_object(p, NULL);
	print_indent(p, 0);
	print_str(p, "name", ifc->name, PRINT_BARE);
	print_text(p, ":");
	print_str(p, "kind", ifc->kind, 0);
	print_uint(p, "ifindex", (uint64_t)ifc->ifindex, UNIT_NONE);
	print_bool(p, "physical", ifc->physical, PRINT_JSON_ONLY);
	print_str(p, "operstate", ifc->operstate, 0);
	print_known_str(p, "driver", ifc->driver, 0);
	print_known_str(p, "bus", ifc->bus, ifc->bus[0] ? 0 : PRINT_JSON_ONLY);
	print_nl(p);
	print_indent(p, 1);
	print_uint(p, "mtu", ifc->mtu, UNIT_NONE);
	print_uint(p, "txqueuelen", ifc->txqueuelen, UNIT_NONE);
	print_uint(p, "tx_queues", ifc->tx_queues, UNIT_NONE);
	if (ifc->speed_mbps)
		print_uint(p, "speed_mbps", ifc->speed_mbps, UNIT_MBPS);
	else
		print_null(p, "speed_mbps", "unknown", UNIT_MBPS);
	print_known_str(p, "duplex", duplex_name(ifc->duplex), 0);
	if (ifc->usb_speed_mbps)
		print_uint(p, "usb_speed_mbps", ifc->usb_speed_mbps, PRINT_JSON_ONLY);
	else
		print_null(p, "usb_speed_mbps", NULL, PRINT_JSON_ONLY);
	if (ifc->have_stats)
		print_uint(p, "tx_packets", ifc->tx_packets, PRINT_JSON_ONLY);
	print_nl(p);

	if (ifc->qdisc) {
		print_open_object(p, "qdisc");
		print_qdisc(p, ifc->qdisc, 1);
		print_close(p);
	} else {
		print_indent(p, 1);
		print_null(p, "qdisc", "unknown", 0);
		print_nl(p);
	}
	print_device_queue(p, ifc, &v);
	print_bql(p, ifc, &v);

	print_open_array(p, "findings");
	for (unsigned i = 0; i < v.nfindings; i++)
		print_finding(p, &v.findings[i], 1);
	print_close(p);

	print_indent(p, 1);
	print_delay(p, "worst_delay_ms", "worst_delay_us", v.graded ? v.worst_delay_us : -1,
		    PRINT_JSON_ONLY);
	if (v.graded) {
		char delay[32];

		print_format_unit(delay, sizeof(delay), (uint64_t)v.worst_delay_us, UNIT_US);
		print_str(p, "grade", grade_name(v.grade), 0);
		print_null(p, "ungraded_reason", NULL, PRINT_JSON_ONLY);
		print_text(p, "(worst-case added delay %s)", delay);
	} else {
		print_null(p, "grade", "not graded", 0);
		print_text(p, "(");
		print_str(p, "ungraded_reason", v.ungraded_why, PRINT_BARE);
		print_text(p, ")");
	}
	print_nl(p);
	print_unreadable(p, ifc);
	print_close(p);
}

/* Numeric sysctls as numbers, the rest (qdisc and congestion control names) as strings. */
static void print_sysctl(struct printer *p, const struct sysctl_entry *s)
{
	char *end;
	unsigned long long v;

	print_indent(p, 1);
	if (s->err) {
		print_null(p, s->name, "unknown", 0);
		/* Some sysctls (default_qdisc) exist only in the first network namespace. */
		print_text(p, "(%s)",
			   s->err == -ENOENT ? "not in this network namespace or kernel"
					     : strerror(-s->err));
	} else if ((v = strtoull(s->value, &end, 10), *s->value && !*end)) {
		print_uint(p, s->name, v, UNIT_NONE);
	} else {
		print_str(p, s->name, s->value, 0);
	}
	print_nl(p);
}

static void print_kernel(struct printer *p, const struct host *h)
{
	print_indent(p, 0);
	print_nl(p);
	print_text(p, "kernel");
	print_known_str(p, "kernel_release", h->kernel_release, PRINT_BARE);
	print_text(p, "on");
	print_known_str(p, "hostname", h->hostname, PRINT_BARE);
	if (h->compatible_known) {
		print_open_array(p, "machine_compatible");
		for (size_t i = 0; i < h->ncompatible; i++)
			print_str(p, NULL, h->compatible[i], PRINT_JSON_ONLY);
		print_close(p);
	} else {
		print_null(p, "machine_compatible", NULL, PRINT_JSON_ONLY);
	}
	print_nl(p);
	print_indent(p, 1);
	print_text(p, "qdiscs available:");
	print_open_object(p, "qdisc_available");
	for (size_t i = 0; i < HOST_NQDISC_KINDS; i++) {
		const struct qdisc_kind_avail *k = &h->qdisc_kinds[i];

		if (!k->kind)
			continue;
		if (k->avail == QDISC_AVAIL_UNKNOWN)
			print_null(p, k->kind, "unknown", 0);
		else
			print_bool(p, k->kind, k->avail == QDISC_AVAIL_YES, 0);
	}
	print_close(p);
	print_nl(p);
}

void report_audit(struct printer *p, const struct host *h)
{
	struct finding findings[HOST_NSYSCTLS];
	unsigned n;

	print_open_array(p, "interfaces");
	for (size_t i = 0; i < h->n; i++) {
		if (i)
			print_nl(p); /* a blank line between interfaces */
		print_iface(p, h, &h->ifaces[i]);
	}
	print_close(p);

	print_kernel(p, h);
	print_indent(p, 0);
	print_nl(p);
	print_text(p, "sysctls");
	print_nl(p);
	print_open_object(p, "sysctls");
	for (size_t i = 0; i < HOST_NSYSCTLS; i++)
		print_sysctl(p, &h->sysctls[i]);
	print_close(p);

	n = policy_sysctls(h->sysctls, HOST_NSYSCTLS, findings, HOST_NSYSCTLS);
	print_open_array(p, "findings");
	for (unsigned i = 0; i < n; i++)
		print_finding(p, &findings[i], 1);
	print_close(p);
}

void report_shaper(struct printer *p, const struct policy_shaper *sh, unsigned indent)
{
	if (!sh || !sh->rate) {
		print_null(p, "shape_rate_bps", NULL, PRINT_JSON_ONLY);
		print_null(p, "rate_source", NULL, PRINT_JSON_ONLY);
		print_bool(p, "rate_halved", false, PRINT_JSON_ONLY);
		print_null(p, "ceiling_mbps", NULL, PRINT_JSON_ONLY);
		print_null(p, "ceiling_shared", NULL, PRINT_JSON_ONLY);
		return;
	}
	print_indent(p, indent);
	print_text(p, "shaper at %s: %s", sh->spelled, sh->why);
	print_uint(p, "shape_rate_bps", sh->rate * 8, UNIT_BPS | PRINT_JSON_ONLY);
	print_nl(p);
	print_indent(p, indent);
	print_text(p, "rate source:");
	print_str(p, "rate_source", sh->source_text, PRINT_BARE);
	print_bool(p, "rate_halved", sh->halved, PRINT_JSON_ONLY);
	if (sh->ceiling) {
		print_uint(p, "ceiling_mbps", sh->ceiling->mbps, UNIT_MBPS | PRINT_JSON_ONLY);
		print_bool(p, "ceiling_shared", sh->ceiling->shared, PRINT_JSON_ONLY);
	} else {
		print_null(p, "ceiling_mbps", NULL, PRINT_JSON_ONLY);
		print_null(p, "ceiling_shared", NULL, PRINT_JSON_ONLY);
	}
	print_nl(p);
	/* The price of the even split: what a board gives up when it only sends. */
	if (sh->halved && sh->ceiling) {
		print_indent(p, indent);
		print_text(p,
			   "cost: one direction alone (a file server sending, a backup arriving) "
			   "still gets %llu of the %u Mbit/s; where the traffic is mostly one way, "
			   "split it with --shape and --ingress",
			   (unsigned long long)(sh->rate * 8 / 1000000), sh->ceiling->mbps);
		print_nl(p);
	}
}
