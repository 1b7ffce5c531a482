/* SPDX-License-Identifier: MIT */
/*
 * netns.c - the lab's named network namespaces, their links, the processes run in
 * them, and the reaper that removes them (netns.h).
 *
 * Its rtnetlink requests (link up and MTU, two addresses) go through base/nl.h, the
 * one netlink layer.
 */
#include "netns.h"
#include "base/array.h"
#include "base/nl.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

void lab_netns_name(char *buf, size_t len, pid_t pid, const char *role)
{
	snprintf(buf, len, "dbl-%ld-%s", (long)pid, role);
}

static int netns_path(char *buf, size_t len, const char *name)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s/%s", LAB_NETNS_DIR, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * /run/netns as iproute2 leaves it: a mount point with shared propagation, so that
 * the bind mounts in it are seen from mount namespaces created later (`ip netns exec`
 * makes one). Made a bind mount of itself first when it is not a mount point.
 */
static int netns_dir_prepare(void)
{
	bool made = false;

	if (mkdir(LAB_NETNS_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	while (mount("", LAB_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0) {
		if (errno != EINVAL || made)
			return -errno;
		if (mount(LAB_NETNS_DIR, LAB_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) < 0)
			return -errno;
		made = true;
	}
	return 0;
}

int lab_netns_enter(int nsfd, int *saved)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*saved = fd;
	return 0;
}

int lab_netns_leave(int saved)
{
	int r = setns(saved, CLONE_NEWNET) < 0 ? -errno : 0;

	close(saved);
	return r;
}

int lab_netns_add(const char *name, char *err, size_t errlen)
{
	char path[128];
	int fd, saved, nsfd, r;

	r = netns_path(path, sizeof(path), name);
	if (r < 0) {
		snprintf(err, errlen, "bad namespace name \"%s\"", name);
		return r;
	}
	r = netns_dir_prepare();
	if (r < 0) {
		snprintf(err, errlen, "cannot prepare %s: %s", LAB_NETNS_DIR, strerror(-r));
		return r;
	}
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 && errno == EEXIST) {
		/* Our pid is in the name: whoever made it is dead. Remove what it left. */
		lab_netns_remove(name, 1000);
		fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	}
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(-r));
		return r;
	}
	close(fd);
	saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot open /proc/self/ns/net: %s", strerror(-r));
		unlink(path);
		return r;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create a network namespace: %s", strerror(-r));
		close(saved);
		unlink(path);
		return r;
	}
	nsfd = -1;
	if (mount("/proc/self/ns/net", path, "none", MS_BIND, NULL) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot bind-mount the namespace on %s: %s", path,
			 strerror(-r));
	} else {
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		r = nsfd < 0 ? -errno : 0;
		if (r < 0)
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(-r));
	}
	if (lab_netns_leave(saved) < 0) {
		/* Stuck in the new namespace: nothing the caller does next would be right. */
		snprintf(err, errlen, "cannot return to the lab's own namespace: %s",
			 strerror(errno));
		r = -EIO;
	}
	if (r < 0) {
		if (nsfd >= 0)
			close(nsfd);
		umount2(path, MNT_DETACH);
		unlink(path);
		return r;
	}
	return nsfd;
}

/* SIGKILL every process whose network namespace is (dev, ino); how many were found. */
static int kill_ns_procs(dev_t dev, ino_t ino)
{
	char path[64];
	struct dirent *d;
	struct stat st;
	pid_t self = getpid();
	int n = 0;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st) < 0 || st.st_dev != dev || st.st_ino != ino)
			continue;
		kill((pid_t)pid, SIGKILL);
		n++;
	}
	closedir(dir);
	return n;
}

/* The nsfs identity of /run/netns/NAME; -ENOENT when absent, -ENXIO when not mounted. */
static int netns_identity(const char *path, dev_t *dev, ino_t *ino)
{
	struct stat st, self;

	if (stat(path, &st) < 0)
		return -errno;
	if (stat("/proc/self/ns/net", &self) < 0)
		return -errno;
	/* Every namespace file lives on the one nsfs superblock; an unmounted entry is an
	 * empty file on /run's file system. */
	if (st.st_dev != self.st_dev)
		return -ENXIO;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int lab_netns_remove(const char *name, unsigned timeout_ms)
{
	char path[128];
	struct stat st;
	dev_t dev = 0;
	ino_t ino = 0;
	uint64_t deadline = mono_ms() + timeout_ms;
	int r, ret = 0;

	r = netns_path(path, sizeof(path), name);
	if (r < 0)
		return r;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (netns_identity(path, &dev, &ino) == 0) {
		/* Kill until a scan finds nobody: a process may fork while we look. */
		while ((r = kill_ns_procs(dev, ino)) > 0 && mono_ms() < deadline)
			sleep_ms(10);
		if (r > 0)
			ret = -EBUSY;
		else if (r < 0)
			ret = r;
		if (umount2(path, MNT_DETACH) < 0 && !ret)
			ret = -errno;
	}
	if (unlink(path) < 0 && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

/* --- rtnetlink (base/nl.h) --- */

static int link_up(struct nl *nl, unsigned ifindex, uint32_t mtu)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC,
				.ifi_index = (int)ifindex,
				.ifi_flags = IFF_UP,
				.ifi_change = IFF_UP};
	unsigned char buf[128] __attribute__((aligned(4)));
	struct nlbuf b;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 0, &ifi, sizeof(ifi));
	if (mtu)
		nlbuf_u32(&b, IFLA_MTU, mtu);
	if (b.err)
		return b.err;
	return nl_request(nl, buf, b.len, NULL, NULL, 0);
}

static int addr_add(struct nl *nl, int family, unsigned ifindex, const char *local,
		    const char *peer)
{
	unsigned char a[16], p[16], buf[256] __attribute__((aligned(4)));
	size_t alen = family == AF_INET ? 4 : 16;
	uint32_t flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	struct ifaddrmsg ifa = {.ifa_family = (unsigned char)family,
				.ifa_prefixlen = (unsigned char)(alen * 8),
				.ifa_flags = (unsigned char)flags,
				.ifa_scope = RT_SCOPE_UNIVERSE,
				.ifa_index = ifindex};
	struct nlbuf b;

	if (inet_pton(family, local, a) != 1 || inet_pton(family, peer, p) != 1)
		return -EINVAL;
	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0, &ifa,
		  sizeof(ifa));
	nlbuf_attr(&b, IFA_LOCAL, a, alen);
	nlbuf_attr(&b, IFA_ADDRESS, p, alen);
	nlbuf_u32(&b, IFA_FLAGS, flags);
	if (b.err)
		return b.err;
	return nl_request(nl, buf, b.len, NULL, NULL, 0);
}

static int configure_here(const char *ifname, uint32_t mtu, const struct lab_link_addrs *a,
			  char *err, size_t errlen)
{
	unsigned lo = if_nametoindex("lo"), dev = if_nametoindex(ifname);
	struct nl *nl = NULL;
	int r;

	if (!lo || !dev) {
		snprintf(err, errlen, "no interface %s in the namespace", lo ? ifname : "lo");
		return -ENODEV;
	}
	/* Opened here, inside the namespace: the socket's namespace is fixed at creation. */
	r = nl_open(&nl);
	if (r < 0) {
		snprintf(err, errlen, "cannot open an rtnetlink socket: %s", strerror(-r));
		return r;
	}
	r = link_up(nl, lo, 0);
	if (r < 0) {
		snprintf(err, errlen, "cannot bring lo up: %s", strerror(-r));
		goto out;
	}
	r = link_up(nl, dev, mtu);
	if (r < 0) {
		snprintf(err, errlen, "cannot bring %s up with MTU %u: %s", ifname, mtu,
			 strerror(-r));
		goto out;
	}
	r = addr_add(nl, AF_INET, dev, a->local4, a->peer4);
	if (r < 0) {
		snprintf(err, errlen, "cannot add %s peer %s on %s: %s", a->local4, a->peer4,
			 ifname, strerror(-r));
		goto out;
	}
	r = addr_add(nl, AF_INET6, dev, a->local6, a->peer6);
	if (r < 0)
		snprintf(err, errlen, "cannot add %s peer %s on %s: %s", a->local6, a->peer6,
			 ifname, strerror(-r));
out:
	nl_close(nl);
	return r;
}

int lab_netns_configure(int nsfd, const char *ifname, uint32_t mtu, const struct lab_link_addrs *a,
			char *err, size_t errlen)
{
	int saved, r;

	r = lab_netns_enter(nsfd, &saved);
	if (r < 0) {
		snprintf(err, errlen, "cannot enter the namespace: %s", strerror(-r));
		return r;
	}
	r = configure_here(ifname, mtu, a, err, errlen);
	if (lab_netns_leave(saved) < 0) {
		snprintf(err, errlen, "cannot return to the lab's own namespace");
		r = -EIO;
	}
	return r;
}

int lab_netns_sysctl(int nsfd, const char *path, const char *value)
{
	char full[256];
	size_t len = strlen(value);
	int saved, fd, r;

	if (strstr(path, "..") ||
	    (size_t)snprintf(full, sizeof(full), "/proc/sys/%s", path) >= sizeof(full))
		return -EINVAL;
	r = lab_netns_enter(nsfd, &saved);
	if (r < 0)
		return r;
	/* The sysctl file is resolved in the namespace of whoever opens it: do it inside. */
	fd = open(full, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		r = -errno;
	else if (write(fd, value, len) != (ssize_t)len)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (lab_netns_leave(saved) < 0)
		r = -EIO;
	return r;
}

int lab_netns_tx_dropped(int nsfd, const char *ifname, uint64_t *out)
{
	char line[512], name[IFNAMSIZ + 2];
	unsigned long long v[12];
	FILE *f = NULL;
	int saved, r;

	r = lab_netns_enter(nsfd, &saved);
	if (r < 0)
		return r;
	/* /proc/self/net follows the reader's namespace, at open time. */
	f = fopen("/proc/self/net/dev", "re");
	if (!f)
		r = -errno;
	if (lab_netns_leave(saved) < 0) {
		if (f)
			fclose(f);
		return -EIO;
	}
	if (r < 0)
		return r;
	r = -ENODEV;
	snprintf(name, sizeof(name), "%s:", ifname);
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " ");

		if (strncmp(p, name, strlen(name)))
			continue;
		/* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes
		 * packets errs drop ... */
		if (sscanf(p + strlen(name),
			   "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
			   &v[11]) == 12) {
			*out = v[11];
			r = 0;
		} else {
			r = -EBADMSG;
		}
		break;
	}
	fclose(f);
	return r;
}

int lab_netns_tcp_probe(int nsfd, const char *addr, uint16_t port, unsigned timeout_ms)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t alen;
	struct pollfd pfd;
	int saved, fd, r, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		alen = sizeof(*a4);
	} else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		alen = sizeof(*a6);
	} else {
		return -EINVAL;
	}
	r = lab_netns_enter(nsfd, &saved);
	if (r < 0)
		return r;
	/* A socket belongs to the namespace it was created in, wherever it is used. */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	r = fd < 0 ? -errno : 0;
	if (lab_netns_leave(saved) < 0) {
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	if (r < 0)
		return r;
	if (connect(fd, (struct sockaddr *)&ss, alen) < 0 && errno != EINPROGRESS) {
		r = -errno;
		goto out;
	}
	pfd = (struct pollfd){.fd = fd, .events = POLLOUT};
	r = poll(&pfd, 1, (int)timeout_ms);
	if (r < 0)
		r = -errno;
	else if (r == 0)
		r = -ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
		r = -errno;
	else
		r = -soerr;
out:
	close(fd);
	return r;
}

/* --- processes in the namespaces --- */

/* Only returns on failure, with the errno to report. */
static int spawn_child(const struct lab_spawn *s, pid_t parent)
{
	static const int handled[] = {SIGINT,  SIGTERM, SIGHUP,	 SIGCHLD, SIGPIPE,
				      SIGTTOU, SIGTTIN, SIGTSTP, SIGQUIT};
	sigset_t ttou;

	for (size_t i = 0; i < COUNT(handled); i++)
		signal(handled[i], SIG_DFL);
	/*
	 * Die with the lab. Before setns this matters most: a lab killed now would
	 * otherwise leave the program to start in the lab's own namespace, out of the
	 * reaper's sight. Kept across exec: the namespaces go with the lab anyway.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return ESRCH;
	if (s->own_pgrp && setpgid(0, 0) < 0)
		return errno;
	if (s->own_pgrp && s->foreground) {
		/* From a background group, tcsetpgrp raises SIGTTOU unless it is blocked. */
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, NULL);
		tcsetpgrp(STDIN_FILENO, getpid());
	}
	if (setns(s->nsfd, CLONE_NEWNET) < 0)
		return errno;
	if (s->null_stdio) {
		int fd = open("/dev/null", O_RDWR);

		if (fd < 0)
			return errno;
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	for (char *const *e = s->env; e && *e; e++)
		if (putenv(*e) < 0)
			return errno;
	if (s->sigmask)
		sigprocmask(SIG_SETMASK, s->sigmask, NULL);
	if (s->path)
		execv(s->path, s->argv);
	else
		execvp(s->argv[0], s->argv);
	return errno;
}

int lab_spawn(const struct lab_spawn *s, pid_t *pid)
{
	pid_t parent = getpid(), c;
	int p[2], e = 0;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c = fork();
	if (c < 0) {
		e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (c == 0) {
		close(p[0]);
		e = spawn_child(s, parent);
		/* The parent learns why through the pipe; exec closes it on success. */
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	if (s->own_pgrp)
		setpgid(c, c); /* both sides, so the group exists whoever runs first */
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
		return -(e ? e : EIO);
	}
	*pid = c;
	return 0;
}

/* --- the reaper --- */

static void close_fds_except(int keep)
{
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

static void reaper_main(int fd, const char *const *names, unsigned n)
{
	char buf[64];
	sigset_t all;
	ssize_t r;
	int null;

	setpgid(0, 0);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_NAME, "debloat-reaper");
	/* Hold no one's terminal or pipe: `$(debloat lab ...)` must not wait for us. */
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	close_fds_except(fd);
	do
		r = read(fd, buf, sizeof(buf));
	while (r > 0 || (r < 0 && errno == EINTR));
	for (unsigned i = 0; i < n; i++)
		lab_netns_remove(names[i], 3000);
	_exit(0);
}

int lab_reaper_start(const char *const *names, unsigned n, struct lab_reaper *r)
{
	int p[2];
	pid_t c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c = fork();
	if (c < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	if (c == 0) {
		close(p[1]);
		reaper_main(p[0], names, n);
	}
	close(p[0]);
	setpgid(c, c);
	r->pid = c;
	r->fd = p[1];
	return 0;
}

int lab_reaper_finish(struct lab_reaper *r, unsigned timeout_ms)
{
	uint64_t deadline = mono_ms() + timeout_ms;
	pid_t w;

	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	if (r->pid <= 0)
		return 0;
	for (;;) {
		w = waitpid(r->pid, NULL, WNOHANG);
		if (w == r->pid || (w < 0 && errno == ECHILD)) {
			r->pid = 0;
			return 0;
		}
		if (mono_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(2);
	}
}
