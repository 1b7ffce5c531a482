/* SPDX-License-Identifier: MIT */
/*
 * knob-driver-boot.c - the knob "driver-boot": which module modprobe loads for a NIC's
 * driver at boot, the kernel's own ("stock") or ours with BQL ("bql"). knob.name is
 * the module, knob.ifname the interface it is for (messages only). fix/driver.h has
 * the files; docs/design/driver-swap.md says why they are these.
 *
 * "bql" is two files of ours and a depmod run:
 *	MODULES/RELEASE/debloat/MODULE.ko   a symbolic link to the store's file (kmod.h)
 *	ETC/depmod.d/debloat-MODULE.conf    "override MODULE RELEASE debloat"
 * "stock" is neither (both removed, and the debloat/ folder when it is empty), and a
 * depmod run. Applied before the swap and undone after it (phase -2), so the journal
 * holds the file before the driver it keeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "fix/driver.h"
#include "fix/journal.h"
#include "fix/knob-type.h"
#include "host/kmod.h"

#define MODULES_DEFAULT "/lib/modules"
#define ETC_DEFAULT	"/etc"

static const char *modules_root(const struct knob_env *env)
{
	return env && env->modules_root ? env->modules_root : MODULES_DEFAULT;
}

static const char *etc_root(const struct knob_env *env)
{
	return env && env->etc_root ? env->etc_root : ETC_DEFAULT;
}

static void label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s module at boot", k->name);
}

/* The three paths of module's boot setting; -EINVAL, -ENAMETOOLONG. */
struct boot_paths {
	char release[128];
	char conf[PATH_MAX];
	char dir[PATH_MAX];
	char link[PATH_MAX];
};

static int boot_paths(const struct knob *k, const struct knob_env *env, struct boot_paths *bp)
{
	const char *rel = driver_release(env, bp->release, sizeof(bp->release));
	int n;

	if (!k->name[0] || strchr(k->name, '/') || k->name[0] == '.')
		return -EINVAL;
	if (!rel[0])
		return -ENOENT;
	if (rel != bp->release)
		snprintf(bp->release, sizeof(bp->release), "%s", rel);
	n = snprintf(bp->conf, sizeof(bp->conf), "%s/depmod.d/debloat-%s.conf", etc_root(env),
		     k->name);
	if (n < 0 || (size_t)n >= sizeof(bp->conf))
		return -ENAMETOOLONG;
	n = snprintf(bp->dir, sizeof(bp->dir), "%s/%s/debloat", modules_root(env), bp->release);
	if (n < 0 || (size_t)n >= sizeof(bp->dir))
		return -ENAMETOOLONG;
	n = snprintf(bp->link, sizeof(bp->link), "%s/%s.ko", bp->dir, k->name);
	return n < 0 || (size_t)n >= sizeof(bp->link) ? -ENAMETOOLONG : 0;
}

int driver_boot_conf_text(const char *module, const char *release, const char *ifname, char *buf,
			  size_t len)
{
	int n = snprintf(buf, len,
			 "# debloat fix --driver %s --persist: the %s module with BQL\n"
			 "# (debloat's, linked into debloat/) is the one modprobe loads at boot.\n"
			 "# `debloat undo` removes this file and the link.\n"
			 "override %s %s debloat\n",
			 ifname, module, module, release);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* Does text hold the override line of ours for module and release? */
static bool has_override(const char *text, const char *module, const char *release)
{
	char want[256];
	const char *line = text;

	snprintf(want, sizeof(want), "override %s %s debloat", module, release);
	while (line && *line) {
		size_t n = strcspn(line, "\n");

		if (n == strlen(want) && !memcmp(line, want, n))
			return true;
		line = line[n] ? line + n + 1 : NULL;
	}
	return false;
}

static int read_boot(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	struct boot_paths bp;
	struct stat st;
	char *text;
	size_t n;
	bool ours;
	int r = boot_paths(k, env, &bp);

	if (r < 0)
		return r;
	r = read_file_capped(bp.conf, 4096, READ_REGULAR, &text, &n);
	if (r == -ENOENT)
		return knob_put(val, len, "stock");
	if (r < 0)
		return r;
	ours = has_override(text, k->name, bp.release);
	free(text);
	if (!ours)
		return -EEXIST; /* a file of that name that is not ours: not ours to change */
	/* Ours, but its link gone (removed by hand): not in force, so write sets it again. */
	return knob_put(val, len, lstat(bp.link, &st) == 0 ? "bql" : "stock");
}

/* depmod for the release, on the env's trees; its output is not ours to print. */
static int run_depmod(const struct knob_env *env, const char *release, char *msg, size_t msglen)
{
	const char *prog = env && env->depmod ? env->depmod : "depmod";
	const char *mods = modules_root(env), *argv[10];
	char base[PATH_MAX], conf[PATH_MAX];
	size_t ml = strlen(mods), dl = strlen(MODULES_DEFAULT), a = 0;
	int status;
	pid_t pid;

	argv[a++] = prog;
	argv[a++] = "-a";
	if (strcmp(mods, MODULES_DEFAULT)) {
		/* depmod -b BASE reads BASE/lib/modules: only such a tree can be redirected */
		if (ml <= dl || strcmp(mods + ml - dl, MODULES_DEFAULT) || ml - dl >= sizeof(base))
			return -EINVAL;
		memcpy(base, mods, ml - dl);
		base[ml - dl] = '\0';
		argv[a++] = "-b";
		argv[a++] = base;
	}
	if (strcmp(etc_root(env), ETC_DEFAULT)) {
		snprintf(conf, sizeof(conf), "%s/depmod.d", etc_root(env));
		argv[a++] = "-C";
		argv[a++] = conf;
	}
	argv[a++] = release;
	argv[a] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(prog, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	knob_msg(msg, msglen, "%s -a %s %s %d", prog, release,
		 WIFEXITED(status) ? "exited with status" : "was ended by signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -ECHILD;
}

/* Remove path when it is a symbolic link (ours); anything else there is left, -EEXIST. */
static int remove_link(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISLNK(st.st_mode))
		return -EEXIST;
	return unlink(path) < 0 ? -errno : 0;
}

static int to_bql(const struct knob *k, const struct knob_env *env, const struct boot_paths *bp,
		  char *msg, size_t msglen)
{
	char file[PATH_MAX], text[512], tmp[PATH_MAX + 8];
	int r = kmod_store_file(modules_root(env), bp->release, k->name, file, sizeof(file));

	if (r < 0) {
		knob_msg(msg, msglen,
			 "no %s module of ours for %s in the store (make -C kmod install puts it "
			 "there)",
			 k->name, bp->release);
		return r;
	}
	r = mkdir_p(bp->dir);
	if (r < 0) {
		knob_msg(msg, msglen, "%s: %s", bp->dir, strerror(-r));
		return r;
	}
	r = remove_link(bp->link);
	if (r == -EEXIST)
		knob_msg(msg, msglen, "%s is a file that is not debloat's link: left as it is",
			 bp->link);
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.tmp", bp->link);
	unlink(tmp);
	if (symlink(file, tmp) < 0 || rename(tmp, bp->link) < 0) {
		r = -errno;
		unlink(tmp);
		knob_msg(msg, msglen, "%s: %s", bp->link, strerror(-r));
		return r;
	}
	r = driver_boot_conf_text(k->name, bp->release, k->ifname[0] ? k->ifname : "IFACE", text,
				  sizeof(text));
	if (r == 0) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/depmod.d", etc_root(env));
		r = mkdir_p(dir);
		if (r == 0)
			r = journal_write_atomic(bp->conf, text, strlen(text), 0644);
	}
	if (r < 0) {
		knob_msg(msg, msglen, "%s: %s", bp->conf, strerror(-r));
		return r;
	}
	return run_depmod(env, bp->release, msg, msglen);
}

static int to_stock(const struct knob *k, const struct knob_env *env, const struct boot_paths *bp,
		    char *msg, size_t msglen)
{
	int r = unlink(bp->conf) < 0 && errno != ENOENT ? -errno : 0;

	if (r < 0) {
		knob_msg(msg, msglen, "%s: %s", bp->conf, strerror(-r));
		return r;
	}
	r = remove_link(bp->link);
	if (r < 0) {
		knob_msg(msg, msglen, "%s: %s", bp->link,
			 r == -EEXIST ? "not debloat's link: left as it is" : strerror(-r));
		return r;
	}
	if (rmdir(bp->dir) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST) {
		r = -errno;
		knob_msg(msg, msglen, "%s: %s", bp->dir, strerror(-r));
		return r;
	}
	return run_depmod(env, bp->release, msg, msglen);
}

static int write_boot(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		      size_t msglen)
{
	struct boot_paths bp;
	int r = boot_paths(k, env, &bp);

	if (r < 0)
		return r;
	if (!strcmp(val, "bql"))
		return to_bql(k, env, &bp, msg, msglen);
	if (!strcmp(val, "stock"))
		return to_stock(k, env, &bp, msg, msglen);
	knob_msg(msg, msglen, "\"%s\" is no boot driver: stock or bql", val);
	return -EINVAL;
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* As a shell would do it, for the running kernel. */
static int commands(struct knob_lines *o, const struct knob *k, const char *value, unsigned ntxq)
{
	char rel[128], file[PATH_MAX];
	const char *release = driver_release(NULL, rel, sizeof(rel));

	(void)ntxq;
	if (!release[0] || !knob_word_ok(k->name))
		return -EINVAL;
	if (!strcmp(value, "stock")) {
		knob_line(o, "rm -f /etc/depmod.d/debloat-%s.conf %s/%s/debloat/%s.ko", k->name,
			  MODULES_DEFAULT, release, k->name);
	} else if (!strcmp(value, "bql")) {
		if (kmod_store_file(MODULES_DEFAULT, release, k->name, file, sizeof(file)) < 0)
			return -EINVAL;
		knob_line(o, "mkdir -p %s/%s/debloat && ln -sf %s %s/%s/debloat/%s.ko",
			  MODULES_DEFAULT, release, file, MODULES_DEFAULT, release, k->name);
		knob_line(o, "echo 'override %s %s debloat' > /etc/depmod.d/debloat-%s.conf",
			  k->name, release, k->name);
	} else {
		return -EINVAL;
	}
	knob_line(o, "depmod -a %s", release);
	return o->err;
}

static void nowhere(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->place = KNOB_NOWHERE;
	w->why = "the module loaded at boot is modprobe's configuration, not the network's: "
		 "fix --driver --persist writes it (a depmod.d override)";
}

const struct knob_type knob_driver_boot = {
    .name = "driver-boot",
    .phase = -2, /* before the swap it keeps, undone after it (above) */
    .flags = KNOB_HAS_NAME,
    .label = label,
    .read = read_boot,
    .write = write_boot,
    .equal = same,
    .commands = commands,
    .networkd = nowhere,
    .nm = nowhere,
};
