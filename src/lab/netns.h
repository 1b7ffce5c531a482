/* SPDX-License-Identifier: MIT */
/*
 * netns.h - the lab's two network namespaces: creating them as `ip netns add` does,
 * configuring their links over rtnetlink, running processes inside them, and a
 * reaper that removes them whatever happens to the lab.
 *
 * Namespaces are named, so `ip netns exec NAME` works on them: /run/netns/NAME is a
 * file bind-mounted from /proc/self/ns/net after unshare(CLONE_NEWNET), /run/netns a
 * shared mount point (made so if it is not), exactly iproute2's layout, done with
 * system calls so a board needs nothing but our binary. Names are
 * "dbl-<pid>-client" and "dbl-<pid>-board", <pid> the lab's.
 *
 * Tear-down must complete even when the lab is killed with SIGKILL, so it is not the
 * lab's job: lab_reaper_start() forks, before anything exists, a process in its own
 * process group that ignores SIGINT, SIGTERM and SIGHUP and blocks reading a pipe
 * whose only writer is the lab. When the pipe reaches EOF (the lab called
 * lab_reaper_finish(), or died), the reaper kills every process whose network
 * namespace is one of the lab's (compared by the nsfs inode of /run/netns/NAME),
 * until none is left, unmounts and removes the /run/netns entries, and exits. The tun
 * devices go with the last fd and the namespace with its last reference.
 *
 * The calling process must be single-threaded: entering a namespace is setns() of
 * the calling thread, and the helpers return to the caller's namespace before they
 * return, also on error. Errors are -errno, with what failed in err where there is
 * an err argument; nothing is printed.
 */
#ifndef DEBLOAT_LAB_NETNS_H
#define DEBLOAT_LAB_NETNS_H

#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LAB_NETNS_DIR	   "/run/netns"
#define LAB_NETNS_NAME_MAX 40

/* The lab's addresses: a point-to-point link, each end's peer is the other. */
#define LAB_CLIENT_ADDR	 "10.77.0.1"
#define LAB_BOARD_ADDR	 "10.77.0.2"
#define LAB_CLIENT_ADDR6 "fd77::1"
#define LAB_BOARD_ADDR6	 "fd77::2"

/* "dbl-<pid>-<role>" into buf (LAB_NETNS_NAME_MAX). */
void lab_netns_name(char *buf, size_t len, pid_t pid, const char *role);

/*
 * Create the named namespace (as `ip netns add NAME`). Returns an fd of it
 * (O_CLOEXEC), or -errno: -EEXIST when the name is taken.
 */
int lab_netns_add(const char *name, char *err, size_t errlen);

/*
 * Kill every process in the named namespace (SIGKILL, rescanning until none is
 * left, at most timeout_ms), unmount and remove /run/netns/NAME. A name that does
 * not exist is success. Returns 0 or the first -errno.
 */
int lab_netns_remove(const char *name, unsigned timeout_ms);

/*
 * Enter the namespace nsfd; *saved receives an fd of the namespace left, for
 * lab_netns_leave() (which closes it). -errno.
 */
int lab_netns_enter(int nsfd, int *saved);
int lab_netns_leave(int saved);

/*
 * Configure one end of the link inside nsfd: lo up; `ifname` up with this MTU;
 * local/peer IPv4 (/32 with a peer, which also routes the peer) and IPv6 (/128 with
 * a peer, IFA_F_NODAD so it is usable at once). Strings are numeric addresses.
 */
struct lab_link_addrs {
	const char *local4, *peer4;
	const char *local6, *peer6;
};
int lab_netns_configure(int nsfd, const char *ifname, uint32_t mtu, const struct lab_link_addrs *a,
			char *err, size_t errlen);

/*
 * Set a sysctl of the namespace (a path under /proc/sys, e.g.
 * "net/ipv4/tcp_congestion_control"). /proc/sys/net follows the opener's namespace.
 */
int lab_netns_sysctl(int nsfd, const char *path, const char *value);

/*
 * Packets the kernel of namespace nsfd dropped on their way out of `ifname`
 * (tx_dropped of /proc/net/dev as seen from inside): for a tun, packets its queue
 * could not hold because the reader fell behind. -ENODEV when there is no such device.
 */
int lab_netns_tx_dropped(int nsfd, const char *ifname, uint64_t *out);

/*
 * One attempt to open a TCP connection to addr:port from inside nsfd (numeric IPv4
 * or IPv6), waiting at most timeout_ms: 0 when it was accepted (then closed), else
 * -errno (-ECONNREFUSED: nobody listens yet; -ETIMEDOUT).
 */
int lab_netns_tcp_probe(int nsfd, const char *addr, uint16_t port, unsigned timeout_ms);

/* A process to start inside a namespace. */
struct lab_spawn {
	int nsfd;	  /* the namespace to run in */
	const char *path; /* executable; NULL: argv[0] searched in PATH */
	char *const *argv;
	char *const *env;	 /* "KEY=VALUE" set on top of ours; NULL-terminated, or NULL */
	const sigset_t *sigmask; /* the signal mask the program starts with */
	bool own_pgrp;		 /* in a process group of its own */
	bool foreground;	 /* ... made the terminal's foreground group (stdin a tty) */
	bool null_stdio;	 /* stdin, stdout and stderr on /dev/null */
};

/*
 * Fork and exec. The child restores default dispositions for the signals the lab
 * handles and s->sigmask. Returns 0 with *pid set once exec succeeded, or -errno of
 * what failed in the child (setns, exec: -ENOENT for a missing program); the child
 * is then already reaped.
 */
int lab_spawn(const struct lab_spawn *s, pid_t *pid);

/* The reaper (see the top of this file). */
struct lab_reaper {
	pid_t pid;
	int fd; /* the write end of its pipe; -1 once finished */
};

/*
 * Fork the reaper, which will remove the namespaces named in names[0..n) when the
 * pipe closes. Call first, before creating anything. -errno.
 */
int lab_reaper_start(const char *const *names, unsigned n, struct lab_reaper *r);

/* Close the pipe and wait (at most timeout_ms) for the reaper to finish. -ETIMEDOUT. */
int lab_reaper_finish(struct lab_reaper *r, unsigned timeout_ms);

#endif
