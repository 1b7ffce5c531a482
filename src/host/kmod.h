/* SPDX-License-Identifier: MIT */
/*
 * kmod.h - whether a driver module with BQL is installed for a NIC: debloat's own
 * (kmod/ in the source tree builds the BeagleBone's, the Wandboard's and the Pi 3B+'s
 * drivers with BQL) put where depmod prefers it to the kernel's, by `make -C kmod
 * install` (MODULES/RELEASE/updates/debloat/) or by DKMS (MODULES/RELEASE/updates/dkms/).
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
 * (MODULES/RELEASE/updates/debloat/NAME.ko, or the dkms folder; .ko.xz and .ko.zst
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

/*
 * The kernel's own file of module: the line of MODULES/RELEASE/modules.dep whose path
 * is under kernel/ and whose file name, without its .ko suffixes and with '-' read as
 * '_' (as the kernel names modules), is module. 0 with path, -ENOENT (no such line, no
 * modules.dep), -EINVAL, -ENAMETOOLONG.
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
