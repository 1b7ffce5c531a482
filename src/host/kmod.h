/* SPDX-License-Identifier: MIT */
/*
 * kmod.h - whether a driver module with BQL is installed for a NIC: debloat's own
 * (kmod/ in the source tree builds the BeagleBone's, the Wandboard's and the Pi 3B+'s
 * drivers with BQL). `make -C kmod install` puts it in the store, MODULES/../debloat/
 * RELEASE/ (/lib/debloat/RELEASE/fec.ko), outside the tree depmod reads, so the
 * kernel's own module stays the one modprobe loads at boot; `debloat fix --driver`
 * loads ours from there, and `--persist` links it into MODULES/RELEASE/debloat/ with
 * a depmod.d override (fix/driver.h). An older install.sh put it under
 * MODULES/RELEASE/updates/debloat/, and Debian's DKMS puts it under updates/dkms/
 * whatever dkms.conf asks: both are found too, but depmod prefers updates/ to the
 * kernel's own, so there ours loads at every boot (kmod_boot_file tells).
 *
 * The NIC's module is the one its driver belongs to, SYSFS/class/net/IF/device/driver/
 * module (a symlink to SYSFS/module/NAME). A module found there need not be loaded:
 * the driver in use may still be the kernel's own until the module is reloaded.
 */
#ifndef DEBLOAT_HOST_KMOD_H
#define DEBLOAT_HOST_KMOD_H

#include <stddef.h>

/*
 * The module name of ifname's driver into module, and the installed file into path
 * (the store's NAME.ko, else updates/debloat's or updates/dkms'; .ko.xz and .ko.zst
 * too). 0 when found; -ENOENT when the NIC has no module (built in, virtual) or none
 * is installed; -EINVAL for a release or name that is not one plain path element;
 * -ENAMETOOLONG when a buffer is too short. module and path are untouched on error.
 */
int kmod_bql_module(const char *sysfs_root, const char *modules_root, const char *release,
		    const char *ifname, char *module, size_t module_len, char *path,
		    size_t path_len);

/*
 * 1 when the loaded module NAME is out of tree (its SYSFS/module/NAME/taint has the
 * letter O: not the kernel's own build, as ours are), 0 when it is the kernel's,
 * -errno when it is not loaded or the file cannot be read.
 */
int kmod_loaded_out_of_tree(const char *sysfs_root, const char *module);

/*
 * The installed BQL file of module (no interface asked): as kmod_bql_module, by name.
 * 0, -ENOENT (none installed), -EINVAL, -ENAMETOOLONG.
 */
int kmod_installed_file(const char *modules_root, const char *release, const char *module,
			char *path, size_t path_len);

/* The store's folder for release (MODULES/../debloat/RELEASE), whether it exists or
 * not. -EINVAL (release not one plain element, MODULES without a '/'), -ENAMETOOLONG. */
int kmod_store_dir(const char *modules_root, const char *release, char *path, size_t path_len);
/* module's file in the store only. 0, -ENOENT, -EINVAL, -ENAMETOOLONG. */
int kmod_store_file(const char *modules_root, const char *release, const char *module, char *path,
		    size_t path_len);
/* module's file under updates/debloat or updates/dkms only: ours, installed where depmod
 * prefers it at every boot. 0, -ENOENT, -EINVAL, -ENAMETOOLONG. */
int kmod_boot_file(const char *modules_root, const char *release, const char *module, char *path,
		   size_t path_len);

/*
 * The kernel's own file of module: the line of MODULES/RELEASE/modules.dep whose path
 * is under kernel/ and whose file name, without its .ko suffixes and with '-' read as
 * '_' (as the kernel names modules), is module; when modules.dep has none (a depmod.d
 * override chose ours), the file of that name below MODULES/RELEASE/kernel/. 0 with
 * path, -ENOENT (none, no modules.dep), -EINVAL, -ENAMETOOLONG.
 */
int kmod_stock_file(const char *modules_root, const char *release, const char *module, char *path,
		    size_t path_len);

/*
 * The srcversion a module file records (its .modinfo "srcversion=": a digest of its
 * sources, which the kernel shows as SYSFS/module/NAME/srcversion once loaded). Read
 * from an uncompressed .ko only: -EOPNOTSUPP for .ko.xz and .ko.zst, -ENOENT when the
 * file records none, -errno when it cannot be read.
 */
int kmod_file_srcversion(const char *path, char *out, size_t len);

/*
 * The loaded module's build-id note, as the kernel shows it
 * (SYSFS/module/NAME/notes/.note.gnu.build-id: the ELF note, header and all), into
 * buf; *n its length. -ENOENT when the module has none, -errno. Every module Debian
 * and kbuild link carries one: a digest of the file, so it tells two builds of the
 * same source apart too, where srcversion (only in modules with MODULE_VERSION, or
 * under CONFIG_MODULE_SRCVERSION_ALL) is often missing.
 */
int kmod_loaded_build_id(const char *sysfs_root, const char *module, void *buf, size_t len,
			 size_t *n);

/* 1 when the module file (uncompressed .ko) holds these bytes (a build-id note), 0
 * when not, -EOPNOTSUPP for a compressed one, -errno. */
int kmod_file_has(const char *path, const void *bytes, size_t n);

/* The loaded module's srcversion (SYSFS/module/NAME/srcversion); -errno. */
int kmod_loaded_srcversion(const char *sysfs_root, const char *module, char *out, size_t len);

#endif
