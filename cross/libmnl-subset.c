/* SPDX-License-Identifier: MIT */
/*
 * libmnl-subset.c - the libmnl functions debloat calls, for static builds only.
 *
 * Debian's libmnl-dev ships libmnl.so and no libmnl.a, so scripts/static-libmnl.sh
 * compiles this file for static builds, against the real <libmnl/libmnl.h> of the
 * multiarch libmnl-dev, so every prototype, constant and struct layout is libmnl's
 * own. Written from libmnl's documented behaviour (its header's API):
 * message and attribute walking with the same bounds checks, mnl_cb_run()'s
 * port-id, sequence and dump-interrupted checks and its default handling of
 * NLMSG_ERROR/NLMSG_DONE, and the socket calls. The dynamic build (`make`) always
 * links the real libmnl; tests/test-static.sh runs test-nl on this under qemu.
 * A function debloat starts to call that is not here fails the static link, loudly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

struct mnl_socket {
	int fd;
	struct sockaddr_nl addr;
};

/* Messages. */

size_t mnl_nlmsg_size(size_t len)
{
	return len + MNL_NLMSG_HDRLEN;
}

struct nlmsghdr *mnl_nlmsg_put_header(void *buf)
{
	struct nlmsghdr *nlh = buf;

	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	return nlh;
}

void *mnl_nlmsg_put_extra_header(struct nlmsghdr *nlh, size_t size)
{
	char *ptr = (char *)nlh + nlh->nlmsg_len;
	size_t len = MNL_ALIGN(size);

	nlh->nlmsg_len += len;
	memset(ptr, 0, len);
	return ptr;
}

void *mnl_nlmsg_get_payload(const struct nlmsghdr *nlh)
{
	return (char *)nlh + MNL_NLMSG_HDRLEN;
}

size_t mnl_nlmsg_get_payload_len(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
}

void *mnl_nlmsg_get_payload_tail(const struct nlmsghdr *nlh)
{
	return (char *)nlh + MNL_ALIGN(nlh->nlmsg_len);
}

bool mnl_nlmsg_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(struct nlmsghdr) && nlh->nlmsg_len >= sizeof(struct nlmsghdr) &&
	       (int)nlh->nlmsg_len <= len;
}

struct nlmsghdr *mnl_nlmsg_next(const struct nlmsghdr *nlh, int *len)
{
	*len -= MNL_ALIGN(nlh->nlmsg_len);
	return (struct nlmsghdr *)((char *)nlh + MNL_ALIGN(nlh->nlmsg_len));
}

bool mnl_nlmsg_seq_ok(const struct nlmsghdr *nlh, unsigned int seq)
{
	return nlh->nlmsg_seq && seq ? nlh->nlmsg_seq == seq : true;
}

bool mnl_nlmsg_portid_ok(const struct nlmsghdr *nlh, unsigned int portid)
{
	return nlh->nlmsg_pid && portid ? nlh->nlmsg_pid == portid : true;
}

/* Attributes. */

uint16_t mnl_attr_get_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

uint16_t mnl_attr_get_payload_len(const struct nlattr *attr)
{
	return attr->nla_len - MNL_ATTR_HDRLEN;
}

void *mnl_attr_get_payload(const struct nlattr *attr)
{
	return (char *)attr + MNL_ATTR_HDRLEN;
}

bool mnl_attr_ok(const struct nlattr *attr, int len)
{
	return len >= (int)sizeof(struct nlattr) && attr->nla_len >= sizeof(struct nlattr) &&
	       (int)attr->nla_len <= len;
}

struct nlattr *mnl_attr_next(const struct nlattr *attr)
{
	return (struct nlattr *)((char *)attr + MNL_ALIGN(attr->nla_len));
}

int mnl_attr_parse_payload(const void *payload, size_t payload_len, mnl_attr_cb_t cb, void *data)
{
	const struct nlattr *attr;
	int ret = MNL_CB_OK;

	mnl_attr_for_each_payload(payload, payload_len)
		if ((ret = cb(attr, data)) <= MNL_CB_STOP)
			return ret;
	return ret;
}

/* Callbacks: data messages go to cb_data; control messages get libmnl's defaults. */

static int cb_error(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct nlmsgerr))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* the kernel sends -errno; a positive one from user space is taken as is */
	errno = err->error < 0 ? -err->error : err->error;
	return err->error == 0 ? MNL_CB_STOP : MNL_CB_ERROR;
}

int mnl_cb_run(const void *buf, size_t numbytes, unsigned int seq, unsigned int portid,
	       mnl_cb_t cb_data, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int ret = MNL_CB_OK, len = (int)numbytes;

	while (mnl_nlmsg_ok(nlh, len)) {
		if (!mnl_nlmsg_portid_ok(nlh, portid)) {
			errno = ESRCH;
			return -1;
		}
		if (!mnl_nlmsg_seq_ok(nlh, seq)) {
			errno = EPROTO;
			return -1;
		}
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR;
			return -1;
		}
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
			if (cb_data && (ret = cb_data(nlh, data)) <= MNL_CB_STOP)
				return ret;
		} else if (nlh->nlmsg_type == NLMSG_ERROR) {
			if ((ret = cb_error(nlh)) <= MNL_CB_STOP)
				return ret;
		} else if (nlh->nlmsg_type == NLMSG_DONE) {
			return MNL_CB_STOP;
		}
		/* NLMSG_NOOP, NLMSG_OVERRUN: nothing to do */
		nlh = mnl_nlmsg_next(nlh, &len);
	}
	return ret;
}

/* Sockets. */

struct mnl_socket *mnl_socket_open2(int bus, int flags)
{
	struct mnl_socket *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return NULL;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | flags, bus);
	if (nl->fd < 0) {
		free(nl);
		return NULL;
	}
	return nl;
}

struct mnl_socket *mnl_socket_open(int bus)
{
	return mnl_socket_open2(bus, 0);
}

int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	socklen_t addr_len = sizeof(nl->addr);

	nl->addr.nl_family = AF_NETLINK;
	nl->addr.nl_groups = groups;
	nl->addr.nl_pid = (unsigned int)pid;
	if (bind(nl->fd, (struct sockaddr *)&nl->addr, sizeof(nl->addr)) < 0)
		return -1;
	if (getsockname(nl->fd, (struct sockaddr *)&nl->addr, &addr_len) < 0)
		return -1;
	if (addr_len != sizeof(nl->addr) || nl->addr.nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return nl->fd;
}

unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	return nl->addr.nl_pid;
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
	static const struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	return sendto(nl->fd, buf, len, 0, (const struct sockaddr *)&kernel, sizeof(kernel));
}

ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t bufsiz)
{
	struct sockaddr_nl addr;
	struct iovec iov = {.iov_base = buf, .iov_len = bufsiz};
	struct msghdr msg = {
	    .msg_name = &addr,
	    .msg_namelen = sizeof(addr),
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	};
	ssize_t ret = recvmsg(nl->fd, &msg, 0);

	if (ret < 0)
		return ret;
	if (msg.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	if (msg.msg_namelen != sizeof(addr)) {
		errno = EINVAL;
		return -1;
	}
	return ret;
}

int mnl_socket_close(struct mnl_socket *nl)
{
	int ret = close(nl->fd);

	free(nl);
	return ret;
}
