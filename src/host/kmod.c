/* SPDX-License-Identifier: MIT */
/* kmod.c - kmod.h: an installed BQL driver module, looked up by file name. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/kmod.h"

/* Where kmod/install.sh and DKMS install, below MODULES/RELEASE; then the suffixes. */
static const char *const kmod_dirs[] = {"updates/debloat", "updates/dkms"};
static const char *const kmod_suffixes[] = {".ko", ".ko.xz", ".ko.zst"};

int kmod_loaded_out_of_tree(const char *sysfs_root, const char *module)
{
	char path[PATH_MAX], taint[32] = "";
	FILE *f;
	int r;

	r = snprintf(path, sizeof(path), "%s/module/%s/taint", sysfs_root, module);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(taint, sizeof(taint), f))
		taint[0] = '\0';
	fclose(f);
	return strchr(taint, 'O') != NULL;
}

static int plain_element(const char *s)
{
	return s[0] && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

int kmod_bql_module(const char *sysfs_root, const char *modules_root, const char *release,
		    const char *ifname, char *module, size_t module_len, char *path,
		    size_t path_len)
{
	char link[PATH_MAX], target[PATH_MAX], file[PATH_MAX];
	const char *name;
	ssize_t l;
	int r;

	if (!plain_element(release) || !plain_element(ifname))
		return -EINVAL;
	r = snprintf(link, sizeof(link), "%s/class/net/%s/device/driver/module", sysfs_root,
		     ifname);
	if (r < 0 || (size_t)r >= sizeof(link))
		return -ENAMETOOLONG;
	l = readlink(link, target, sizeof(target) - 1);
	if (l < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	target[l] = '\0';
	name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	if (!plain_element(name))
		return -EINVAL;
	for (size_t d = 0; d < sizeof(kmod_dirs) / sizeof(kmod_dirs[0]); d++) {
		for (size_t s = 0; s < sizeof(kmod_suffixes) / sizeof(kmod_suffixes[0]); s++) {
			r = snprintf(file, sizeof(file), "%s/%s/%s/%s%s", modules_root, release,
				     kmod_dirs[d], name, kmod_suffixes[s]);
			if (r < 0 || (size_t)r >= sizeof(file))
				return -ENAMETOOLONG;
			if (access(file, F_OK) != 0)
				continue;
			if (strlen(name) >= module_len || strlen(file) >= path_len)
				return -ENAMETOOLONG;
			strcpy(module, name);
			strcpy(path, file);
			return 0;
		}
	}
	return -ENOENT;
}
