/* SPDX-License-Identifier: MIT */
/* driver.c - driver.h: which module drives a NIC, and swapping it (the order is there). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"
#include "fix/driver.h"
#include "fix/knob-type.h"
#include "fix/link-keep.h"
#include "fix/reach.h"
#include "host/kmod.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4 /* Linux 6.4: the kernel decompresses */
#endif

/* kmod/modules.txt's modules: the drivers we carry a BQL patch for. */
static const char *const patched[] = {"fec", "ti_cpsw", "ti_cpsw_new", "lan78xx", "r8152"};

static const char *const which_names[] = {
    [DRIVER_NONE] = "none", [DRIVER_STOCK] = "stock", [DRIVER_BQL] = "bql"};

bool driver_patched(const char *module)
{
	for (size_t i = 0; i < COUNT(patched); i++)
		if (!strcmp(patched[i], module))
			return true;
	return false;
}

const char *driver_patched_list(void)
{
	return "fec, ti_cpsw, ti_cpsw_new, lan78xx, r8152";
}

static const char *modules_root(const struct knob_env *env)
{
	return env && env->modules_root ? env->modules_root : "/lib/modules";
}

const char *driver_release(const struct knob_env *env, char *buf, size_t len)
{
	struct utsname u;

	if (env && env->release)
		return env->release;
	if (uname(&u) < 0 || strlen(u.release) >= len)
		return "";
	memcpy(buf, u.release, strlen(u.release) + 1);
	return buf;
}

/* A word of the value: letters, digits and what device names use. */
static bool word_ok(const char *w, size_t max)
{
	size_t n = strlen(w);

	if (!n || n >= max || strstr(w, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(w[i] >= 'a' && w[i] <= 'z') && !(w[i] >= 'A' && w[i] <= 'Z') &&
		    !(w[i] >= '0' && w[i] <= '9') && !strchr("._-:/+", w[i]))
			return false;
	return true;
}

int driver_value_parse(const char *s, struct driver_value *out, char *msg, size_t msglen)
{
	char buf[KNOB_VALUE_MAX], *save = NULL, *w[6];
	size_t n = 0;
	struct driver_value v = {0};

	if (strlen(s) >= sizeof(buf))
		goto bad;
	memcpy(buf, s, strlen(s) + 1);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == COUNT(w))
			goto bad;
		w[n++] = t;
	}
	if (n == 1 && !strcmp(w[0], "none")) {
		*out = v;
		return 0;
	}
	if (n != 3 && !(n == 5 && !strcmp(w[3], "peer")))
		goto bad;
	if (!strcmp(w[0], "stock"))
		v.which = DRIVER_STOCK;
	else if (!strcmp(w[0], "bql"))
		v.which = DRIVER_BQL;
	else
		goto bad;
	if (!word_ok(w[1], sizeof(v.module)) || strchr(w[1], '/') ||
	    !word_ok(w[2], sizeof(v.device)) || !strchr(w[2], '/') ||
	    (n == 5 && !word_ok(w[4], sizeof(v.peer))))
		goto bad;
	strcpy(v.module, w[1]);
	strcpy(v.device, w[2]);
	if (n == 5)
		strcpy(v.peer, w[4]);
	*out = v;
	return 0;
bad:
	knob_msg(
	    msg, msglen,
	    "a driver is \"stock MODULE BUS/DEVICE\" or \"bql MODULE BUS/DEVICE [peer ADDR]\", "
	    "not \"%.200s\"",
	    s);
	return -EINVAL;
}

int driver_value_format(const struct driver_value *v, char *buf, size_t len)
{
	int r;

	if (v->which == DRIVER_NONE)
		return knob_put(buf, len, "none");
	r = snprintf(buf, len, "%s %s %s%s%s", which_names[v->which], v->module, v->device,
		     v->peer[0] ? " peer " : "", v->peer);
	return r < 0 || (size_t)r >= len ? -ENOSPC : 0;
}

/* The last element of a symlink's target. */
static int link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t l = readlink(path, target, sizeof(target) - 1);
	const char *b;

	if (l < 0)
		return -errno;
	target[l] = '\0';
	b = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	return knob_put(out, len, b);
}

/* Does A/B/C exist (C may be "")? */
static bool exists(const char *a, const char *b, const char *c)
{
	char path[PATH_MAX];
	int r = snprintf(path, sizeof(path), "%s/%s%s%s", a, b, c[0] ? "/" : "", c);

	return r > 0 && (size_t)r < sizeof(path) && access(path, F_OK) == 0;
}

/* Is the module loaded now ours (driver.h: build-id, else srcversion, else taint)? */
static bool loaded_is_ours(const struct knob_env *env, const char *module)
{
	char rel[128], file[PATH_MAX], mine[64], loaded[64];
	const char *release = driver_release(env, rel, sizeof(rel));
	unsigned char note[256];
	size_t n = 0;
	int r;

	if (!release[0] ||
	    kmod_installed_file(modules_root(env), release, module, file, sizeof(file)) < 0)
		return false;
	if (kmod_loaded_build_id(knob_sysfs_root(env), module, note, sizeof(note), &n) == 0) {
		r = kmod_file_has(file, note, n);
		if (r >= 0)
			return r == 1;
	}
	r = kmod_file_srcversion(file, mine, sizeof(mine));
	if (r == 0)
		return kmod_loaded_srcversion(knob_sysfs_root(env), module, loaded,
					      sizeof(loaded)) == 0 &&
		       !strcmp(mine, loaded);
	return kmod_loaded_out_of_tree(knob_sysfs_root(env), module) == 1;
}

int driver_read(const struct knob_env *env, const char *ifname, struct driver_value *out)
{
	const char *sys = knob_sysfs_root(env);
	char path[PATH_MAX], bus[32], dev[64];
	struct driver_value v = {0};
	int r;

	if (!exists(sys, "class/net", ifname)) {
		*out = v;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/device", sys, ifname);
	r = link_base(path, dev, sizeof(dev));
	if (r == -ENOENT)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/class/net/%s/device/subsystem", sys, ifname);
	r = link_base(path, bus, sizeof(bus));
	if (r < 0)
		return r == -ENOENT ? -EOPNOTSUPP : r;
	snprintf(path, sizeof(path), "%s/class/net/%s/device/driver/module", sys, ifname);
	r = link_base(path, v.module, sizeof(v.module));
	if (r < 0)
		return r == -ENOENT ? -EOPNOTSUPP : r;
	if ((size_t)snprintf(v.device, sizeof(v.device), "%s/%s", bus, dev) >= sizeof(v.device))
		return -ENAMETOOLONG;
	v.which = loaded_is_ours(env, v.module) ? DRIVER_BQL : DRIVER_STOCK;
	*out = v;
	return 0;
}

/* ---- the swap ---- */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int load_file(const char *file)
{
	size_t n = strlen(file);
	int flags = n > 3 && strcmp(file + n - 3, ".ko") ? MODULE_INIT_COMPRESSED_FILE : 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", flags) < 0)
		r = errno == EEXIST ? 0 : -errno;
	close(fd);
	return r;
}

static int unload(const struct knob_env *env, const char *module)
{
	if (!exists(knob_sysfs_root(env), "module", module))
		return 0;
	if (syscall(SYS_delete_module, module, O_NONBLOCK) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

/* Wait for SYSFS/bus/BUS/devices/DEV/net/IFNAME; ms spent waiting or -ETIMEDOUT. */
static int wait_netdev(const struct knob_env *env, const char *device, const char *ifname)
{
	char bus[96], path[PATH_MAX];
	const char *dev = strchr(device, '/');
	uint64_t t0 = mono_ns();

	if (!dev || (size_t)(dev - device) >= sizeof(bus))
		return -EINVAL;
	memcpy(bus, device, (size_t)(dev - device));
	bus[dev - device] = '\0';
	snprintf(path, sizeof(path), "%s/bus/%s/devices/%s", knob_sysfs_root(env), bus, dev + 1);
	for (unsigned i = 0; i * 50 < DRIVER_BIND_MS; i++) {
		if (exists(path, "net", ifname) && if_nametoindex(ifname))
			return (int)((mono_ns() - t0) / 1000000);
		sleep_ms(50);
	}
	return -ETIMEDOUT;
}

static int wait_carrier(const struct knob_env *env, const char *ifname)
{
	char path[PATH_MAX], c[8];

	snprintf(path, sizeof(path), "%s/class/net/%s/carrier", knob_sysfs_root(env), ifname);
	for (unsigned i = 0; i * 50 < DRIVER_LINK_MS; i++) {
		FILE *f = fopen(path, "r");

		c[0] = '\0';
		if (f) {
			if (!fgets(c, sizeof(c), f))
				c[0] = '\0';
			fclose(f);
		}
		if (c[0] == '1')
			return 0;
		sleep_ms(50);
	}
	return -ETIMEDOUT;
}

/* The file of the wanted module: ours installed, or the kernel's own. */
static int module_file(const struct knob_env *env, enum driver_which which, const char *module,
		       char *file, size_t len)
{
	char rel[128];
	const char *release = driver_release(env, rel, sizeof(rel));

	if (!release[0])
		return -ENOENT;
	return which == DRIVER_BQL
		   ? kmod_installed_file(modules_root(env), release, module, file, len)
		   : kmod_stock_file(modules_root(env), release, module, file, len);
}

/*
 * Steps 2 to 5 of driver.h for one direction: the module out, file in, the interface
 * back with what keep holds. 0; -errno with msg saying which step failed.
 */
static int swap_once(const struct knob_env *env, const char *ifname, const char *module,
		     const char *device, const char *file, const struct link_keep *keep,
		     bool link_must, char *msg, size_t msglen)
{
	char why[256];
	int r;

	r = unload(env, module);
	if (r < 0) {
		knob_msg(msg, msglen, "cannot unload %s: %s%s", module, strerror(-r),
			 r == -EBUSY || r == -EWOULDBLOCK ? " (something holds it)" : "");
		return r == -EWOULDBLOCK ? -EBUSY : r;
	}
	r = load_file(file);
	if (r < 0) {
		knob_msg(msg, msglen, "cannot load %s: %s", file, strerror(-r));
		return r;
	}
	r = wait_netdev(env, device, ifname);
	if (r < 0) {
		knob_msg(msg, msglen, "%s did not come back on %s within %d s after loading %s",
			 ifname, device, DRIVER_BIND_MS / 1000, file);
		return r;
	}
	r = link_keep_restore((int)if_nametoindex(ifname), keep, why, sizeof(why));
	if (r < 0) {
		knob_msg(msg, msglen, "%s", why);
		if (link_must)
			return r;
	}
	if (keep->up && wait_carrier(env, ifname) < 0) {
		knob_msg(msg, msglen, "%s's link did not come back up within %d s", ifname,
			 DRIVER_LINK_MS / 1000);
		if (link_must)
			return -ETIMEDOUT;
	}
	return 0;
}

int driver_swap(const struct knob_env *env, const char *ifname, const struct driver_value *want,
		char *msg, size_t msglen)
{
	char ours[PATH_MAX], stock[PATH_MAX], first[384] = "", back[256] = "";
	struct driver_value cur;
	struct link_keep keep;
	unsigned idx;
	int r, b;

	if (msg && msglen)
		msg[0] = '\0';
	if (want->which == DRIVER_NONE) {
		knob_msg(msg, msglen, "fix loads a driver (stock or bql), it does not leave none");
		return -EINVAL;
	}
	r = driver_read(env, ifname, &cur);
	if (r < 0)
		return r;
	if (cur.which == want->which && !strcmp(cur.module, want->module))
		return 0;
	if (cur.which != DRIVER_NONE &&
	    (strcmp(cur.module, want->module) || strcmp(cur.device, want->device))) {
		knob_msg(msg, msglen, "%s is now %s on %s, not %s on %s: not swapped", ifname,
			 cur.module, cur.device, want->module, want->device);
		return -EINVAL;
	}
	r = module_file(env, DRIVER_STOCK, want->module, stock, sizeof(stock));
	if (r < 0) {
		knob_msg(msg, msglen, "the kernel's own %s is not in modules.dep: %s", want->module,
			 strerror(-r));
		return r;
	}
	if (want->which == DRIVER_BQL) {
		r = module_file(env, DRIVER_BQL, want->module, ours, sizeof(ours));
		if (r < 0) {
			knob_msg(msg, msglen,
				 "no %s with BQL is installed for this kernel: build it with `make "
				 "-C kmod install`",
				 want->module);
			return r;
		}
	}
	/* Without the interface (a crash between unload and load) there is nothing to
	 * keep: the link is brought up, the rest is the network manager's. */
	idx = if_nametoindex(ifname);
	memset(&keep, 0, sizeof(keep));
	keep.up = true;
	if (idx && (r = link_keep_read((int)idx, &keep)) < 0) {
		knob_msg(msg, msglen, "cannot read %s's addresses and routes: %s", ifname,
			 r == -E2BIG ? "too many to keep" : strerror(-r));
		return r;
	}
	if (want->which == DRIVER_STOCK)
		return swap_once(env, ifname, want->module, want->device, stock, &keep, false, msg,
				 msglen);
	r = swap_once(env, ifname, want->module, want->device, ours, &keep, true, first,
		      sizeof(first));
	if (!r && want->peer[0]) {
		r = reach_peer(ifname, want->peer, DRIVER_PEER_MS);
		if (r < 0)
			knob_msg(first, sizeof(first),
				 "%s did not answer through %s within %d s%s%s", want->peer, ifname,
				 DRIVER_PEER_MS / 1000, r == -ETIMEDOUT ? "" : ": ",
				 r == -ETIMEDOUT ? "" : strerror(-r));
	}
	if (!r)
		return 0;
	b = swap_once(env, ifname, want->module, want->device, stock, &keep, false, back,
		      sizeof(back));
	if (b < 0)
		knob_msg(msg, msglen, "%s; putting the kernel's %s back failed too: %s", first,
			 want->module, back);
	else
		knob_msg(msg, msglen, "%s; the kernel's own %s was put back", first, want->module);
	return r;
}
