/* SPDX-License-Identifier: MIT */
/*
 * nl.h - rtnetlink dumps and checked attribute access. The only file that knows libmnl.
 *
 * A dump sends one request (a message type plus its fixed family header, such as
 * struct ifinfomsg or struct tcmsg) and calls fn once per reply message. fn returns 0
 * to go on or -errno to fail the dump; the rest of the dump is then drained so the
 * socket stays usable, and nl_dump returns fn's error.
 *
 * Attribute access never trusts the kernel (or a fuzzer): every attribute header is
 * checked against the bytes that hold it, attributes are indexed by type into a
 * table (types above maxtype are ignored, so newer kernels work), and each typed
 * getter checks the payload length before reading. Malformed input is -EBADMSG.
 */
#ifndef DEBLOAT_NL_H
#define DEBLOAT_NL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

struct nl;

typedef int (*nl_msg_fn)(const struct nlmsghdr *nlh, void *data);

int nl_open(struct nl **out);
void nl_close(struct nl *nl);
int nl_dump(struct nl *nl, uint16_t type, const void *hdr, size_t hdrlen, nl_msg_fn fn, void *data);

/*
 * Send prepared requests (len bytes of netlink messages, each NLMSG_ALIGNed and asking
 * NLM_F_ACK) one at a time, waiting for each one's acknowledgement before the next, so
 * that a refused request stops the sequence. nlmsg_seq and nlmsg_pid are overwritten
 * with the socket's own. Returns 0, or the -errno of the first refused request, with
 * *done (may be NULL) the number of requests the kernel accepted and errmsg (may be
 * NULL) the kernel's extended-ack text (NLMSGERR_ATTR_MSG; "" when it gave none).
 * Malformed input is -EINVAL before anything is sent.
 */
int nl_request(struct nl *nl, void *msgs, size_t len, size_t *done, char *errmsg, size_t errlen);

/* The fixed header after struct nlmsghdr, or NULL when the message is shorter. */
const void *nl_msg_header(const struct nlmsghdr *nlh, size_t hdrlen);

/*
 * Fill tb[0..maxtype] with the attributes that follow a hdrlen-byte header (or fill
 * the given buffer, or a nested attribute's payload). Entries not present are NULL.
 */
int nl_msg_attrs(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb,
		 unsigned maxtype);
int nl_attrs(const void *buf, size_t len, const struct nlattr **tb, unsigned maxtype);
int nl_nested(const struct nlattr *attr, const struct nlattr **tb, unsigned maxtype);

size_t nl_attr_len(const struct nlattr *attr);
/* The payload when it holds at least min_len bytes (larger structs from newer kernels are fine). */
const void *nl_attr_data(const struct nlattr *attr, size_t min_len);
/* Integers must have exactly their size. Output untouched on error. */
int nl_attr_u8(const struct nlattr *attr, uint8_t *out);
int nl_attr_u32(const struct nlattr *attr, uint32_t *out);
int nl_attr_u64(const struct nlattr *attr, uint64_t *out);
/* A NUL-terminated string that fits len bytes; -EBADMSG without NUL, -ENAMETOOLONG when long. */
int nl_attr_str(const struct nlattr *attr, char *buf, size_t len);

#endif
