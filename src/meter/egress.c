/* SPDX-License-Identifier: MIT */
/* egress.c - egress.h: which interface a test used, and its audit as flent's metadata. */
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/pkt_sched.h>

#include "base/array.h"
#include "base/json.h"
#include "host/host.h"
#include "host/iface.h"
#include "host/qdisc.h"
#include "meter/egress.h"

/* The source address the kernel's routing picks for dst: connect() on UDP sends nothing. */
static int route_source(const struct sockaddr *dst, socklen_t dstlen, struct sockaddr_storage *src)
{
	socklen_t len = sizeof(*src);
	int fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, dst, dstlen) < 0 || getsockname(fd, (struct sockaddr *)src, &len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool same_address(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static int iface_of_address(const struct sockaddr_storage *src, char *name, size_t len)
{
	struct ifaddrs *list, *it;
	int ret = -ENODEV;

	if (getifaddrs(&list) < 0)
		return -errno;
	for (it = list; it; it = it->ifa_next) {
		if (it->ifa_addr && same_address(it->ifa_addr, src)) {
			snprintf(name, len, "%s", it->ifa_name);
			ret = 0;
			break;
		}
	}
	freeifaddrs(list);
	return ret;
}

int egress_iface(const char *server_host, char *name, size_t len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
	struct sockaddr_storage src;
	int ret;

	/* The port only has to be valid; nothing is sent to it. */
	if (getaddrinfo(server_host, "9", &hints, &ai) != 0)
		return -ENOENT;
	ret = route_source(ai->ai_addr, ai->ai_addrlen, &src);
	freeaddrinfo(ai);
	if (ret == -ENETUNREACH || ret == -EHOSTUNREACH)
		return -ENETUNREACH;
	if (ret < 0)
		return ret;
	return iface_of_address(&src, name, len);
}

/* Each helper below takes ownership of nothing and returns -ENOMEM when a set fails. */
static int set_new(struct jval *obj, const char *key, struct jval *v)
{
	return v ? json_set(obj, key, v) : -ENOMEM;
}

static int qdisc_entry(const struct qdisc *q, struct jval *list)
{
	struct jval *e = json_new_object(), *params = json_new_object();
	char id[16], parent[16];
	int ret;

	if (!e || !params) {
		json_free(e);
		json_free(params);
		return -ENOMEM;
	}
	host_qdisc_format_handle(q->handle, id, sizeof(id));
	if (q->parent == TC_H_ROOT)
		snprintf(parent, sizeof(parent), "root");
	else
		host_qdisc_format_handle(q->parent, parent, sizeof(parent));
	ret = 0;
	for (unsigned i = 0; i < q->noptions && !ret; i++) {
		const struct value *v = &q->options[i];

		if (v->type == VALUE_BOOL)
			ret = set_new(params, v->key, json_new_bool(v->u != 0));
		else if (v->type == VALUE_UINT)
			ret = set_new(params, v->key, json_new_uint(v->u));
	}
	if (!ret)
		ret = set_new(e, "name", json_new_string(q->kind));
	if (!ret)
		ret = set_new(e, "id", json_new_string(id));
	if (!ret)
		ret = set_new(e, "parent", json_new_string(parent));
	if (ret) {
		json_free(e);
		json_free(params);
		return ret;
	}
	ret = json_set(e, "params", params);
	if (ret) {
		json_free(e);
		return ret;
	}
	ret = json_append(list, e);
	/* the tree in order: a parent before its children */
	for (size_t i = 0; i < q->nchildren && !ret; i++)
		ret = qdisc_entry(&q->children[i], list);
	return ret;
}

static int bql_object(const struct iface *ifc, struct jval *bql)
{
	int ret = 0;

	for (size_t i = 0; i < ifc->nbql && !ret; i++) {
		const struct bql_queue *b = &ifc->bql[i];
		struct jval *q;
		char name[24];

		if (!b->present)
			continue;
		q = json_new_object();
		if (!q)
			return -ENOMEM;
		/* the classic five; the stall detector's are audit's business */
		for (size_t k = 0; k < BQL_NFIELDS && !ret; k++) {
			int64_t v = bql_field_get(b, &bql_fields[k]);

			if (!bql_fields[k].stall && v >= 0)
				ret = set_new(q, bql_fields[k].key, json_new_int(v));
		}
		snprintf(name, sizeof(name), "tx-%u", b->queue);
		if (ret)
			json_free(q);
		else
			ret = json_set(bql, name, q);
	}
	return ret;
}

static int offloads_object(const struct iface *ifc, struct jval *off)
{
	/* ethtool -k's names, as flent records them */
	const struct {
		const char *name;
		enum feature_state st;
	} f[] = {{"tcp-segmentation-offload", ifc->tso},
		 {"generic-segmentation-offload", ifc->gso},
		 {"generic-receive-offload", ifc->gro},
		 {"large-receive-offload", ifc->lro}};
	int ret = 0;

	for (size_t i = 0; i < COUNT(f) && !ret; i++)
		if (f[i].st != FEATURE_UNKNOWN)
			ret = set_new(off, f[i].name, json_new_bool(f[i].st == FEATURE_ON));
	return ret;
}

static int link_object(const struct iface *ifc, struct jval *lp)
{
	char speed[24];
	int ret;

	ret = set_new(lp, "qlen", json_new_uint(ifc->txqueuelen));
	if (!ret && ifc->speed_mbps) {
		snprintf(speed, sizeof(speed), "%uMb/s", ifc->speed_mbps);
		ret = set_new(lp, "speed", json_new_string(speed));
	}
	if (!ret && ifc->duplex != IFACE_DUPLEX_UNKNOWN)
		ret = set_new(lp, "duplex",
			      json_new_string(ifc->duplex == IFACE_DUPLEX_FULL ? "Full" : "Half"));
	return ret;
}

/* Add an empty container under key and hand it back to be filled. */
static struct jval *add_container(struct jval *obj, const char *key, bool array, int *ret)
{
	struct jval *c = array ? json_new_array() : json_new_object();

	if (*ret)
		return (json_free(c), NULL);
	*ret = set_new(obj, key, c);
	return *ret ? NULL : c;
}

static int egress_object(const struct iface *ifc, struct jval **out)
{
	struct jval *e = json_new_object(), *c;
	int ret = e ? 0 : -ENOMEM;

	if (!ret)
		ret = set_new(e, "iface", json_new_string(ifc->name));
	if (!ret && ifc->driver[0])
		ret = set_new(e, "driver", json_new_string(ifc->driver));
	c = add_container(e, "qdiscs", true, &ret);
	if (c && ifc->qdisc)
		ret = qdisc_entry(ifc->qdisc, c);
	c = add_container(e, "bql", false, &ret);
	if (c)
		ret = bql_object(ifc, c);
	c = add_container(e, "offloads", false, &ret);
	if (c)
		ret = offloads_object(ifc, c);
	c = add_container(e, "link_params", false, &ret);
	if (c)
		ret = link_object(ifc, c);
	if (ret) {
		json_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

static int sysctls_object(const struct host *h, struct jval **out)
{
	struct jval *s = json_new_object();
	int ret = s ? 0 : -ENOMEM;

	for (size_t i = 0; i < HOST_NSYSCTLS && !ret; i++) {
		const struct sysctl_entry *e = &h->sysctls[i];
		char *end;
		long long v;

		if (e->err || !e->name)
			continue;
		/* numbers as numbers, as flent writes them */
		v = strtoll(e->value, &end, 10);
		if (e->value[0] && !*end)
			ret = set_new(s, e->name, json_new_int(v));
		else
			ret = set_new(s, e->name, json_new_string(e->value));
	}
	if (ret) {
		json_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

static int text_of(struct jval *v, char **out)
{
	size_t len;
	const char *t = json_text(v, &len);
	char *copy = t ? strdup(t) : NULL;

	if (!copy)
		return -ENOMEM;
	*out = copy;
	return 0;
}

int egress_info_iface(const char *iface, char **egress_json, char **sysctls_json)
{
	struct host h = {0};
	struct jval *e = NULL, *s = NULL;
	char *names[1] = {(char *)iface};
	char *etext = NULL, *stext = NULL;
	size_t bad;
	int ret;

	ret = host_read(&h, &host_default_paths, names, 1, &bad);
	if (ret < 0)
		return ret;
	ret = h.n ? egress_object(&h.ifaces[0], &e) : -ENODEV;
	if (!ret)
		ret = sysctls_object(&h, &s);
	if (!ret)
		ret = text_of(e, &etext);
	if (!ret)
		ret = text_of(s, &stext);
	if (!ret) {
		*egress_json = etext;
		*sysctls_json = stext;
	} else {
		free(etext);
		free(stext);
	}
	json_free(e);
	json_free(s);
	host_free(&h);
	return ret;
}

int egress_info(const char *server_host, char **egress_json, char **sysctls_json)
{
	char name[IF_NAMESIZE];
	int ret;

	ret = egress_iface(server_host, name, sizeof(name));
	if (ret < 0)
		return ret;
	return egress_info_iface(name, egress_json, sysctls_json);
}
