/* SPDX-License-Identifier: MIT */
/*
 * test-fix-driver.c - the knob "driver" without root: its value spelling, which module
 * drives a NIC read from a made-up sysfs and modules tree (the kernel's own, ours by
 * srcversion, none when the interface is gone), the kernel's own file found through
 * modules.dep, the plan of `debloat fix --driver` and each of its refusals, and the
 * SSH session test. The swap itself needs root and a NIC: tests/kmod/ does it under QEMU.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fix/driver.h"
#include "fix/knob.h"
#include "fix/plan.h"
#include "harness.h"
#include "host/iface.h"
#include "host/kmod.h"

#define REL "6.1.0-50-armmp"

static char root[64];

static void put_bytes(const char *rel, const void *data, size_t n)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
}

static void put(const char *rel, const char *content)
{
	put_bytes(rel, content, strlen(content));
}

static void link_at(const char *rel, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK_EQ(symlink(target, path), 0);
}

static void make_root(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return;
	}
	snprintf(root, sizeof(root), "/tmp/test-fix-driver-XXXXXX");
	if (!mkdtemp(root))
		root[0] = '\0';
}

/* The Wandboard's NIC: IF on platform/2188000.ethernet, driven by fec (Debian's,
 * srcversion AAAA); ours installed with srcversion BBBB. IF is "dbt9" (no interface
 * of this machine: no address, no route), or "lo" where a test needs real addresses. */
static const char *nic = "dbt9";

static void put_nic(const char *pre, const char *post, const char *content)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s%s%s", pre, nic, post);
	put(rel, content);
}

static void link_nic(const char *pre, const char *post, const char *target)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s%s%s", pre, nic, post);
	link_at(rel, target);
}

/* Two build-id notes (namesz 4, descsz 20, type 3, "GNU", 20 bytes): ours is in our file. */
static const char note_ours[] = "\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0ours-build-id-20byte";
static const char note_stock[] = "\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0debian-build-id-20by";

static struct knob_env board(void)
{
	static char sys[96], mods[96];
	char ours[256];
	size_t n = 0;
	static const char head[] = "\x7f"
				   "ELF...license=GPL\0srcversion=BBBB\0depends=\0";

	make_root();
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(mods, sizeof(mods), "%s/lib/modules", root);
	put("sys/devices/soc/2188000.ethernet/driver/uevent", "");
	put_nic("sys/devices/soc/2188000.ethernet/net/", "/uevent", "");
	put("sys/bus/platform/uevent", "");
	put("sys/module/fec/srcversion", "AAAA\n");
	put("sys/module/fec/taint", "\n");
	put_nic("sys/class/net/", "/ifindex", "2\n");
	link_at("sys/devices/soc/2188000.ethernet/driver/module", "../../../../module/fec");
	link_at("sys/devices/soc/2188000.ethernet/subsystem", "../../../bus/platform");
	link_nic("sys/class/net/", "/device", "../../../devices/soc/2188000.ethernet");
	put("lib/modules/" REL "/modules.dep",
	    "kernel/drivers/net/phy/libphy.ko:\n"
	    "kernel/drivers/net/ethernet/freescale/fec.ko: kernel/drivers/ptp/ptp.ko\n"
	    "kernel/drivers/net/usb/lan78xx.ko: kernel/drivers/net/phy/libphy.ko\n"
	    "kernel/drivers/net/ethernet/ti/ti-cpsw-new.ko:\n");
	memcpy(ours, head, sizeof(head));
	n += sizeof(head);
	memcpy(ours + n, note_ours, sizeof(note_ours) - 1);
	n += sizeof(note_ours) - 1;
	put_bytes("lib/debloat/" REL "/fec.ko", ours, n); /* the store (host/kmod.h) */
	return (struct knob_env){.sysfs_root = sys, .modules_root = mods, .release = REL};
}

TEST(values_round_trip_and_bad_ones_are_refused)
{
	struct driver_value v;
	char buf[KNOB_VALUE_MAX], msg[256];

	REQUIRE_EQ(driver_value_parse("bql fec platform/2188000.ethernet peer 10.0.2.2", &v, msg,
				      sizeof(msg)),
		   0);
	CHECK_EQ(v.which, DRIVER_BQL);
	CHECK_STR(v.module, "fec");
	CHECK_STR(v.device, "platform/2188000.ethernet");
	CHECK_STR(v.peer, "10.0.2.2");
	REQUIRE_EQ(driver_value_format(&v, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "bql fec platform/2188000.ethernet peer 10.0.2.2");
	REQUIRE_EQ(driver_value_parse("stock lan78xx usb/1-1.1:1.0", &v, msg, sizeof(msg)), 0);
	CHECK_EQ(v.which, DRIVER_STOCK);
	CHECK_STR(v.peer, "");
	REQUIRE_EQ(driver_value_parse("none", &v, msg, sizeof(msg)), 0);
	CHECK_EQ(v.which, DRIVER_NONE);

	v.which = DRIVER_STOCK;
	strcpy(v.module, "untouched");
	static const char *const bad[] = {"",
					  "bql",
					  "bql fec",
					  "ours fec platform/x",
					  "bql fec nodevice",
					  "bql fec platform/x peer",
					  "bql fec platform/x via 1.2.3.4",
					  "bql fe;c platform/x",
					  "bql fec platform/../../x",
					  "bql fec platform/x peer 1.2.3.4 more"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		CHECK_EQ(driver_value_parse(bad[i], &v, msg, sizeof(msg)), -EINVAL);
		CHECK(strstr(msg, "stock MODULE BUS/DEVICE") != NULL);
	}
	CHECK_STR(v.module, "untouched");
}

/* The peer is not part of the setting; the state, the module and the device are. */
TEST(equal_ignores_the_peer)
{
	CHECK(
	    knob_value_equal(KNOB_DRIVER, "bql fec platform/a", "bql fec platform/a peer 1.2.3.4"));
	CHECK(!knob_value_equal(KNOB_DRIVER, "stock fec platform/a", "bql fec platform/a"));
	CHECK(!knob_value_equal(KNOB_DRIVER, "bql fec platform/a", "bql fec platform/b"));
	CHECK(!knob_value_equal(KNOB_DRIVER, "none", "bql fec platform/a"));
	CHECK(knob_value_equal(KNOB_DRIVER, "none", "none"));
	CHECK(!knob_value_equal(KNOB_DRIVER, "junk", "junk"));
	CHECK_STR(knob_kind_name(KNOB_DRIVER), "driver");
	CHECK_EQ(knob_kind_from_name("driver"), KNOB_DRIVER);
}

TEST(reads_which_module_drives_the_nic)
{
	struct knob_env env = board();
	struct knob k = {.kind = KNOB_DRIVER, .ifname = "dbt9"};
	char val[KNOB_VALUE_MAX], desc[96];

	REQUIRE(root[0]);
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "stock fec platform/2188000.ethernet");
	/* The build-id note first: the kernel's (not in our file), then ours. */
	put_bytes("sys/module/fec/notes/.note.gnu.build-id", note_stock, sizeof(note_stock) - 1);
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "stock fec platform/2188000.ethernet");
	put_bytes("sys/module/fec/notes/.note.gnu.build-id", note_ours, sizeof(note_ours) - 1);
	put("sys/module/fec/srcversion", "AAAA\n"); /* the note decides, not srcversion */
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "bql fec platform/2188000.ethernet");
	unlink(
	    strcat(strcpy((char[PATH_MAX]){0}, root), "/sys/module/fec/notes/.note.gnu.build-id"));
	/* Without a note: ours loaded when its srcversion is the installed file's. */
	put("sys/module/fec/srcversion", "BBBB\n");
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "bql fec platform/2188000.ethernet");
	/* Another out-of-tree fec (a vendor's) is not ours. */
	put("sys/module/fec/srcversion", "CCCC\n");
	put("sys/module/fec/taint", "O\n");
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "stock fec platform/2188000.ethernet");
	/* Gone (unloaded, or loaded and not bound): none. */
	strcpy(k.ifname, "eth7");
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "none");
	/* A link without a device, or with a driver built in: nothing to swap. */
	put("sys/class/net/veth0/ifindex", "9\n");
	strcpy(k.ifname, "veth0");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -EOPNOTSUPP);
	knob_describe(&k, desc, sizeof(desc));
	CHECK_STR(desc, "veth0 driver module");
	make_root();
	rmdir(root);
}

TEST(finds_the_kernels_own_file_and_a_srcversion)
{
	struct knob_env env = board();
	char path[PATH_MAX], sv[64] = "x";

	REQUIRE(root[0]);
	REQUIRE_EQ(kmod_stock_file(env.modules_root, REL, "fec", path, sizeof(path)), 0);
	CHECK(strstr(path, "/" REL "/kernel/drivers/net/ethernet/freescale/fec.ko") != NULL);
	/* '-' in a file name is '_' in the module's. */
	REQUIRE_EQ(kmod_stock_file(env.modules_root, REL, "ti_cpsw_new", path, sizeof(path)), 0);
	CHECK(strstr(path, "ti-cpsw-new.ko") != NULL);
	CHECK_EQ(kmod_stock_file(env.modules_root, REL, "r8152", path, sizeof(path)), -ENOENT);
	CHECK_EQ(kmod_stock_file(env.modules_root, "6.12.0-1-armmp", "fec", path, sizeof(path)),
		 -ENOENT);
	CHECK_EQ(kmod_stock_file(env.modules_root, REL, "../fec", path, sizeof(path)), -EINVAL);
	CHECK_EQ(kmod_stock_file(env.modules_root, REL, "fec", path, 8), -ENAMETOOLONG);

	snprintf(path, sizeof(path), "%s/lib/debloat/" REL "/fec.ko", root);
	REQUIRE_EQ(kmod_file_srcversion(path, sv, sizeof(sv)), 0);
	CHECK_STR(sv, "BBBB");
	CHECK_EQ(kmod_file_srcversion(path, sv, 4), -ENAMETOOLONG);
	put("lib/modules/" REL "/updates/debloat/lan78xx.ko", "no such key here");
	snprintf(path, sizeof(path), "%s/lib/modules/" REL "/updates/debloat/lan78xx.ko", root);
	CHECK_EQ(kmod_file_srcversion(path, sv, sizeof(sv)), -ENOENT);
	CHECK_EQ(kmod_file_srcversion("/x/fec.ko.xz", sv, sizeof(sv)), -EOPNOTSUPP);
	make_root();
	rmdir(root);
}

/* The plan: one driver step, or the target refused with the reason. */
static bool persist_plan; /* plan_for plans --persist too */

static const struct plan_target *plan_for(struct plan *p, const char *ifname,
					  const struct knob_env *env, const char *peer,
					  const char *ssh, bool force)
{
	static struct iface ifc;
	struct driver_plan_options o = {
	    .peer = peer, .ssh_connection = ssh, .force = force, .persist = persist_plan};
	struct plan_options po = {0};
	int ti;

	memset(&ifc, 0, sizeof(ifc));
	snprintf(ifc.name, sizeof(ifc.name), "%s", ifname);
	plan_init(p, &po);
	ti = driver_plan(p, &ifc, env, &o);
	return ti < 0 ? NULL : &p->targets[ti];
}

TEST(plans_the_swap_or_says_why_not)
{
	struct knob_env env = board();
	const struct plan_target *t;
	struct plan p;

	REQUIRE(root[0]);
	/* dbt9 is not this machine's: no gateway through it, so a peer must be named. */
	t = plan_for(&p, "dbt9", &env, NULL, NULL, false);
	REQUIRE(t != NULL);
	CHECK(t->refused);
	CHECK(strstr(t->refused_why, "no gateway") && strstr(t->refused_why, "--peer ADDR"));
	plan_free(&p);
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(!t->refused);
	REQUIRE_EQ(p.nsteps, 1u);
	CHECK_EQ(p.steps[0].knob.kind, KNOB_DRIVER);
	CHECK_STR(p.steps[0].after, "bql fec platform/2188000.ethernet peer 10.0.2.2");
	CHECK(!p.steps[0].optional);
	plan_free(&p);

	/* Ours not installed for this release: how to build it. */
	env.release = "6.1.0-51-armmp";
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(t->refused && strstr(t->refused_why, "make -C kmod install") &&
	      strstr(t->refused_why, "6.1.0-51-armmp"));
	CHECK_EQ(p.nsteps, 0u);
	plan_free(&p);
	env.release = REL;

	/* A driver we have no patch for. */
	put("sys/module/e1000e/taint", "\n");
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root),
		      "/sys/devices/soc/2188000.ethernet/driver/module"));
	link_at("sys/devices/soc/2188000.ethernet/driver/module", "../../../../module/e1000e");
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(t->refused && strstr(t->refused_why, "e1000e, not one debloat has a BQL module"));
	plan_free(&p);

	/* No device: a virtual link. */
	put("sys/class/net/veth0/ifindex", "9\n");
	t = plan_for(&p, "veth0", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(t->refused && strstr(t->refused_why, "no driver module to swap"));
	plan_free(&p);
	make_root();
	rmdir(root);
}

TEST(the_ssh_session_is_refused_unless_forced)
{
	struct knob_env env = board();
	const char *addrs[] = {"10.0.2.15", "fe80::1"};
	const struct plan_target *t;
	struct plan p;

	REQUIRE(root[0]);
	/* Its server address on the interface, v4-mapped or not; else the default route. */
	CHECK(driver_session_over("10.0.2.2 50000 10.0.2.15 22", addrs, 2, false));
	CHECK(driver_session_over("10.0.2.2 50000 ::ffff:10.0.2.15 22", addrs, 2, false));
	CHECK(driver_session_over("fe80::2 50000 fe80::1 22", addrs, 2, false));
	CHECK(!driver_session_over("192.0.2.1 50000 192.0.2.9 22", addrs, 2, false));
	CHECK(driver_session_over("192.0.2.1 50000 192.0.2.9 22", addrs, 2, true));
	CHECK(driver_session_over("garbage", addrs, 2, true));
	CHECK(!driver_session_over(NULL, addrs, 2, true));
	CHECK(!driver_session_over("", addrs, 2, true));

	/* On lo made a fec NIC here: 127.0.0.1 is its address, so a session to it comes
	 * in over it. Refused, or planned with a note under --force. */
	nic = "lo";
	env = board();
	t = plan_for(&p, "lo", &env, "127.0.0.1", "127.0.0.1 4000 127.0.0.1 22", false);
	REQUIRE(t != NULL);
	CHECK(t->refused && strstr(t->refused_why, "logged in over lo") &&
	      strstr(t->refused_why, "--force"));
	CHECK_EQ(p.nsteps, 0u);
	plan_free(&p);
	t = plan_for(&p, "lo", &env, "127.0.0.1", "127.0.0.1 4000 127.0.0.1 22", true);
	REQUIRE(t != NULL);
	CHECK(!t->refused);
	CHECK_EQ(t->nnotes, 1u);
	CHECK(strstr(t->notes[0], "--force") != NULL);
	CHECK_EQ(p.nsteps, 1u);
	plan_free(&p);
	/* No session: planned. */
	t = plan_for(&p, "lo", &env, "127.0.0.1", NULL, false);
	REQUIRE(t != NULL);
	CHECK(!t->refused);
	plan_free(&p);
	nic = "dbt9";
	make_root();
	rmdir(root);
}

/* ---- where ours is installed, and the knob "driver-boot" (--persist) ---- */

TEST(the_store_is_found_first_and_updates_is_told_apart)
{
	struct knob_env env = board();
	char path[PATH_MAX];

	REQUIRE(root[0]);
	REQUIRE_EQ(kmod_store_dir(env.modules_root, REL, path, sizeof(path)), 0);
	CHECK(strstr(path, "/lib/debloat/" REL) != NULL);
	REQUIRE_EQ(kmod_installed_file(env.modules_root, REL, "fec", path, sizeof(path)), 0);
	CHECK(strstr(path, "/lib/debloat/" REL "/fec.ko") != NULL);
	CHECK_EQ(kmod_boot_file(env.modules_root, REL, "fec", path, sizeof(path)), -ENOENT);
	CHECK_EQ(kmod_store_file(env.modules_root, "..", "fec", path, sizeof(path)), -EINVAL);
	CHECK_EQ(kmod_store_dir("modules", REL, path, sizeof(path)), -EINVAL);
	/* An older install.sh (or DKMS) put it under updates/: found, and said to be there. */
	put("lib/modules/" REL "/updates/dkms/lan78xx.ko", "x");
	REQUIRE_EQ(kmod_installed_file(env.modules_root, REL, "lan78xx", path, sizeof(path)), 0);
	CHECK(strstr(path, "/updates/dkms/lan78xx.ko") != NULL);
	REQUIRE_EQ(kmod_boot_file(env.modules_root, REL, "lan78xx", path, sizeof(path)), 0);
	CHECK_EQ(kmod_store_file(env.modules_root, REL, "lan78xx", path, sizeof(path)), -ENOENT);
	make_root();
	rmdir(root);
}

TEST(the_kernels_own_file_is_found_when_an_override_chose_ours)
{
	struct knob_env env = board();
	char path[PATH_MAX];

	REQUIRE(root[0]);
	/* depmod with our override lists debloat/fec.ko and not the kernel's. */
	put("lib/modules/" REL "/modules.dep", "debloat/fec.ko: kernel/drivers/ptp/ptp.ko\n");
	CHECK_EQ(kmod_stock_file(env.modules_root, REL, "fec", path, sizeof(path)), -ENOENT);
	put("lib/modules/" REL "/kernel/drivers/net/ethernet/freescale/fec.ko", "stock");
	put("lib/modules/" REL "/kernel/drivers/net/ethernet/freescale/fec_extra.ko", "x");
	REQUIRE_EQ(kmod_stock_file(env.modules_root, REL, "fec", path, sizeof(path)), 0);
	CHECK(strstr(path, "/" REL "/kernel/drivers/net/ethernet/freescale/fec.ko") != NULL);
	CHECK_EQ(kmod_stock_file(env.modules_root, REL, "lan78xx", path, sizeof(path)), -ENOENT);
	make_root();
	rmdir(root);
}

/* A depmod that records its arguments in ROOT/depmod.args and exits with status. */
static void fake_depmod(char *prog, size_t len, int status)
{
	char text[256];

	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$*\" >> '%s/depmod.args'\nexit %d\n", root,
		 status);
	put("fake-depmod", text);
	snprintf(prog, len, "%s/fake-depmod", root);
	chmod(prog, 0755);
}

static char *slurp(const char *rel)
{
	char path[PATH_MAX];
	static char buf[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

TEST(driver_boot_writes_the_override_and_the_link_and_undo_removes_them)
{
	struct knob_env env = board();
	struct knob k = {.kind = KNOB_DRIVER_BOOT, .ifname = "dbt9", .name = "fec"};
	char etc[96], prog[PATH_MAX], val[KNOB_VALUE_MAX], msg[512], want[512], target[PATH_MAX];
	char link[PATH_MAX], desc[96];
	const char *args;
	struct stat st;
	ssize_t n;

	REQUIRE(root[0]);
	snprintf(etc, sizeof(etc), "%s/etc", root);
	fake_depmod(prog, sizeof(prog), 0);
	env.etc_root = etc;
	env.depmod = prog;
	snprintf(link, sizeof(link), "%s/lib/modules/" REL "/debloat/fec.ko", root);
	knob_describe(&k, desc, sizeof(desc));
	CHECK_STR(desc, "dbt9 fec module at boot");

	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "stock");
	REQUIRE_EQ(knob_write(&k, &env, "bql", msg, sizeof(msg)), 0);
	REQUIRE_EQ(driver_boot_conf_text("fec", REL, "dbt9", want, sizeof(want)), 0);
	CHECK(strstr(want, "\noverride fec " REL " debloat\n") != NULL);
	CHECK(slurp("etc/depmod.d/debloat-fec.conf") &&
	      !strcmp(slurp("etc/depmod.d/debloat-fec.conf"), want));
	n = readlink(link, target, sizeof(target) - 1);
	REQUIRE(n > 0);
	target[n] = '\0';
	CHECK(strstr(target, "/lib/debloat/" REL "/fec.ko") != NULL);
	/* depmod for this release, on the test's trees. */
	args = slurp("depmod.args");
	REQUIRE(args != NULL);
	CHECK(strstr(args, "-a -b ") && strstr(args, " -C ") && strstr(args, "/etc/depmod.d " REL));
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "bql");
	/* Written again: the same files, no error. */
	REQUIRE_EQ(knob_write(&k, &env, "bql", msg, sizeof(msg)), 0);
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "bql");

	/* Undo: both gone, the folder too, depmod run again. */
	REQUIRE_EQ(knob_write(&k, &env, "stock", msg, sizeof(msg)), 0);
	CHECK(slurp("etc/depmod.d/debloat-fec.conf") == NULL);
	CHECK(lstat(link, &st) < 0 && errno == ENOENT);
	*strrchr(link, '/') = '\0';
	CHECK(lstat(link, &st) < 0 && errno == ENOENT);
	args = slurp("depmod.args");
	CHECK(args && strchr(args, '\n') != strrchr(args, '\n')); /* more than one line */
	REQUIRE_EQ(knob_read(&k, &env, val, sizeof(val)), 0);
	CHECK_STR(val, "stock");
	CHECK_EQ(knob_write(&k, &env, "stock", msg, sizeof(msg)), 0); /* nothing there: fine */
	CHECK_EQ(knob_write(&k, &env, "maybe", msg, sizeof(msg)), -EINVAL);
	make_root();
	rmdir(root);
}

TEST(driver_boot_refuses_what_is_not_ours_and_says_why)
{
	struct knob_env env = board();
	struct knob k = {.kind = KNOB_DRIVER_BOOT, .ifname = "dbt9", .name = "fec"};
	char etc[96], prog[PATH_MAX], val[KNOB_VALUE_MAX], msg[512];

	REQUIRE(root[0]);
	snprintf(etc, sizeof(etc), "%s/etc", root);
	env.etc_root = etc;
	/* depmod failing: the error and its status. */
	fake_depmod(prog, sizeof(prog), 3);
	env.depmod = prog;
	msg[0] = '\0';
	CHECK_EQ(knob_write(&k, &env, "bql", msg, sizeof(msg)), -ECHILD);
	CHECK(strstr(msg, "exited with status 3") != NULL);
	/* A file of that name that is not ours: read refuses, so fix never overwrites it. */
	put("etc/depmod.d/debloat-fec.conf", "override fec * kernel/drivers\n");
	CHECK_EQ(knob_read(&k, &env, val, sizeof(val)), -EEXIST);
	/* A real file where our link goes is left alone. */
	fake_depmod(prog, sizeof(prog), 0);
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root), "/etc/depmod.d/debloat-fec.conf"));
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root), "/lib/modules/" REL "/debloat/fec.ko"));
	put("lib/modules/" REL "/debloat/fec.ko", "someone's");
	msg[0] = '\0';
	CHECK_EQ(knob_write(&k, &env, "bql", msg, sizeof(msg)), -EEXIST);
	CHECK(strstr(msg, "not debloat's link") != NULL);
	CHECK(slurp("lib/modules/" REL "/debloat/fec.ko") &&
	      !strcmp(slurp("lib/modules/" REL "/debloat/fec.ko"), "someone's"));
	/* Not in the store: how to put it there. */
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root), "/lib/debloat/" REL "/fec.ko"));
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root), "/lib/modules/" REL "/debloat/fec.ko"));
	msg[0] = '\0';
	CHECK_EQ(knob_write(&k, &env, "bql", msg, sizeof(msg)), -ENOENT);
	CHECK(strstr(msg, "make -C kmod install") != NULL);
	make_root();
	rmdir(root);
}

TEST(persist_plans_the_boot_step_before_the_swap_or_refuses_under_updates)
{
	struct knob_env env = board();
	const struct plan_target *t;
	struct plan p;

	REQUIRE(root[0]);
	persist_plan = true;
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(!t->refused);
	REQUIRE_EQ(p.nsteps, 2u);
	CHECK_EQ(p.steps[0].knob.kind, KNOB_DRIVER_BOOT);
	CHECK_STR(p.steps[0].knob.name, "fec");
	CHECK_STR(p.steps[0].after, "bql");
	CHECK_EQ(p.steps[1].knob.kind, KNOB_DRIVER);
	/* Applied first, undone last: the file before the swap in the journal. */
	CHECK(plan_phase(KNOB_DRIVER_BOOT) < plan_phase(KNOB_DRIVER));
	plan_free(&p);

	/* Ours only under updates/ (an older install.sh): --persist refused, saying why;
	 * without it, planned with a note that undo lasts until the next boot. */
	unlink(strcat(strcpy((char[PATH_MAX]){0}, root), "/lib/debloat/" REL "/fec.ko"));
	put("lib/modules/" REL "/updates/debloat/fec.ko", "ours, the old way");
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(t->refused && strstr(t->refused_why, "under updates/") &&
	      strstr(t->refused_why, "make -C kmod install"));
	plan_free(&p);
	persist_plan = false;
	t = plan_for(&p, "dbt9", &env, "10.0.2.2", NULL, false);
	REQUIRE(t != NULL);
	CHECK(!t->refused);
	CHECK_EQ(t->nnotes, 1u);
	CHECK(strstr(t->notes[0], "until the next boot") != NULL);
	CHECK_EQ(p.nsteps, 1u);
	plan_free(&p);
	make_root();
	rmdir(root);
}
