/* SPDX-License-Identifier: MIT */
/*
 * knob-driver.c - the knob "driver": the module that drives a NIC, the kernel's own
 * or debloat's with BQL (fix/driver.h has the value's spelling and the swap). Applied
 * first and undone last (phase -1): loading a driver makes a new device, which loses
 * every other knob's value on it, so those are set after it and put back before it.
 * Not planned by audit's advice: `debloat fix --driver IFACE` plans it alone.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fix/driver.h"
#include "fix/knob-type.h"
#include "host/kmod.h"

static void label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "driver module");
}

static int read_driver(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	struct driver_value v;
	int r = driver_read(env, k->ifname, &v);

	return r < 0 ? r : driver_value_format(&v, val, len);
}

static int write_driver(const struct knob *k, const struct knob_env *env, const char *val,
			char *msg, size_t msglen)
{
	struct driver_value v;
	int r = driver_value_parse(val, &v, msg, msglen);

	return r < 0 ? r : driver_swap(env, k->ifname, &v, msg, msglen);
}

/* The same module in the same state on the same device: the peer is not a setting. */
static bool same_driver(const char *a, const char *b)
{
	struct driver_value va, vb;

	if (driver_value_parse(a, &va, NULL, 0) < 0 || driver_value_parse(b, &vb, NULL, 0) < 0)
		return false;
	if (va.which == DRIVER_NONE || vb.which == DRIVER_NONE)
		return va.which == vb.which;
	return va.which == vb.which && !strcmp(va.module, vb.module) &&
	       !strcmp(va.device, vb.device);
}

/* As a shell would do it: the module out, the file in (no waits, no peer, no keep). */
static int commands(struct knob_lines *o, const struct knob *k, const char *value, unsigned ntxq)
{
	char rel[128], file[PATH_MAX];
	const char *release = driver_release(NULL, rel, sizeof(rel));
	struct driver_value v;
	int r = driver_value_parse(value, &v, NULL, 0);

	if (r < 0 || v.which == DRIVER_NONE || !release[0])
		return -EINVAL;
	r = v.which == DRIVER_BQL
		? kmod_installed_file("/lib/modules", release, v.module, file, sizeof(file))
		: kmod_stock_file("/lib/modules", release, v.module, file, sizeof(file));
	if (r < 0)
		return -EINVAL;
	knob_line(o, "rmmod %s && insmod %s", v.module, file);
	return o->err;
}

static void nowhere(const struct knob *k, const char *value, struct knob_word *w)
{
	w->place = KNOB_NOWHERE;
	w->why = "a driver module is not the network's configuration: fix --driver "
		 "--persist makes ours the one loaded at boot (a depmod.d override)";
}

const struct knob_type knob_driver = {
    .name = "driver",
    .phase = -1, /* before everything on the device it makes (above) */
    .flags = 0,
    .label = label,
    .read = read_driver,
    .write = write_driver,
    .equal = same_driver,
    .commands = commands,
    .spec_value = true, /* several words: never a command line's one word */
    .networkd = nowhere,
    .nm = nowhere,
};
