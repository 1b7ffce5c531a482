/* SPDX-License-Identifier: MIT */
/*
 * nl.h - debloat's own netlink layer, the only one every build links (host, static
 * boards, tests): a message builder, a checked attribute parser, and rtnetlink
 * requests and dumps. The layout is the kernel's uapi (<linux/netlink.h>): a 16-byte
 * struct nlmsghdr, a family header, then attributes of a 4-byte struct nlattr and a
 * payload, each padded to 4 bytes (docs/design/netlink.md).
 *
 * Builder. Messages are appended to a caller's buffer. The first write that does not
 * fit sets err (-ENOSPC: out of room; -EMSGSIZE: an attribute or nest over the 64 KiB
 * nla_len can say) and drops the message it happened in: len goes back to where that
 * message began, so buf[0..len) only ever holds whole messages, and every later write
 * is ignored. A builder checks err once, at the end. Padding is zeroed (tc's is; the
 * golden bytes of the tests include it).
 *
 * Parser. Attribute access never trusts the kernel (or a fuzzer): every attribute
 * header is checked against the bytes that hold it, attributes are indexed by type
 * into a table (types above maxtype are ignored, so newer kernels work), and each
 * typed getter checks the payload length before reading. Malformed input is -EBADMSG.
 *
 * Requests and dumps. A dump sends one request (a message type plus its fixed family
 * header, such as struct ifinfomsg or struct tcmsg) and calls fn once per reply
 * message. fn returns 0 to go on or -errno to fail the dump; the rest of the dump is
 * then drained so the socket stays usable, and nl_dump returns fn's error. A request
 * waits for the kernel's acknowledgement and returns its -errno, with the kernel's
 * reason in words (extended ack) when it gave one.
 */
#ifndef DEBLOAT_NL_H
#define DEBLOAT_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

/* ---- builder ---- */

struct nlbuf {
	unsigned char *buf;
	size_t cap, len;
	size_t msg; /* offset of the message being built, or NLBUF_NO_MSG */
	int err;    /* the first error; every write after it is ignored */
};

#define NLBUF_NO_MSG SIZE_MAX

void nlbuf_init(struct nlbuf *b, void *buf, size_t cap);
/*
 * Start a message: header (nlmsg_len kept current as the message grows), then the
 * family header (struct tcmsg, ifinfomsg). Attributes appended before any message
 * (a bare attribute stream, such as TCA_OPTIONS' payload) belong to none.
 */
void nlbuf_msg(struct nlbuf *b, uint16_t type, uint16_t flags, uint32_t seq, const void *hdr,
	       size_t hdrlen);
void nlbuf_attr(struct nlbuf *b, uint16_t type, const void *data, size_t n);
void nlbuf_u8(struct nlbuf *b, uint16_t type, uint8_t v);
void nlbuf_u16(struct nlbuf *b, uint16_t type, uint16_t v);
void nlbuf_u32(struct nlbuf *b, uint16_t type, uint32_t v);
void nlbuf_u64(struct nlbuf *b, uint16_t type, uint64_t v);
void nlbuf_str(struct nlbuf *b, uint16_t type, const char *s);
/*
 * A nest (type as given: tc sets no NLA_F_NESTED); returns its offset for
 * nlbuf_nest_end, which fails with -EINVAL for an offset that is not a nest of the
 * current message.
 */
size_t nlbuf_nest(struct nlbuf *b, uint16_t type);
void nlbuf_nest_end(struct nlbuf *b, size_t off);

/* ---- parser ---- */

/* The fixed header after struct nlmsghdr, or NULL when the message is shorter. */
const void *nl_msg_header(const struct nlmsghdr *nlh, size_t hdrlen);

/*
 * Fill tb[0..maxtype] with the attributes that follow a hdrlen-byte header (or fill
 * the given buffer, or a nested attribute's payload). Entries not present are NULL;
 * of two attributes of one type the last wins. The attributes must fill the bytes
 * exactly (the last one's padding may be missing); anything else is -EBADMSG.
 */
int nl_msg_attrs(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr **tb,
		 unsigned maxtype);
int nl_attrs(const void *buf, size_t len, const struct nlattr **tb, unsigned maxtype);
int nl_nested(const struct nlattr *attr, const struct nlattr **tb, unsigned maxtype);

/*
 * Walk the attributes of buf one by one (for repeated types, where a table keeps only
 * the last): *attr NULL to start; 1 with *attr the next, 0 at the end, -EBADMSG at
 * one that does not fit.
 */
int nl_attr_next(const void *buf, size_t len, const struct nlattr **attr);

uint16_t nl_attr_type(const struct nlattr *attr); /* without NLA_F_NESTED, NLA_F_NET_BYTEORDER */
size_t nl_attr_len(const struct nlattr *attr);
/* The payload when it holds at least min_len bytes (larger structs from newer kernels are fine). */
const void *nl_attr_data(const struct nlattr *attr, size_t min_len);
/* Integers must have exactly their size. Output untouched on error. */
int nl_attr_u8(const struct nlattr *attr, uint8_t *out);
int nl_attr_u16(const struct nlattr *attr, uint16_t *out);
int nl_attr_u32(const struct nlattr *attr, uint32_t *out);
int nl_attr_u64(const struct nlattr *attr, uint64_t *out);
/* A NUL-terminated string that fits len bytes; -EBADMSG without NUL, -ENAMETOOLONG when long. */
int nl_attr_str(const struct nlattr *attr, char *buf, size_t len);

/* ---- requests and dumps over NETLINK_ROUTE ---- */

struct nl;

typedef int (*nl_msg_fn)(const struct nlmsghdr *nlh, void *data);

/* A NETLINK_ROUTE socket in the calling thread's network namespace. */
int nl_open(struct nl **out);
void nl_close(struct nl *nl);
int nl_dump(struct nl *nl, uint16_t type, const void *hdr, size_t hdrlen, nl_msg_fn fn, void *data);

/*
 * A dump gathered into a new array: the request as for nl_dump, each reply message of
 * type want decoded by decode into the next elem-byte element (the array grows by
 * array_grow from first up to max elements). nl NULL opens a socket for this one dump.
 * Returns 0 with *out (free it) and *n, or the -errno of nl_open, decode, the dump or
 * array_grow with nothing allocated.
 */
struct nl_list {
	uint16_t type, want;
	const void *hdr;
	size_t hdrlen;
	int (*decode)(const struct nlmsghdr *nlh, void *elem);
	size_t elem, first, max;
};

int nl_dump_list(struct nl *nl, const struct nl_list *spec, void **out, size_t *n);

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

/*
 * One received datagram, as nl_dump and nl_request see it (the socket-free half, for
 * tests and the fuzzer). Messages of another sequence number or port are stale and
 * skipped. Data messages go to fn (may be NULL), which stops the walk with its
 * -errno; NLMSG_ERROR ends the exchange with its error (0 is an ack; the extended-ack
 * text goes to errmsg when given), NLMSG_DONE with the error it may carry. Returns 1
 * while more is to come, 0 when the exchange is over, -errno (-EBADMSG when
 * malformed). *intr (may be NULL) is set when a message says NLM_F_DUMP_INTR: the
 * table changed during the dump.
 */
int nl_reply(const void *buf, size_t len, uint32_t seq, uint32_t portid, nl_msg_fn fn, void *data,
	     bool *intr, char *errmsg, size_t errlen);

#endif
