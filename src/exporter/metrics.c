/* SPDX-License-Identifier: MIT */
/* metrics.c - metrics.h: the families, then one walk per source (qdiscs, BQL, link, audit). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/policy.h"
#include "base/array.h"
#include "exporter/metrics.h"
#include "host/qdisc.h"

#define FAMILY(id, n, t, h) static const struct prom_family id = {n, t, h}

/* qdiscs: labels device, kind, handle, parent */
FAMILY(qdisc_bytes, "debloat_qdisc_bytes_total", PROM_COUNTER, "Bytes the qdisc sent.");
FAMILY(qdisc_packets, "debloat_qdisc_packets_total", PROM_COUNTER,
       "Packets the qdisc sent (64-bit: TCA_STATS_PKT64 where the kernel sends it).");
FAMILY(qdisc_drops, "debloat_qdisc_drops_total", PROM_COUNTER, "Packets the qdisc dropped.");
FAMILY(qdisc_overlimits, "debloat_qdisc_overlimits_total", PROM_COUNTER,
       "Times the qdisc held a packet back because of a limit (a shaper's rate, a full queue).");
FAMILY(qdisc_requeues, "debloat_qdisc_requeues_total", PROM_COUNTER,
       "Packets the driver handed back to the qdisc to send again.");
FAMILY(qdisc_backlog_bytes, "debloat_qdisc_backlog_bytes", PROM_GAUGE,
       "Bytes queued in the qdisc now.");
FAMILY(qdisc_backlog_packets, "debloat_qdisc_backlog_packets", PROM_GAUGE,
       "Packets queued in the qdisc now.");
FAMILY(qdisc_ecn_marks, "debloat_qdisc_ecn_marks_total", PROM_COUNTER,
       "Packets ECN-marked instead of dropped (fq_codel, cake).");
FAMILY(qdisc_ce_marks, "debloat_qdisc_ce_marks_total", PROM_COUNTER,
       "Packets CE-marked above ce_threshold (fq_codel, fq).");
FAMILY(qdisc_drop_overlimit, "debloat_qdisc_drop_overlimit_total", PROM_COUNTER,
       "Packets dropped because the qdisc was full (fq_codel).");
FAMILY(qdisc_drop_overmemory, "debloat_qdisc_drop_overmemory_total", PROM_COUNTER,
       "Packets dropped because memory_limit was reached (fq_codel).");
FAMILY(qdisc_new_flows, "debloat_qdisc_new_flows_total", PROM_COUNTER,
       "Flows that became new flows (fq_codel new_flow_count).");
FAMILY(qdisc_flows, "debloat_qdisc_flows", PROM_GAUGE,
       "Flows with packets queued or recently served (fq_codel, fq, cake).");
FAMILY(qdisc_memory, "debloat_qdisc_memory_used_bytes", PROM_GAUGE,
       "Memory the qdisc's packets take now (fq_codel, cake).");
FAMILY(qdisc_throttled, "debloat_qdisc_throttled_total", PROM_COUNTER,
       "Times fq held a flow back to pace it.");
FAMILY(qdisc_throttled_flows, "debloat_qdisc_throttled_flows", PROM_GAUGE,
       "Flows fq holds back for pacing now.");

/* BQL: labels device, queue */
FAMILY(bql_limit, "debloat_bql_limit_bytes", PROM_GAUGE,
       "Bytes BQL lets the driver hold on this TX queue now.");
FAMILY(bql_limit_max, "debloat_bql_limit_max_bytes", PROM_GAUGE,
       "Upper bound on BQL's limit for this TX queue.");
FAMILY(bql_limit_min, "debloat_bql_limit_min_bytes", PROM_GAUGE,
       "Lower bound on BQL's limit for this TX queue.");
FAMILY(bql_inflight, "debloat_bql_inflight_bytes", PROM_GAUGE,
       "Bytes handed to the driver on this TX queue and not yet completed.");
FAMILY(bql_hold_time, "debloat_bql_hold_time_seconds", PROM_GAUGE,
       "How long BQL waits before shrinking the limit.");
FAMILY(bql_stall_thrs, "debloat_bql_stall_threshold_seconds", PROM_GAUGE,
       "Completion gap BQL counts as a stall (Linux 6.9+; 0: detector off).");
FAMILY(bql_stalls, "debloat_bql_stalls_total", PROM_COUNTER,
       "Stalls BQL's detector saw on this TX queue (Linux 6.9+).");
FAMILY(bql_stall_max, "debloat_bql_stall_max_seconds", PROM_GAUGE,
       "Longest stall seen on this TX queue (Linux 6.9+; from jiffies with CONFIG_HZ).");

/* interfaces: label device */
FAMILY(iface_info, "debloat_interface_info", PROM_GAUGE,
       "1 for each interface, with its kind, driver and operational state as labels.");
FAMILY(iface_txqueuelen, "debloat_interface_txqueuelen_packets", PROM_GAUGE,
       "The interface's txqueuelen: a FIFO root's limit when it sets none.");
FAMILY(iface_speed, "debloat_interface_speed_bytes", PROM_GAUGE,
       "Link speed the driver reports, in bytes per second (absent when unknown).");
FAMILY(iface_mtu, "debloat_interface_mtu_bytes", PROM_GAUGE, "The interface's MTU.");
FAMILY(iface_txq, "debloat_interface_tx_queues", PROM_GAUGE, "TX queues of the interface.");

/* audit */
FAMILY(audit_grade, "debloat_audit_grade", PROM_GAUGE,
       "Audit's grade: A+ 0, A 1, B 2, C 3, D 4, F 5 (label grade); absent when ungraded.");
FAMILY(audit_worst, "debloat_audit_worst_delay_seconds", PROM_GAUGE,
       "Audit's worst-case delay the egress path can add under load (what the grade grades).");
FAMILY(audit_finding_delay, "debloat_audit_finding_delay_seconds", PROM_GAUGE,
       "Worst-case delay behind one audit finding (label code); absent when unknown.");
FAMILY(audit_finding, "debloat_audit_finding_info", PROM_GAUGE,
       "1 for each audit finding, with its code and severity as labels.");

/* fix's journal */
FAMILY(fix_changes, "debloat_fix_journal_changes", PROM_GAUGE,
       "Settings of this interface that fix changed and undo would restore (begun or applied "
       "steps of fix's journal).");
FAMILY(fix_valid, "debloat_fix_journal_valid", PROM_GAUGE,
       "1 when fix's journal is absent or readable, 0 when it cannot be read or parsed.");

/* the exporter itself */
FAMILY(self_duration, "debloat_exporter_scrape_duration_seconds", PROM_GAUGE,
       "How long reading the host took for this scrape.");
FAMILY(self_scrapes, "debloat_exporter_scrapes_total", PROM_COUNTER,
       "Scrapes (and textfile writes) since the exporter started, this one included.");
FAMILY(self_errors, "debloat_exporter_scrape_errors_total", PROM_COUNTER,
       "Scrapes whose host read failed since the exporter started.");
FAMILY(self_interfaces, "debloat_exporter_interfaces", PROM_GAUGE,
       "Interfaces read in this scrape.");
FAMILY(self_unreadable, "debloat_exporter_unreadable", PROM_GAUGE,
       "1 for each fact that could not be read for an interface (label what: sysfs, "
       "driver, speed, qdiscs, bql...).");
FAMILY(self_build, "debloat_exporter_build_info", PROM_GAUGE,
       "1, with the exporter's version as a label.");

const struct prom_family *const metrics_families[] = {
    &qdisc_bytes,
    &qdisc_packets,
    &qdisc_drops,
    &qdisc_overlimits,
    &qdisc_requeues,
    &qdisc_backlog_bytes,
    &qdisc_backlog_packets,
    &qdisc_ecn_marks,
    &qdisc_ce_marks,
    &qdisc_drop_overlimit,
    &qdisc_drop_overmemory,
    &qdisc_new_flows,
    &qdisc_flows,
    &qdisc_memory,
    &qdisc_throttled,
    &qdisc_throttled_flows,
    &bql_limit,
    &bql_limit_max,
    &bql_limit_min,
    &bql_inflight,
    &bql_hold_time,
    &bql_stall_thrs,
    &bql_stalls,
    &bql_stall_max,
    &iface_info,
    &iface_txqueuelen,
    &iface_speed,
    &iface_mtu,
    &iface_txq,
    &audit_grade,
    &audit_worst,
    &audit_finding_delay,
    &audit_finding,
    &fix_changes,
    &fix_valid,
    &self_duration,
    &self_scrapes,
    &self_errors,
    &self_interfaces,
    &self_unreadable,
    &self_build,
};
const size_t metrics_nfamilies = COUNT(metrics_families);

/* ---- qdiscs ---- */

struct qdisc_labels {
	struct prom_label l[4];
	char handle[16], parent[16];
};

static void add_xstat(struct prom *w, const struct prom_family *f, const struct prom_label *l,
		      int64_t v)
{
	if (v >= 0)
		prom_add_u64(w, f, l, 4, (uint64_t)v);
}

static void collect_qdisc(struct prom *w, const char *device, const struct qdisc *q, unsigned depth)
{
	struct qdisc_labels ql;
	const struct prom_label *l = ql.l;

	host_qdisc_format_handle(q->handle, ql.handle, sizeof(ql.handle));
	host_qdisc_format_handle(q->parent, ql.parent, sizeof(ql.parent));
	ql.l[0] = (struct prom_label){"device", device};
	ql.l[1] = (struct prom_label){"kind", q->kind};
	ql.l[2] = (struct prom_label){"handle", ql.handle};
	ql.l[3] = (struct prom_label){"parent", ql.parent};
	if (q->stats.have) {
		prom_add_u64(w, &qdisc_bytes, l, 4, q->stats.bytes);
		prom_add_u64(w, &qdisc_packets, l, 4, q->stats.packets);
		prom_add_u64(w, &qdisc_drops, l, 4, q->stats.drops);
		prom_add_u64(w, &qdisc_overlimits, l, 4, q->stats.overlimits);
		prom_add_u64(w, &qdisc_requeues, l, 4, q->stats.requeues);
		prom_add_u64(w, &qdisc_backlog_bytes, l, 4, q->stats.backlog_bytes);
		prom_add_u64(w, &qdisc_backlog_packets, l, 4, q->stats.backlog_packets);
		add_xstat(w, &qdisc_ecn_marks, l, q->xstats.ecn_marks);
		add_xstat(w, &qdisc_ce_marks, l, q->xstats.ce_marks);
		add_xstat(w, &qdisc_drop_overlimit, l, q->xstats.drop_overlimit);
		add_xstat(w, &qdisc_drop_overmemory, l, q->xstats.drop_overmemory);
		add_xstat(w, &qdisc_new_flows, l, q->xstats.new_flow_count);
		add_xstat(w, &qdisc_flows, l, q->xstats.flows);
		add_xstat(w, &qdisc_memory, l, q->xstats.memory_used_bytes);
		add_xstat(w, &qdisc_throttled, l, q->xstats.throttled);
		add_xstat(w, &qdisc_throttled_flows, l, q->xstats.throttled_flows);
	}
	if (depth >= QDISC_MAX_DEPTH)
		return;
	for (size_t i = 0; i < q->nchildren; i++)
		collect_qdisc(w, device, &q->children[i], depth + 1);
}

/* ---- BQL ---- */

static void collect_bql(struct prom *w, const struct iface *ifc, long hz)
{
	for (size_t i = 0; i < ifc->nbql; i++) {
		const struct bql_queue *b = &ifc->bql[i];
		char queue[24];
		struct prom_label l[2] = {{"device", ifc->name}, {"queue", queue}};

		if (!b->present)
			continue;
		snprintf(queue, sizeof(queue), "tx-%u", b->queue);
		if (b->limit >= 0)
			prom_add_u64(w, &bql_limit, l, 2, (uint64_t)b->limit);
		if (b->limit_max >= 0)
			prom_add_u64(w, &bql_limit_max, l, 2, (uint64_t)b->limit_max);
		if (b->limit_min >= 0)
			prom_add_u64(w, &bql_limit_min, l, 2, (uint64_t)b->limit_min);
		if (b->inflight >= 0)
			prom_add_u64(w, &bql_inflight, l, 2, (uint64_t)b->inflight);
		if (b->hold_time_ms >= 0)
			prom_add_double(w, &bql_hold_time, l, 2, (double)b->hold_time_ms / 1e3);
		if (b->stall_thrs_ms >= 0)
			prom_add_double(w, &bql_stall_thrs, l, 2, (double)b->stall_thrs_ms / 1e3);
		if (b->stall_cnt >= 0)
			prom_add_u64(w, &bql_stalls, l, 2, (uint64_t)b->stall_cnt);
		if (b->stall_max_jiffies >= 0 && hz > 0)
			prom_add_double(w, &bql_stall_max, l, 2,
					(double)b->stall_max_jiffies / (double)hz);
	}
}

/* ---- the interface, audit's verdict, fix's journal ---- */

static void collect_iface(struct prom *w, const struct iface *ifc)
{
	struct prom_label info[4] = {{"device", ifc->name},
				     {"kind", ifc->kind},
				     {"driver", ifc->driver},
				     {"operstate", ifc->operstate}};
	struct prom_label dev[1] = {{"device", ifc->name}};

	prom_add_u64(w, &iface_info, info, 4, 1);
	prom_add_u64(w, &iface_txqueuelen, dev, 1, ifc->txqueuelen);
	if (ifc->speed_mbps)
		prom_add_u64(w, &iface_speed, dev, 1, (uint64_t)ifc->speed_mbps * 125000);
	prom_add_u64(w, &iface_mtu, dev, 1, ifc->mtu);
	prom_add_u64(w, &iface_txq, dev, 1, ifc->tx_queues);
	for (size_t i = 0; i < ifc->nunreadable; i++) {
		struct prom_label l[2] = {{"device", ifc->name}, {"what", ifc->unreadable[i].what}};

		prom_add_u64(w, &self_unreadable, l, 2, 1);
	}
}

static void collect_audit(struct prom *w, const struct iface *ifc, const struct host *h)
{
	struct verdict v;
	struct prom_label dev[1] = {{"device", ifc->name}};

	policy_iface(ifc, h, &v);
	if (v.graded) {
		struct prom_label l[2] = {{"device", ifc->name}, {"grade", grade_name(v.grade)}};

		prom_add_u64(w, &audit_grade, l, 2, (uint64_t)v.grade);
		prom_add_double(w, &audit_worst, dev, 1, (double)v.worst_delay_us / 1e6);
	}
	for (unsigned i = 0; i < v.nfindings; i++) {
		const struct finding *f = &v.findings[i];
		struct prom_label l[3] = {{"device", ifc->name},
					  {"code", f->code},
					  {"severity", severity_name(f->severity)}};

		prom_add_u64(w, &audit_finding, l, 3, 1);
		if (f->delay_us >= 0)
			prom_add_double(w, &audit_finding_delay, l, 2, (double)f->delay_us / 1e6);
	}
}

/* Steps that may have changed something: begun (maybe written) or applied. */
static void collect_journal(struct prom *w, const struct iface *ifc, const struct journal *j)
{
	struct prom_label dev[1] = {{"device", ifc->name}};
	uint64_t n = 0;

	for (size_t i = 0; j && i < j->n; i++)
		if (j->steps[i].state != JOURNAL_PLANNED &&
		    !strcmp(j->steps[i].knob.ifname, ifc->name))
			n++;
	prom_add_u64(w, &fix_changes, dev, 1, n);
}

void metrics_collect_self(struct prom *w, const struct metrics_context *ctx)
{
	struct prom_label version[1] = {{"version", ctx->version ? ctx->version : ""}};

	prom_add_double(w, &self_duration, NULL, 0, ctx->duration_s);
	prom_add_u64(w, &self_scrapes, NULL, 0, ctx->scrapes);
	prom_add_u64(w, &self_errors, NULL, 0, ctx->scrape_errors);
	prom_add_u64(w, &self_build, version, 1, 1);
}

void metrics_collect(struct prom *w, const struct host *h, const struct metrics_context *ctx)
{
	bool journal_ok = ctx->journal_err == 0 || ctx->journal_err == -ENOENT;

	for (size_t i = 0; i < h->n; i++) {
		const struct iface *ifc = &h->ifaces[i];

		if (ifc->qdisc)
			collect_qdisc(w, ifc->name, ifc->qdisc, 0);
		collect_bql(w, ifc, ctx->hz);
		collect_iface(w, ifc);
		collect_audit(w, ifc, h);
		if (journal_ok)
			collect_journal(w, ifc, ctx->journal);
	}
	prom_add_u64(w, &fix_valid, NULL, 0, journal_ok);
	prom_add_u64(w, &self_interfaces, NULL, 0, h->n);
	metrics_collect_self(w, ctx);
}
