/* SPDX-License-Identifier: MIT */
/*
 * prom.h - the Prometheus text exposition format, version 0.0.4, written into memory.
 *
 * The format (prometheus.io, "Exposition formats"): UTF-8 lines, each ending in '\n';
 * per metric family one `# HELP name text` and one `# TYPE name counter|gauge`, then
 * every sample of that family, together:
 *
 *	# HELP debloat_qdisc_drops_total Packets the qdisc dropped.
 *	# TYPE debloat_qdisc_drops_total counter
 *	debloat_qdisc_drops_total{device="eth0",kind="fq_codel",handle="1:",parent="root"} 12
 *
 * HELP text escapes '\\' and newline; label values escape '\\', '"' and newline.
 * Names are [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (not
 * starting with "__", which Prometheus keeps for itself).
 *
 * Samples may be added in any order: each family collects its own lines and
 * prom_finish() writes the families in the order they were first used, so a family's
 * HELP and TYPE appear once and its samples are never split, whatever order the
 * caller walks the host in. Families are told apart by name; the same name with
 * another type is -EINVAL.
 *
 * Errors (-ENOMEM, -EINVAL for a bad name) are sticky: the first is returned by
 * prom_finish(), and nothing is written then. No I/O here.
 */
#ifndef DEBLOAT_EXPORTER_PROM_H
#define DEBLOAT_EXPORTER_PROM_H

#include <stddef.h>
#include <stdint.h>

#define PROM_MAX_FAMILIES 256
#define PROM_MAX_BYTES	  (64u << 20) /* a bound on one exposition: 64 MB */

enum prom_type {
	PROM_COUNTER,
	PROM_GAUGE,
};

struct prom_family {
	const char *name; /* "debloat_qdisc_drops_total" */
	enum prom_type type;
	const char *help; /* one line; escaped on output */
};

struct prom_label {
	const char *name;
	const char *value; /* any bytes but NUL; escaped on output */
};

struct prom;

/* NULL when out of memory. */
struct prom *prom_new(void);
void prom_free(struct prom *w);

/* One sample. Integers are written exactly; doubles as the shortest exact decimal
 * (NaN, +Inf and -Inf spelled as Prometheus reads them). */
void prom_add_u64(struct prom *w, const struct prom_family *f, const struct prom_label *labels,
		  size_t nlabels, uint64_t value);
void prom_add_double(struct prom *w, const struct prom_family *f, const struct prom_label *labels,
		     size_t nlabels, double value);

/* The whole exposition; *out is malloc'ed (NUL-terminated, *len without it). */
int prom_finish(struct prom *w, char **out, size_t *len);

/* Whether name is a valid metric name, label a valid label name. */
int prom_name_valid(const char *name);
int prom_label_name_valid(const char *name);

#endif
