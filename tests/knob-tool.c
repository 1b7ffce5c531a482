/* SPDX-License-Identifier: MIT */
/*
 * knob-tool.c - a test tool over src/fix/knob.h, for tests/test-fix-knob.sh and for
 * looking at knobs by hand. Not installed and not a debloat command.
 *
 *   knob-tool read  KIND IFACE [NAME|QUEUE]          prints the value
 *   knob-tool write KIND IFACE [NAME|QUEUE] VALUE
 *   knob-tool read  sysctl NAME
 *   knob-tool write sysctl NAME VALUE
 *   knob-tool equal KIND A B                          exit 0 when knob_value_equal
 *   knob-tool canonical SPEC                          a root-qdisc spec, canonical
 *
 * KIND is a knob_kind_name(); bql-limit-max takes a queue number, offload and
 * driver-boot a name (driver-boot's: the module). Errors go to stderr as "knob-tool:
 * ENAME: message" with exit status 1. The environment may point the knobs' trees
 * elsewhere (knob_env): KNOB_TOOL_MODULES (/lib/modules), KNOB_TOOL_ETC (/etc),
 * KNOB_TOOL_RELEASE (uname's) and KNOB_TOOL_DEPMOD (depmod).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/knob.h"

static const char *errno_name(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
	    {ENOENT, "ENOENT"}, {EOPNOTSUPP, "EOPNOTSUPP"}, {EINVAL, "EINVAL"}, {ENODEV, "ENODEV"},
	    {EPERM, "EPERM"},	{EACCES, "EACCES"},	    {EXDEV, "EXDEV"},	{EEXIST, "EEXIST"},
	    {ENOSPC, "ENOSPC"}, {EBUSY, "EBUSY"},	    {ERANGE, "ERANGE"}, {ECHILD, "ECHILD"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (names[i].e == e)
			return names[i].name;
	return "E?";
}

static int usage(void)
{
	fprintf(stderr, "usage: knob-tool read|write KIND IFACE [NAME|QUEUE] [VALUE]\n"
			"       knob-tool read|write sysctl NAME [VALUE]\n"
			"       knob-tool equal KIND A B\n"
			"       knob-tool canonical SPEC\n");
	return 2;
}

static int fail(int r, const char *msg)
{
	fprintf(stderr, "knob-tool: %s: %s%s%s\n", errno_name(-r), strerror(-r), msg[0] ? ": " : "",
		msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct knob k = {0};
	char val[KNOB_VALUE_MAX], msg[256] = "";
	struct knob_env env = {.sysfs_root = "/sys",
			       .proc_root = "/proc",
			       .modules_root = getenv("KNOB_TOOL_MODULES"),
			       .release = getenv("KNOB_TOOL_RELEASE"),
			       .etc_root = getenv("KNOB_TOOL_ETC"),
			       .depmod = getenv("KNOB_TOOL_DEPMOD")};
	int kind, i = 3, r;
	bool writing;

	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "canonical")) {
		r = knob_qdisc_canonical(argv[2], val, sizeof(val), msg, sizeof(msg));
		if (r < 0)
			return fail(r, msg);
		printf("%s\n", val);
		return 0;
	}
	kind = knob_kind_from_name(argv[2]);
	if (kind < 0)
		return usage();
	if (!strcmp(argv[1], "equal")) {
		if (argc != 5)
			return usage();
		return knob_value_equal((enum knob_kind)kind, argv[3], argv[4]) ? 0 : 1;
	}
	writing = !strcmp(argv[1], "write");
	if (!writing && strcmp(argv[1], "read"))
		return usage();
	k.kind = (enum knob_kind)kind;
	if (k.kind == KNOB_SYSCTL) {
		if (argc < 4)
			return usage();
		snprintf(k.name, sizeof(k.name), "%s", argv[i++]);
	} else {
		if (argc < 4)
			return usage();
		snprintf(k.ifname, sizeof(k.ifname), "%s", argv[i++]);
		if (k.kind == KNOB_OFFLOAD || k.kind == KNOB_BQL_LIMIT_MAX ||
		    k.kind == KNOB_DRIVER_BOOT) {
			if (argc <= i)
				return usage();
			if (k.kind != KNOB_BQL_LIMIT_MAX)
				snprintf(k.name, sizeof(k.name), "%s", argv[i++]);
			else
				k.queue = atoi(argv[i++]);
		}
	}
	if (writing) {
		if (argc != i + 1)
			return usage();
		r = knob_write(&k, &env, argv[i], msg, sizeof(msg));
		return r < 0 ? fail(r, msg) : 0;
	}
	if (argc != i)
		return usage();
	r = knob_read(&k, &env, val, sizeof(val));
	if (r < 0)
		return fail(r, "");
	printf("%s\n", val);
	return 0;
}
