/* SPDX-License-Identifier: MIT */
/*
 * test-host-sysfs.c - the file readers of src/host/ (sysfs.c, bql.c, sysctl.c, the
 * sysfs half of link.c, and avail.c's qdisc kinds) against a fake /sys, /proc/sys and
 * /lib/modules built in a temp directory, so the cases a host rarely shows (no BQL
 * directory, a pre-6.9 kernel, sysfs of another namespace) are all here.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/gz.h"
#include "harness.h"
#include "host/avail.h"
#include "host/bql.h"
#include "host/kmod.h"
#include "host/link.h"
#include "host/machine.h"
#include "host/sysctl.h"
#include "host/sysfs.h"

static char root[64];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* mkdir -p of the parent */
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

static void make_root(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return;
	}
	snprintf(root, sizeof(root), "/tmp/test-host-sysfs-XXXXXX");
	if (!mkdtemp(root))
		root[0] = '\0';
}

static void put_queue(const char *ifname, unsigned q, const char *limit, const char *inflight,
		      bool stall)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/limit", ifname, q);
	put(rel, limit);
	snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/inflight", ifname,
		 q);
	put(rel, inflight);
	snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/limit_max", ifname,
		 q);
	put(rel, "1879048192\n");
	snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/limit_min", ifname,
		 q);
	put(rel, "0\n");
	snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/hold_time", ifname,
		 q);
	put(rel, "1000\n");
	if (stall) {
		snprintf(rel, sizeof(rel), "class/net/%s/queues/tx-%u/byte_queue_limits/stall_cnt",
			 ifname, q);
		put(rel, "3\n");
	}
}

TEST(sysfs_reads_numbers_and_rejects_junk)
{
	char path[PATH_MAX];
	int64_t v = 7;

	make_root();
	REQUIRE(root[0]);
	put("a", "1000\n");
	put("b", "10 20\n");
	put("c", "");
	snprintf(path, sizeof(path), "%s/a", root);
	CHECK_EQ(sysfs_read_int(path, &v), 0);
	CHECK_EQ(v, 1000);
	snprintf(path, sizeof(path), "%s/b", root);
	CHECK_EQ(sysfs_read_int(path, &v), -EINVAL);
	snprintf(path, sizeof(path), "%s/c", root);
	CHECK_EQ(sysfs_read_int(path, &v), -EINVAL);
	snprintf(path, sizeof(path), "%s/missing", root);
	CHECK_EQ(sysfs_read_int(path, &v), -ENOENT);
	CHECK_EQ(v, 1000);
}

TEST(bql_queues_sorted_with_missing_files_as_minus_one)
{
	struct bql_queue *q = NULL;
	size_t n = 0;

	make_root();
	put_queue("eth0", 10, "0\n", "0\n", false); /* tx-10 sorts after tx-2 */
	put_queue("eth0", 2, "3028\n", "1514\n", true);
	put_queue("eth0", 0, "0\n", "0\n", false);
	put("class/net/eth0/queues/rx-0/rps_cpus", "0\n");
	REQUIRE_EQ(bql_read(root, "eth0", &q, &n), 0);
	REQUIRE_EQ(n, 3);
	CHECK_EQ(q[0].queue, 0);
	CHECK_EQ(q[1].queue, 2);
	CHECK_EQ(q[2].queue, 10);
	CHECK(q[1].present);
	CHECK_EQ(q[1].limit, 3028);
	CHECK_EQ(q[1].inflight, 1514);
	CHECK_EQ(q[1].limit_max, 1879048192);
	CHECK_EQ(q[1].hold_time_ms, 1000);
	CHECK_EQ(q[1].stall_cnt, 3);
	CHECK_EQ(q[0].stall_cnt, -1); /* before Linux 6.9 */
	CHECK_EQ(q[0].stall_thrs_ms, -1);
	free(q);
}

TEST(bql_queue_without_directory_is_not_present)
{
	struct bql_queue *q = NULL;
	size_t n = 0;

	make_root();
	put("class/net/veth0/queues/tx-0/tx_timeout", "0\n");
	REQUIRE_EQ(bql_read(root, "veth0", &q, &n), 0);
	REQUIRE_EQ(n, 1);
	CHECK(!q[0].present);
	CHECK_EQ(q[0].limit, -1);
	free(q);
	q = (struct bql_queue *)0x1;
	CHECK_EQ(bql_read(root, "nosuch", &q, &n), -ENOENT);
	CHECK(q == (struct bql_queue *)0x1);
}

TEST(sysctl_dotted_names_are_paths)
{
	char buf[64] = "keep";

	make_root();
	put("net/core/default_qdisc", "fq_codel\n");
	put("net/ipv4/tcp_ecn", "1\n");
	CHECK_EQ(sysctl_read(root, "net.core.default_qdisc", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "fq_codel");
	CHECK_EQ(sysctl_read(root, "net.ipv4.tcp_ecn", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "1");
	CHECK_EQ(sysctl_read(root, "net.ipv4.nosuch", buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(sysctl_read(root, "net/../../etc", buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(sysctl_read(root, "net..core", buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(sysctl_read(root, "net.core.default_qdisc", buf, 4), -EFBIG);
	CHECK_STR(buf, "1");
}

TEST(classify_physical_virtual_loopback_and_foreign_sysfs)
{
	struct iface ifc = {.ifindex = 2};

	make_root();
	put("class/net/eth0/ifindex", "2\n");
	put("class/net/eth0/device/vendor", "0x1af4\n");
	put("class/net/veth0/ifindex", "3\n");

	strcpy(ifc.name, "eth0");
	CHECK_EQ(link_classify(&ifc, root), 0);
	CHECK(ifc.physical);
	CHECK_STR(ifc.kind, "physical");

	memset(&ifc, 0, sizeof(ifc));
	ifc.ifindex = 3;
	strcpy(ifc.name, "veth0");
	strcpy(ifc.kind, "veth");
	CHECK_EQ(link_classify(&ifc, root), 0);
	CHECK(!ifc.physical);
	CHECK_STR(ifc.kind, "veth");

	/* Same name, another ifindex: this sysfs belongs to another namespace. */
	memset(&ifc, 0, sizeof(ifc));
	ifc.ifindex = 9;
	strcpy(ifc.name, "eth0");
	CHECK_EQ(link_classify(&ifc, root), -EXDEV);
	CHECK(!ifc.physical);
	CHECK_STR(ifc.kind, "unknown");

	memset(&ifc, 0, sizeof(ifc));
	ifc.ifindex = 1;
	ifc.loopback = true;
	strcpy(ifc.name, "lo");
	CHECK_EQ(link_classify(&ifc, root), 0);
	CHECK_STR(ifc.kind, "loopback");

	make_root(); /* removes the tree */
	rmdir(root);
}

static enum qdisc_avail avail_in(const struct qdisc_kind_avail *k, const char *kind)
{
	return avail_of(k, HOST_NQDISC_KINDS, kind);
}

/* A kernel without fq or cake: htb built in, fq_codel and tbf modules, codel loaded. */
TEST(qdisc_availability_from_module_lists)
{
	struct qdisc_kind_avail k[HOST_NQDISC_KINDS];
	char sysfs[PATH_MAX], modules[PATH_MAX];
	struct host_paths paths = {.sysfs = sysfs, .modules = modules};

	make_root();
	REQUIRE(root[0]);
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(modules, sizeof(modules), "%s/lib/modules", root);
	put("lib/modules/6.1.0-test/modules.builtin", "kernel/net/sched/sch_htb.ko\n"
						      "kernel/net/sched/sch_fifo.ko\n");
	put("lib/modules/6.1.0-test/modules.dep",
	    "kernel/net/sched/sch_fq_codel.ko.zst:\n"
	    "kernel/net/sched/sch_tbf.ko.xz: kernel/net/sched/sch_fifo.ko\n");
	put("sys/module/sch_codel/refcnt", "0\n");
	avail_qdiscs(&paths, "6.1.0-test", k);
	CHECK_STR(k[0].kind, "fq_codel");
	CHECK_EQ(avail_in(k, "htb"), QDISC_AVAIL_YES);	    /* built in */
	CHECK_EQ(avail_in(k, "fq_codel"), QDISC_AVAIL_YES); /* a module, compressed */
	CHECK_EQ(avail_in(k, "fq"), QDISC_AVAIL_NO);	    /* sch_fq_codel is not sch_fq */
	CHECK_EQ(avail_in(k, "cake"), QDISC_AVAIL_NO);
	CHECK_EQ(avail_in(k, "codel"), QDISC_AVAIL_YES); /* loaded */
	CHECK_EQ(avail_in(k, "tbf"), QDISC_AVAIL_YES);
	CHECK_EQ(avail_in(k, "pfifo_fast"), QDISC_AVAIL_YES); /* always */
	CHECK_EQ(avail_in(k, "pfifo"), QDISC_AVAIL_YES);

	/* Another release: no lists, so what is not loaded is unknown, not missing. */
	avail_qdiscs(&paths, "6.2.0-other", k);
	CHECK_EQ(avail_in(k, "cake"), QDISC_AVAIL_UNKNOWN);
	CHECK_EQ(avail_in(k, "codel"), QDISC_AVAIL_YES);
	CHECK_EQ(avail_in(k, "pfifo"), QDISC_AVAIL_YES);
	avail_qdiscs(&paths, NULL, k);
	CHECK_EQ(avail_in(k, "htb"), QDISC_AVAIL_UNKNOWN);
	CHECK_EQ(avail_in(k, "no-such-kind"), QDISC_AVAIL_UNKNOWN);
}

/* /proc/config.gz outranks the module lists: it is the running kernel's own word. */
TEST(qdisc_availability_from_kernel_config)
{
	static const char config[] = "CONFIG_NET_SCH_HTB=y\n"
				     "CONFIG_NET_SCH_FQ=m\n"
				     "# CONFIG_NET_SCH_FQ_CODEL is not set\n"
				     "# CONFIG_NET_SCH_CAKE is not set\n"
				     "CONFIG_NET_SCH_CODEL_X=y\n"
				     "CONFIG_NOT_CONFIG_NET_SCH_CAKE=y\n";
	struct qdisc_kind_avail k[HOST_NQDISC_KINDS];
	char sysfs[PATH_MAX], kconfig[PATH_MAX];
	struct host_paths paths = {.sysfs = sysfs, .kconfig = kconfig};

	make_root();
	REQUIRE(root[0]);
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(kconfig, sizeof(kconfig), "%s/config.gz", root);
	REQUIRE_EQ(gz_write_file(kconfig, config, sizeof(config) - 1), 0);
	put("sys/module/sch_tbf/refcnt", "1\n");
	avail_qdiscs(&paths, "6.18.0", k);
	CHECK_EQ(avail_in(k, "htb"), QDISC_AVAIL_YES);
	CHECK_EQ(avail_in(k, "fq"), QDISC_AVAIL_YES);
	CHECK_EQ(avail_in(k, "fq_codel"), QDISC_AVAIL_NO);
	CHECK_EQ(avail_in(k, "cake"), QDISC_AVAIL_NO);
	CHECK_EQ(avail_in(k, "codel"), QDISC_AVAIL_NO); /* CODEL_X is another symbol */
	CHECK_EQ(avail_in(k, "tbf"), QDISC_AVAIL_YES);	/* loaded, though absent from config */
	CHECK_EQ(avail_in(k, "pfifo_fast"), QDISC_AVAIL_YES);

	/* A corrupt config.gz is as good as none. */
	put("config.gz", "not gzip");
	avail_qdiscs(&paths, "6.18.0", k);
	CHECK_EQ(avail_in(k, "htb"), QDISC_AVAIL_UNKNOWN);
	CHECK_EQ(avail_in(k, "tbf"), QDISC_AVAIL_YES);

	make_root(); /* removes the tree */
	rmdir(root);
}

/* The device-tree compatible list: NUL-separated, most specific first; none on x86. */
TEST(machine_compatible_list)
{
	static const char file[] = "wand,imx6q\0a-very-long-entry-indeed\0fsl,imx6q";
	char list[4][16], path[PATH_MAX];
	size_t n = 9;
	FILE *f;

	make_root();
	CHECK_EQ(machine_compatible(root, &list[0][0], sizeof(list[0]), 4, &n), -ENOENT);
	CHECK_EQ(n, 0);
	put("firmware/devicetree/base/compatible", "");
	snprintf(path, sizeof(path), "%s/firmware/devicetree/base/compatible", root);
	f = fopen(path, "w");
	REQUIRE(f);
	/* the second entry is too long for 16 bytes: skipped, the rest kept */
	fwrite(file, 1, sizeof(file), f); /* with the last entry's NUL, as the kernel */
	fclose(f);
	CHECK_EQ(machine_compatible(root, &list[0][0], sizeof(list[0]), 4, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_STR(list[0], "wand,imx6q");
	CHECK_STR(list[1], "fsl,imx6q");
	CHECK_EQ(machine_compatible(root, &list[0][0], sizeof(list[0]), 1, &n), 0);
	CHECK_EQ(n, 1);
	make_root();
	rmdir(root);
}

/* A USB NIC's bus speed is its USB device's, the directory above the interface. */
TEST(machine_usb_speed_of_the_device_above)
{
	char target[PATH_MAX], link[PATH_MAX];
	uint32_t mbps = 7;

	make_root();
	put("devices/usb1/1-1/1-1.1/speed", "480\n");
	put("devices/usb1/1-1/1-1.1/1-1.1:1.0/uevent", "");
	put("bus/usb/uevent", "");
	put("devices/pci/0000:01:00.0/uevent", "");
	put("bus/pci/uevent", "");
	put("class/net/eth0/ifindex", "2\n");
	put("class/net/eth1/ifindex", "3\n");
	snprintf(link, sizeof(link), "%s/devices/usb1/1-1/1-1.1/1-1.1:1.0/subsystem", root);
	CHECK_EQ(symlink("../../../../../bus/usb", link), 0);
	snprintf(link, sizeof(link), "%s/class/net/eth0/device", root);
	snprintf(target, sizeof(target), "%s/devices/usb1/1-1/1-1.1/1-1.1:1.0", root);
	CHECK_EQ(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/devices/pci/0000:01:00.0/subsystem", root);
	CHECK_EQ(symlink("../../../bus/pci", link), 0);
	snprintf(link, sizeof(link), "%s/class/net/eth1/device", root);
	snprintf(target, sizeof(target), "%s/devices/pci/0000:01:00.0", root);
	CHECK_EQ(symlink(target, link), 0);

	CHECK_EQ(machine_usb_speed(root, "eth0", &mbps), 0);
	CHECK_EQ(mbps, 480);
	mbps = 7;
	CHECK_EQ(machine_usb_speed(root, "eth1", &mbps), -ENOENT);  /* PCI */
	CHECK_EQ(machine_usb_speed(root, "veth0", &mbps), -ENOENT); /* no device */
	CHECK_EQ(mbps, 7);
	put("devices/usb1/1-1/1-1.1/speed", "fast\n");
	CHECK_EQ(machine_usb_speed(root, "eth0", &mbps), -EINVAL);
	CHECK_EQ(mbps, 7);
	make_root();
	rmdir(root);
}

/*
 * kmod.c: a NIC's driver module, and a module of the same name installed for this
 * release by `make -C kmod install` (the store, /lib/debloat/RELEASE), an older
 * install.sh (updates/debloat) or DKMS (updates/dkms, compressed here); and whether
 * the loaded one is out of tree.
 */
TEST(kmod_finds_an_installed_bql_module_for_the_nic)
{
	char link[PATH_MAX], mods[PATH_MAX], module[56] = "x", path[192] = "y";

	make_root();
	REQUIRE(root[0]);
	snprintf(mods, sizeof(mods), "%s/lib/modules", root);
	put("devices/soc/2188000.ethernet/driver/uevent", "");
	put("module/fec/taint", "\n");
	put("class/net/eth0/ifindex", "2\n");
	put("class/net/eth1/ifindex", "3\n");
	snprintf(link, sizeof(link), "%s/devices/soc/2188000.ethernet/driver/module", root);
	CHECK_EQ(symlink("../../../../module/fec", link), 0);
	snprintf(link, sizeof(link), "%s/class/net/eth0/device", root);
	CHECK_EQ(symlink("../../../devices/soc/2188000.ethernet", link), 0);

	/* The kernel's own module only: nothing installed, outputs untouched. */
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 -ENOENT);
	CHECK_STR(module, "x");
	put("lib/modules/6.1.0-50-armmp/updates/dkms/fec.ko.xz", "");
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 0);
	CHECK_STR(module, "fec");
	CHECK(strstr(path, "/lib/modules/6.1.0-50-armmp/updates/dkms/fec.ko.xz") != NULL);
	/* An older install.sh's folder before DKMS'. */
	put("lib/modules/6.1.0-50-armmp/updates/debloat/fec.ko", "");
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 0);
	CHECK(strstr(path, "/updates/debloat/fec.ko") != NULL);
	/* The store before both. */
	put("lib/debloat/6.1.0-50-armmp/fec.ko", "");
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 0);
	CHECK(strstr(path, "/lib/debloat/6.1.0-50-armmp/fec.ko") != NULL);
	/* Another release has none; a NIC without a device has no module; bad names. */
	CHECK_EQ(kmod_bql_module(root, mods, "6.12.0-1-armmp", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 -ENOENT);
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth1", module, sizeof(module), path,
				 sizeof(path)),
		 -ENOENT);
	CHECK_EQ(kmod_bql_module(root, mods, "../..", "eth0", module, sizeof(module), path,
				 sizeof(path)),
		 -EINVAL);
	CHECK_EQ(kmod_bql_module(root, mods, "6.1.0-50-armmp", "a/b", module, sizeof(module), path,
				 sizeof(path)),
		 -EINVAL);
	CHECK_EQ(
	    kmod_bql_module(root, mods, "6.1.0-50-armmp", "eth0", module, 3, path, sizeof(path)),
	    -ENAMETOOLONG);

	CHECK_EQ(kmod_loaded_out_of_tree(root, "fec"), 0); /* the kernel's: no taint */
	put("module/fec/taint", "OE\n");
	CHECK_EQ(kmod_loaded_out_of_tree(root, "fec"), 1);
	CHECK_EQ(kmod_loaded_out_of_tree(root, "lan78xx"), -ENOENT); /* not loaded */
	make_root();
	rmdir(root);
}
