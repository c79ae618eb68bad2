/* SPDX-License-Identifier: MIT */
/* The refresh loop of axl labels --watch, axl cdi generate --watch and axl agent (cli.h):
 * wake every --interval seconds, and soon after a device node appears or goes in the
 * node's /dev (or /dev/dri, /dev/accel, /dev/vfio: an accelerator's driver loaded,
 * unloaded, a device hot-plugged or bound to VFIO); stop on SIGINT or SIGTERM. Which
 * nodes belong to an accelerator is the inventory's business: any change in those
 * directories rediscovers, a burst of changes (udev creating a device's nodes) once,
 * and the writers rewrite only what changed, so a change elsewhere in /dev costs one
 * discovery (about a millisecond). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define DEFAULT_INTERVAL_S 60
/* after a device node event: wait for this much quiet (udev makes a device's nodes one
 * by one), at most SETTLE_MAX_S in all */
#define SETTLE_S 0.2
#define SETTLE_MAX_S 1.0
#define EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF)

/* the subdirectories of /dev that hold accelerators' nodes */
static const char *const subdirs[] = {"dri", "accel", "vfio", NULL};

double watch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_sub(struct watch *w, const char *name)
{
	char p[sizeof w->dev + 16];
	snprintf(p, sizeof p, "%s/%s", w->dev, name);
	if (inotify_add_watch(w->ino, p, EVENTS | IN_ONLYDIR) < 0 && errno != ENOENT && w->verbose)
		fprintf(stderr, "axl: watch: %s: %s\n", p, strerror(errno));
}

int watch_open(struct watch *w, const struct opts *o, int64_t interval_ms)
{
	memset(w, 0, sizeof *w);
	w->sigfd = w->ino = w->wd_dev = -1;
	w->verbose = o->verbose;
	w->interval = interval_ms ? (double)interval_ms / 1000 : DEFAULT_INTERVAL_S; /* seconds here */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	w->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (w->sigfd < 0) {
		fprintf(stderr, "axl: signalfd: %s\n", strerror(errno));
		return 1;
	}
	/* the node's /dev: the live one, or that of a --sysroot folder (a capture file's
	 * unpacked tree never changes; a simulated node has none) */
	struct stat st;
	if (o->sim)
		return 0;
	if (o->sysroot && (stat(o->sysroot, &st) != 0 || !S_ISDIR(st.st_mode)))
		return 0;
	snprintf(w->dev, sizeof w->dev, "%s/dev", o->sysroot ? o->sysroot : "");
	w->ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->ino < 0) {
		fprintf(stderr, "axl: watch: inotify: %s (refreshing every %.0f s only)\n", strerror(errno),
			w->interval);
		return 0;
	}
	w->wd_dev = inotify_add_watch(w->ino, w->dev, EVENTS | IN_ONLYDIR);
	if (w->wd_dev < 0) {
		fprintf(stderr, "axl: watch: %s: %s (refreshing every %.0f s only)\n", w->dev, strerror(errno),
			w->interval);
		close(w->ino);
		w->ino = -1;
		return 0;
	}
	for (size_t i = 0; subdirs[i]; i++)
		add_sub(w, subdirs[i]);
	return 0;
}

/* Read the pending events: 1 when one was about a node (or a directory of them). */
static int drain(struct watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;
	for (;;) {
		ssize_t n = read(w->ino, buf, sizeof buf);
		if (n <= 0)
			return any;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			p += sizeof *e + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				any = 1;
				continue;
			}
			if (e->mask & IN_IGNORED)
				continue;
			any = 1;
			/* a directory of nodes made after we started (a driver loaded): watch it */
			if (e->wd == w->wd_dev && e->len && (e->mask & (IN_CREATE | IN_MOVED_TO)) &&
			    (e->mask & IN_ISDIR))
				for (size_t i = 0; subdirs[i]; i++)
					if (strcmp(e->name, subdirs[i]) == 0)
						add_sub(w, e->name);
		}
	}
}

int watch_wait(struct watch *w, double max, const char **why)
{
	double now = watch_now(), until = now + (max >= 0 && max < w->interval ? max : w->interval);
	double settle_until = -1, settle_cap = -1;
	*why = "interval";
	for (;;) {
		now = watch_now();
		double end = settle_until >= 0 ? (settle_until < settle_cap ? settle_until : settle_cap) : until;
		if (now >= end) {
			if (settle_until >= 0)
				*why = "device nodes changed";
			return 1;
		}
		struct pollfd pf[2] = {{w->sigfd, POLLIN, 0}, {w->ino, POLLIN, 0}};
		double left = (end - now) * 1e3 + 1;
		int r = poll(pf, w->ino >= 0 ? 2 : 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "axl: watch: poll: %s\n", strerror(errno));
			return 0;
		}
		if (r > 0 && (pf[0].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(w->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (w->verbose)
					fprintf(stderr, "axl: signal %u: stopping\n", si.ssi_signo);
				return 0;
			}
		}
		if (r > 0 && w->ino >= 0 && (pf[1].revents & POLLIN) && drain(w)) {
			now = watch_now();
			settle_until = now + SETTLE_S;
			if (settle_cap < 0)
				settle_cap = now + SETTLE_MAX_S;
		}
	}
}

void watch_close(struct watch *w)
{
	if (w->sigfd >= 0)
		close(w->sigfd);
	if (w->ino >= 0)
		close(w->ino);
	w->sigfd = w->ino = -1;
}
