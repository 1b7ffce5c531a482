/* SPDX-License-Identifier: MIT */
/* kmod.c - kmod.h: an installed BQL driver module, looked up by file name. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/kmod.h"

/* Where an older kmod/install.sh and DKMS install, below MODULES/RELEASE: depmod
 * prefers both to the kernel's own. Then the suffixes a module file may have. */
static const char *const kmod_boot_dirs[] = {"updates/debloat", "updates/dkms"};
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
	if (strlen(name) >= module_len)
		return -ENAMETOOLONG;
	r = kmod_installed_file(modules_root, release, name, file, sizeof(file));
	if (r < 0)
		return r;
	if (strlen(file) >= path_len)
		return -ENAMETOOLONG;
	strcpy(module, name);
	strcpy(path, file);
	return 0;
}

/* The folder of MODULES (its path without the last element): "/lib" for "/lib/modules". */
static int modules_parent(const char *modules_root, char *out, size_t len)
{
	const char *slash = strrchr(modules_root, '/');
	size_t n = slash ? (size_t)(slash - modules_root) : 0;

	if (!slash || n >= len)
		return slash ? -ENAMETOOLONG : -EINVAL;
	memcpy(out, modules_root, n);
	out[n] = '\0';
	return 0;
}

/* The first of dir/module + each suffix that exists. */
static int first_file(const char *dir, const char *module, char *path, size_t path_len)
{
	char file[PATH_MAX];

	for (size_t s = 0; s < sizeof(kmod_suffixes) / sizeof(kmod_suffixes[0]); s++) {
		int r = snprintf(file, sizeof(file), "%s/%s%s", dir, module, kmod_suffixes[s]);

		if (r < 0 || (size_t)r >= sizeof(file))
			return -ENAMETOOLONG;
		if (access(file, F_OK) != 0)
			continue;
		if (strlen(file) >= path_len)
			return -ENAMETOOLONG;
		strcpy(path, file);
		return 0;
	}
	return -ENOENT;
}

int kmod_store_dir(const char *modules_root, const char *release, char *path, size_t path_len)
{
	char parent[PATH_MAX];
	int r;

	if (!plain_element(release))
		return -EINVAL;
	r = modules_parent(modules_root, parent, sizeof(parent));
	if (r < 0)
		return r;
	r = snprintf(path, path_len, "%s/debloat/%s", parent, release);
	return r < 0 || (size_t)r >= path_len ? -ENAMETOOLONG : 0;
}

int kmod_store_file(const char *modules_root, const char *release, const char *module, char *path,
		    size_t path_len)
{
	char dir[PATH_MAX];
	int r;

	if (!plain_element(module))
		return -EINVAL;
	r = kmod_store_dir(modules_root, release, dir, sizeof(dir));
	return r < 0 ? r : first_file(dir, module, path, path_len);
}

int kmod_boot_file(const char *modules_root, const char *release, const char *module, char *path,
		   size_t path_len)
{
	char dir[PATH_MAX];

	if (!plain_element(release) || !plain_element(module))
		return -EINVAL;
	for (size_t d = 0; d < sizeof(kmod_boot_dirs) / sizeof(kmod_boot_dirs[0]); d++) {
		int r = snprintf(dir, sizeof(dir), "%s/%s/%s", modules_root, release,
				 kmod_boot_dirs[d]);

		if (r < 0 || (size_t)r >= sizeof(dir))
			return -ENAMETOOLONG;
		r = first_file(dir, module, path, path_len);
		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

int kmod_installed_file(const char *modules_root, const char *release, const char *module,
			char *path, size_t path_len)
{
	int r = kmod_store_file(modules_root, release, module, path, path_len);

	return r == -ENOENT ? kmod_boot_file(modules_root, release, module, path, path_len) : r;
}

/* Does the file name at the end of rel (up to its ':') name module? */
static bool names_module(const char *rel, size_t len, const char *module)
{
	const char *base = rel;
	size_t n, m = strlen(module);

	for (size_t i = 0; i < len; i++)
		if (rel[i] == '/')
			base = rel + i + 1;
	n = len - (size_t)(base - rel);
	for (size_t s = 0; s < sizeof(kmod_suffixes) / sizeof(kmod_suffixes[0]); s++) {
		size_t sl = strlen(kmod_suffixes[s]);

		if (n != m + sl || memcmp(base + m, kmod_suffixes[s], sl))
			continue;
		for (size_t i = 0; i < m; i++)
			if ((base[i] == '-' ? '_' : base[i]) != module[i])
				return false;
		return true;
	}
	return false;
}

/* A file naming module below dir, depth-bounded: the kernel's tree is
 * drivers/net/ethernet/VENDOR/ deep, never more than a few. */
static int find_below(const char *dir, const char *module, unsigned depth, char *path,
		      size_t path_len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char sub[PATH_MAX];
	int r = -ENOENT;

	if (!d)
		return -ENOENT;
	while (r == -ENOENT && (e = readdir(d))) {
		int n;

		if (e->d_name[0] == '.')
			continue;
		n = snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(sub))
			continue;
		if (names_module(e->d_name, strlen(e->d_name), module)) {
			r = (size_t)n >= path_len ? -ENAMETOOLONG : 0;
			if (r == 0)
				strcpy(path, sub);
		} else if (depth > 0 && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)) {
			r = find_below(sub, module, depth - 1, path, path_len);
		}
	}
	closedir(d);
	return r;
}

#define KMOD_TREE_DEPTH 8

int kmod_stock_file(const char *modules_root, const char *release, const char *module, char *path,
		    size_t path_len)
{
	char dep[PATH_MAX], line[4096];
	int r = -ENOENT, n;
	FILE *f;

	if (!plain_element(release) || !plain_element(module))
		return -EINVAL;
	n = snprintf(dep, sizeof(dep), "%s/%s/modules.dep", modules_root, release);
	if (n < 0 || (size_t)n >= sizeof(dep))
		return -ENAMETOOLONG;
	f = fopen(dep, "r");
	if (!f)
		return -errno;
	while (r == -ENOENT && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, "kernel/", 7) ||
		    !names_module(line, (size_t)(colon - line), module))
			continue;
		*colon = '\0';
		n = snprintf(path, path_len, "%s/%s/%s", modules_root, release, line);
		r = n < 0 || (size_t)n >= path_len ? -ENAMETOOLONG : 0;
	}
	fclose(f);
	if (r != -ENOENT)
		return r;
	/* A depmod.d override (fix --driver --persist) made modules.dep name ours: the
	 * kernel's file is still in its tree, only no longer listed. */
	n = snprintf(dep, sizeof(dep), "%s/%s/kernel", modules_root, release);
	if (n < 0 || (size_t)n >= sizeof(dep))
		return -ENAMETOOLONG;
	return find_below(dep, module, KMOD_TREE_DEPTH, path, path_len);
}

/* One line of a small sysfs file, without its newline. */
static int read_word(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strcspn(out, "\n");
	out[n] = '\0';
	return n ? 0 : -ENOENT;
}

int kmod_loaded_srcversion(const char *sysfs_root, const char *module, char *out, size_t len)
{
	char path[PATH_MAX];
	int r = snprintf(path, sizeof(path), "%s/module/%s/srcversion", sysfs_root, module);

	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	return read_word(path, out, len);
}

/* A module file is a few hundred KB; the limit keeps a wrong path from costing more. */
#define KMOD_FILE_MAX (16u << 20)

/* An uncompressed module file, whole, into *buf (malloc'ed); -EOPNOTSUPP for .ko.xz. */
static int read_module_file(const char *path, char **buf, size_t *got)
{
	size_t n = strlen(path);
	FILE *f;

	if (n < 3 || strcmp(path + n - 3, ".ko"))
		return -EOPNOTSUPP;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	*buf = malloc(KMOD_FILE_MAX);
	if (!*buf) {
		fclose(f);
		return -ENOMEM;
	}
	*got = fread(*buf, 1, KMOD_FILE_MAX, f);
	fclose(f);
	return 0;
}

int kmod_file_srcversion(const char *path, char *out, size_t len)
{
	static const char key[] = "srcversion=";
	size_t got = 0;
	char *buf = NULL;
	const char *hit;
	int r = read_module_file(path, &buf, &got);

	if (r < 0)
		return r;
	r = -ENOENT;
	hit = memmem(buf, got, key, sizeof(key) - 1);
	if (hit) {
		const char *v = hit + sizeof(key) - 1;
		size_t vl = strnlen(v, got - (size_t)(v - buf));

		if (vl == 0 || v + vl == buf + got)
			r = -ENOENT;
		else if (vl >= len)
			r = -ENAMETOOLONG;
		else {
			memcpy(out, v, vl + 1);
			r = 0;
		}
	}
	free(buf);
	return r;
}

int kmod_file_has(const char *path, const void *bytes, size_t n)
{
	size_t got = 0;
	char *buf = NULL;
	int r = read_module_file(path, &buf, &got);

	if (r < 0)
		return r;
	r = n && memmem(buf, got, bytes, n) != NULL;
	free(buf);
	return r;
}

int kmod_loaded_build_id(const char *sysfs_root, const char *module, void *buf, size_t len,
			 size_t *n)
{
	char path[PATH_MAX];
	int r = snprintf(path, sizeof(path), "%s/module/%s/notes/.note.gnu.build-id", sysfs_root,
			 module);
	FILE *f;

	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	*n = fread(buf, 1, len, f);
	fclose(f);
	return *n ? 0 : -ENOENT;
}
