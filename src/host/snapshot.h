/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - a host as one JSON document and back: what `debloat snapshot` writes
 * and `debloat audit --from FILE` reads, so a board owner can send their host and a
 * test can audit boards we do not have. The format is docs/snapshot.md.
 *
 * The document carries the description audit reads (struct host), not audit's
 * conclusions: BQL's in_use, findings and grades are recomputed from it. Keys match
 * the audit JSON (docs/json.md) where the fact is the same, and name their unit.
 *
 * Reading is strict about what it needs and lenient about the rest: a missing
 * required key, a value of the wrong type or out of range, or an unknown format
 * version fail with a message naming the place ("interfaces[0].mtu: expected an
 * integer, got a string"); keys it does not know are ignored, so a newer debloat's
 * snapshot still reads. Everything is bounded: the file's size, the number of
 * interfaces, queues and qdiscs, and the depth of a qdisc tree.
 */
#ifndef DEBLOAT_SNAPSHOT_H
#define DEBLOAT_SNAPSHOT_H

#include <stddef.h>

#include "base/json.h"
#include "host/host.h"

#define SNAPSHOT_VERSION    1
#define SNAPSHOT_MAX_BYTES  (8u << 20) /* a host with 4096 interfaces is ~6 MiB */
#define SNAPSHOT_MAX_IFACES 4096

/* The host as a document; *out is the caller's to json_free. -ENOMEM. */
int snapshot_build(const struct host *h, struct jval **out);

/*
 * A document into a host (from_snapshot set). On failure *out is left empty and
 * err holds what is wrong and where: -EINVAL (malformed), -EPROTONOSUPPORT (an
 * unknown format version), -ENOMEM.
 */
int snapshot_from_json(const struct jval *doc, struct host *out, char *err, size_t errlen);
/* The same from bytes, which must be one JSON document of at most SNAPSHOT_MAX_BYTES. */
int snapshot_parse(const char *buf, size_t len, struct host *out, char *err, size_t errlen);
/* The same from a file; also -EFBIG and what open/read return. */
int snapshot_read_file(const char *path, struct host *out, char *err, size_t errlen);

/*
 * Keep the named interfaces, in the order named (a name given twice once), and free
 * the rest. -ENODEV with *bad_name the index of a name the host does not have; the
 * host is then unchanged.
 */
int snapshot_select(struct host *h, char *const names[], size_t nnames, size_t *bad_name);

#endif
