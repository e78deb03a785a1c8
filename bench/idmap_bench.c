// SPDX-License-Identifier: GPL-2.0
/*
 * idmap_bench: cost of id-map lookups, measured in the guest.
 *
 * Run under QEMU with -icount shift=0, where one nanosecond of guest time
 * is one guest instruction: CLOCK_MONOTONIC differences are instruction
 * counts, the same on every run.  Each figure is the smallest of REPS
 * timed loops of ITERS calls, divided by ITERS.
 *
 * For each map size N and shape, a child process unshares its user
 * namespace, the parent writes uid_map and gid_map with N extents, and the
 * child times the workloads.  Output, one line per figure:
 *   @@BENCH <workload> <N> <shape> <instructions per call | rejected>
 * and the memory a map takes, from MemFree before and after NS_MEM
 * namespaces with one such uid_map each, less the same with a one-extent
 * map:
 *   @@BENCH mem_per_map <N> <shape> <bytes>
 *
 * "idmap_bench N..." measures those sizes alone, without the memory
 * figures (to compare two builds quickly); "idmap_bench mem" the memory
 * figures alone.
 *
 * The paths every process takes, with N 0 and shape "-" in the initial
 * namespace (on every kernel, CONFIG_USER_NS=n included), and per map in
 * a child namespace (narrow and wide shapes) and through an idmapped
 * mount of the disk:
 *   path_{open,stat,access}_{tmpfs,ext4,idmapped}_{1,8}
 *     openat()+close(), fstatat(), faccessat() of a file 1 or 8
 *     components below a directory's fd (only the walk below it timed);
 *   execve: one execve() of this static program, which execs itself;
 *   fork_exit_wait, clone_newuser_exit_wait, unshare_newuser_exit_wait:
 *     a child that exits at once, created plainly, with CLONE_NEWUSER, or
 *     that unshares its user namespace first; the namespace is freed by a
 *     kernel worker, which runs while the parent waits;
 *   mem_per_ns: MemFree per namespace without maps.
 *
 * "idmap_bench walks [N...]" times nothing: it makes the path walks above
 * (initial namespace; narrow and wide maps of N extents, default 1 and
 * 64) in windows marked for the QEMU plugin bench/memlines.c, which
 * counts the kernel's loads, stores and distinct cache lines in each
 * (scripts/memlines.sh).  Output, a line per row, in the order of the
 * plugin's rows:
 *   @@MEMROW <workload> <N> <shape>
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define ITERS 1000
#define REPS 5
#define SPREAD 4096
#define NS_MEM 1000

static const unsigned int sizes[] = { 1, 2, 3, 5, 6, 16, 64, 340, 1024, 4096 };
#define NR_SIZES (sizeof(sizes) / sizeof(sizes[0]))
static bool size_wanted[NR_SIZES];

/* An ext4 disk, when the harness attaches one, for idmapped mounts. */
#define DISK "/dev/vda"
#define DISK_MNT "/tmp/disk"
#define IDMAPPED "/tmp/idmapped"
static int have_disk;
/* "walks": the path walks in the plugin's windows, not timed. */
static bool mem_windows;
#define MEM_WINDOWS 64
static char idmapped_file[64];	/* the file a child stats through IDMAPPED */

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Instructions per call of @fn(@arg), best of REPS loops. */
static double measure(void (*fn)(void *), void *arg, int iters)
{
	unsigned long long best = ~0ULL, t;
	int r, i;

	for (r = 0; r < REPS; r++) {
		t = now();
		for (i = 0; i < iters; i++)
			fn(arg);
		t = now() - t;
		if (t < best)
			best = t;
	}
	return (double)best / iters;
}

#include "shapes.h"

static unsigned int kid_of(unsigned int extent, unsigned int off)
{
	return ext_lower[extent] + off;
}

static char *map_text(unsigned int n)
{
	char *buf = malloc(n * 40 + 1), *p = buf;
	unsigned int i;

	for (i = 0; i < n; i++)
		p += sprintf(p, "%u %u %u\n", ext_first[i], ext_lower[i], ext_count[i]);
	return buf;
}

static char spread_path[SPREAD][32];
static unsigned int spread_order[SPREAD];

static void do_stat(void *arg)
{
	struct stat st;

	stat(arg, &st);
}

static void do_stat_spread(void *arg __attribute__((unused)))
{
	struct stat st;
	int i;

	for (i = 0; i < SPREAD; i++)
		stat(spread_path[spread_order[i]], &st);
}

static void do_getresuid(void *arg __attribute__((unused)))
{
	uid_t r, e, s;
	gid_t gr, ge, gs;

	getresuid(&r, &e, &s);
	getresgid(&gr, &ge, &gs);
}

static void do_setfsuid(void *arg)
{
	setfsuid(*(uid_t *)arg);
}

/* A down-mapping without a credential change: the uid's processes. */
static void do_getpriority(void *arg)
{
	errno = 0;
	if (getpriority(PRIO_USER, *(uid_t *)arg) == -1 && errno)
		perror("getpriority");
}

static void do_fchown(void *arg)
{
	int *a = arg;

	if (fchown(a[0], a[1], -1))
		perror("fchown");
}

static void do_status(void *arg)
{
	static char buf[4096];

	if (pread(*(int *)arg, buf, sizeof(buf), 0) < 0)
		perror("pread");
}

/*
 * Path walks: a file one and eight components below the directory "pw" of
 * tmpfs (/tmp) and of the disk, every component searchable by all.
 */
#define PW "pw"
static const char *const pw_file[2] = { "f", "a/b/c/d/e/f/g/f" };
static const unsigned int pw_depth[2] = { 1, 8 };

struct walk {
	int dfd;
	const char *path;
};

static void do_open_close(void *arg)
{
	struct walk *w = arg;
	int fd = openat(w->dfd, w->path, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static void do_fstatat(void *arg)
{
	struct walk *w = arg;
	struct stat st;

	fstatat(w->dfd, w->path, &st, 0);
}

static void do_faccessat(void *arg)
{
	struct walk *w = arg;

	faccessat(w->dfd, w->path, R_OK, 0);
}

/* The tree below @root/pw; files and directories owned by root. */
static void make_walk_tree(const char *root)
{
	char path[128];
	const char *p;
	unsigned int d;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, PW);
	mkdir(path, 0755);
	for (p = pw_file[1]; (p = strchr(p, '/')); p++) {
		snprintf(path, sizeof(path), "%s/%s/%.*s", root, PW,
			 (int)(p - pw_file[1]), pw_file[1]);
		mkdir(path, 0755);
	}
	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "%s/%s/%s", root, PW, pw_file[d]);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			perror(path);
		close(fd);
	}
}

/*
 * Results are kept in memory and printed at the end: console output
 * raises interrupts whose timing depends on the host, and those must not
 * land inside a timed loop.  Children write theirs to the parent's pipe.
 */
static char results[1 << 16];
static size_t results_len;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	results_len += vsnprintf(results + results_len, sizeof(results) - results_len, fmt, ap);
	va_end(ap);
	if (results_len >= sizeof(results))
		results_len = sizeof(results) - 1;
}

/*
 * For calls that free memory through RCU, whose first few thousand calls
 * run cheaper than the steady state: @warm untimed calls, then the mean of
 * @iters timed ones.
 */
static double measure_steady(void (*fn)(void *), void *arg, int warm, int iters)
{
	unsigned long long t;
	int i;

	for (i = 0; i < warm; i++)
		fn(arg);
	t = now();
	for (i = 0; i < iters; i++)
		fn(arg);
	return (double)(now() - t) / iters;
}

static void report(const char *what, unsigned int n, const char *width, double v)
{
	note("@@BENCH %s %u %s %.1f\n", what, n, width, v);
}

/* The marks bench/memlines.c looks for: NOPs to everybody else. */
#define MARK(disp) asm volatile("nopl " #disp "(%%rax)" ::: "memory")

/*
 * MEM_WINDOWS calls of @fn(@arg), each in a window of its own, after a
 * few calls that warm the caches; then the end of the row.
 */
static void mem_row(const char *what, unsigned int n, const char *width,
		    void (*fn)(void *), void *arg)
{
	int i;

	note("@@MEMROW %s %u %s\n", what, n, width);
	for (i = 0; i < 8; i++)
		fn(arg);
	for (i = 0; i < MEM_WINDOWS; i++) {
		MARK(0x1d3a0001);
		fn(arg);
		MARK(0x1d3a0002);
	}
	MARK(0x1d3a0003);
}

/*
 * The path walks below @root/pw (@fs names it), reported for @n and
 * @width.  A call that fails would be timed as a cheap one: each is made
 * once first, and an error is reported instead of its figure.
 */
static void walks(const char *root, const char *fs, unsigned int n, const char *width)
{
	static const struct {
		const char *name;
		void (*fn)(void *);
	} calls[] = {
		{ "open", do_open_close },
		{ "stat", do_fstatat },
		{ "access", do_faccessat },
	};
	char path[128], what[64];
	struct walk w;
	struct stat st;
	unsigned int c, d;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, PW);
	w.dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w.dfd < 0) {
		note("@@BENCH error %u %s open %s: %s\n", n, width, path, strerror(errno));
		return;
	}
	for (d = 0; d < 2; d++) {
		w.path = pw_file[d];
		for (c = 0; c < 3; c++) {
			snprintf(what, sizeof(what), "path_%s_%s_%u", calls[c].name, fs, pw_depth[d]);
			errno = 0;
			fd = openat(w.dfd, w.path, O_RDONLY);
			if (fd < 0 || fstatat(w.dfd, w.path, &st, 0) ||
			    faccessat(w.dfd, w.path, R_OK, 0)) {
				note("@@BENCH error %u %s %s: %s\n", n, width, what, strerror(errno));
				if (fd >= 0)
					close(fd);
				continue;
			}
			close(fd);
			if (mem_windows)
				mem_row(what, n, width, calls[c].fn, &w);
			else
				report(what, n, width, measure(calls[c].fn, &w, ITERS));
		}
	}
	close(w.dfd);
}

/* The path walks of tmpfs, and of the disk (idmapped: @idmapped). */
static void all_walks(unsigned int n, const char *width, bool idmapped)
{
	walks("/tmp", "tmpfs", n, width);
	if (have_disk)
		walks(DISK_MNT, "ext4", n, width);
	if (have_disk && idmapped)
		walks(IDMAPPED, "idmapped", n, width);
}

/*
 * execve(): "idmap_bench exec K" execs itself K - 1 more times.  A child
 * that execs K times, less one that execs once, per exec; best of REPS.
 */
#define EXECS 100
static char self_path[256];

/* A child that execs @k times: 0 and *@t its time, or -1. */
static int exec_chain(unsigned int k, unsigned long long *t)
{
	char arg[16];
	pid_t pid;
	int status;

	snprintf(arg, sizeof(arg), "%u", k);
	*t = now();
	pid = fork();
	if (pid == 0) {
		execl(self_path, self_path, "exec", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return -1;
	*t = now() - *t;
	return 0;
}

static void measure_exec(unsigned int n, const char *width)
{
	unsigned long long best = ~0ULL, one, many;
	int r;

	for (r = 0; r < REPS; r++) {
		if (exec_chain(1, &one) || exec_chain(EXECS + 1, &many)) {
			note("@@BENCH error %u %s execve of %s failed\n", n, width, self_path);
			return;
		}
		if (many > one && many - one < best)
			best = many - one;
	}
	if (best == ~0ULL)
		note("@@BENCH error %u %s execve: no chain took longer than one exec\n", n, width);
	else
		report("execve", n, width, (double)best / EXECS);
}

static void do_fork_exit_wait(void *arg __attribute__((unused)))
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
}

static void do_clone_newuser(void *arg)
{
	pid_t pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		*(int *)arg = errno;
	else
		waitpid(pid, NULL, 0);
}

static void do_unshare_newuser(void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) ? 1 : 0);
	waitpid(pid, &status, 0);
	if (status)
		*(int *)arg = 1;
}

/* Processes and namespaces made and freed, in the initial namespace. */
static void processes(void)
{
	int err = 0;
	double v;

	report("fork_exit_wait", 0, "-", measure_steady(do_fork_exit_wait, NULL, 200, 500));
	if (access("/proc/self/ns/user", F_OK))
		return;
	/* A call that failed was timed as a cheap one: its error instead. */
	v = measure_steady(do_clone_newuser, &err, 200, 500);
	if (err)
		note("@@BENCH error 0 - clone(CLONE_NEWUSER): %s\n", strerror(err));
	else
		report("clone_newuser_exit_wait", 0, "-", v);
	v = measure_steady(do_unshare_newuser, &err, 200, 500);
	if (err)
		note("@@BENCH error 0 - unshare(CLONE_NEWUSER) failed\n");
	else
		report("unshare_newuser_exit_wait", 0, "-", v);
}

/*
 * The workloads, in a namespace with the map of @l and @n extents, whose
 * extent @t holds the owners of the "_last" files.
 */
static int child_work(const struct layout *l, unsigned int n, unsigned int t)
{
	uid_t target = ext_first[t] + ext_count[t] - 1;
	int fd, a[2];

	if (mem_windows)
		goto as_a_container;
	if (l->full) {
		report("stat_first", n, l->name, measure(do_stat, "/tmp/b-first", ITERS));
		report("stat_middle", n, l->name, measure(do_stat, "/tmp/b-middle", ITERS));
	}
	report("stat_last", n, l->name, measure(do_stat, "/tmp/b-last", ITERS));
	report("stat_unmapped", n, l->name, measure(do_stat, "/tmp/b-unmapped", ITERS));
	report("stat_spread", n, l->name, measure(do_stat_spread, NULL, 1) / SPREAD);
	if (have_disk) {
		struct stat st;

		/* A stat that fails would be timed as a cheap one: check first. */
		if (stat(idmapped_file, &st))
			note("@@BENCH error %u %s stat %s: %s\n", n, l->name,
			     idmapped_file, strerror(errno));
		else
			report("stat_idmapped_last", n, l->name,
			       measure(do_stat, idmapped_file, ITERS));
	}
	if (l->full) {
		report("getresuid_getresgid", n, l->name, measure(do_getresuid, NULL, ITERS));
		fd = open("/proc/self/status", O_RDONLY);
		report("read_proc_status", n, l->name, measure(do_status, &fd, ITERS / 10));
		close(fd);
	}

	/*
	 * Still the namespace's creator with a full capability set: chown a
	 * file the parent gave to a mapped id, then move our fsuid around.
	 */
	fd = open("/tmp/b-own", O_RDONLY);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	a[0] = fd;
	a[1] = target;
	report("chown_last", n, l->name, measure(do_fchown, a, ITERS));
	close(fd);
	report("getpriority_user_last", n, l->name, measure(do_getpriority, &target, ITERS));
	/* Each call allocates credentials and frees them through RCU. */
	if (l->full)
		report("setfsuid_last", n, l->name,
		       measure_steady(do_setfsuid, &target, 8 * ITERS, 16 * ITERS));
	/*
	 * Last, as a container's processes run: with the namespace's first
	 * mapped uid and gid (its root in narrow maps, an unprivileged user
	 * in wide ones), the path walks and execve().
	 */
as_a_container:
	if (l->full) {
		if (setresgid(ext_first[0], ext_first[0], ext_first[0]) ||
		    setresuid(ext_first[0], ext_first[0], ext_first[0])) {
			note("@@BENCH error %u %s setresuid(%u): %s\n", n, l->name,
			     ext_first[0], strerror(errno));
			return 1;
		}
		all_walks(n, l->name, true);
		if (!mem_windows)
			measure_exec(n, l->name);
	}
	return 0;
}

static void set_owner(const char *path, unsigned int kid)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0 || fchown(fd, kid, kid))
		perror(path);
	close(fd);
}

/* Write @text to /proc/@pid/@file; 0 or -errno, *@t the write() alone. */
static int write_map(pid_t pid, const char *file, const char *text,
		     unsigned long long *t)
{
	char path[64];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	*t = now();
	n = write(fd, text, strlen(text));
	*t = now() - *t;
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/*
 * Fork a child that unshares its user namespace and waits for a byte on
 * *@go.  In the parent: the child's pid, *@go the end to write.  In the
 * child: 0, *@cmd the byte received (0 if the parent closed its end).
 * *@back is the pipe from child to parent: its read end in the parent,
 * its write end in the child.
 */
static pid_t waiting_child(int *go, int *back, char *cmd)
{
	int down[2], up[2];
	pid_t pid;
	char c;

	if (pipe(down) || pipe(up))
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		if (write(up[1], "r", 1) != 1 || read(down[0], cmd, 1) != 1)
			*cmd = 0;
		close(down[0]);
		*back = up[1];
		return 0;
	}
	close(down[0]);
	close(up[1]);
	if (read(up[0], &c, 1) != 1)
		exit(1);
	*go = down[1];
	*back = up[0];
	return pid;
}

/* The disk's file for @l and @n: owned by the first id of the target extent. */
static void disk_file(char *buf, size_t size, const char *dir,
		      const struct layout *l, unsigned int n)
{
	snprintf(buf, size, "%s/f-%s-%u", dir, l->name, n);
}

/*
 * Mount DISK_MNT again at IDMAPPED, idmapped by @pid's user namespace.  A
 * stat() of the file for the map there, from inside that namespace, maps
 * the owner twice through the N-extent map (disk id -> kernel id ->
 * namespace id).
 */
static int idmap_disk(pid_t pid)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	char path[64];
	int tree, ns, err = 0;

	tree = open_tree(AT_FDCWD, DISK_MNT, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (tree < 0 || ns < 0)
		return -errno;
	attr.userns_fd = ns;
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) ||
	    move_mount(tree, "", AT_FDCWD, IDMAPPED, MOVE_MOUNT_F_EMPTY_PATH))
		err = -errno;
	close(ns);
	close(tree);
	return err;
}

/* Best time of writing @text as the uid_map of three fresh namespaces. */
static int time_map_write(const char *text, unsigned long long *best)
{
	unsigned long long t;
	int go, back, r, err = 0;
	pid_t pid;
	char cmd;

	*best = ~0ULL;
	for (r = 0; r < 3 && !err; r++) {
		pid = waiting_child(&go, &back, &cmd);
		if (pid == 0)
			_exit(0);
		err = write_map(pid, "uid_map", text, &t);
		if (t < *best)
			*best = t;
		close(go);
		close(back);
		waitpid(pid, NULL, 0);
	}
	return err;
}

static void run(const struct layout *l, unsigned int n)
{
	unsigned int i, target = l->make(n);
	int go, back, status, err;
	unsigned long long t;
	char c, *text;
	pid_t pid;

	set_owner("/tmp/b-first", kid_of(0, ext_count[0] - 1));
	set_owner("/tmp/b-middle", kid_of(n / 2, ext_count[n / 2] - 1));
	set_owner("/tmp/b-last", kid_of(target, ext_count[target] - 1));
	/* No shape maps kernel id 5. */
	set_owner("/tmp/b-unmapped", 5);
	set_owner("/tmp/b-own", kid_of(0, 0));
	for (i = 0; i < SPREAD; i++)
		set_owner(spread_path[i], kid_of(i % n, i % ext_count[i % n]));
	/* A fixed shuffle: no memo of the last extent helps. */
	srand(12345);
	for (i = 0; i < SPREAD; i++)
		spread_order[i] = i;
	for (i = SPREAD - 1; i > 0; i--) {
		unsigned int j = rand() % (i + 1), tmp = spread_order[i];

		spread_order[i] = spread_order[j];
		spread_order[j] = tmp;
	}

	text = map_text(n);
	err = time_map_write(text, &t);
	if (err) {
		note("@@BENCH map_write %u %s rejected\n", n, l->name);
		free(text);
		return;
	}
	report("map_write", n, l->name, (double)t);

	/* Before the fork: the child reads it. */
	disk_file(idmapped_file, sizeof(idmapped_file), IDMAPPED, l, n);
	pid = waiting_child(&go, &back, &c);
	if (pid == 0) {
		if (c != 'g')
			_exit(0);
		results_len = 0;
		status = child_work(l, n, target);
		/* Hand the figures to the parent, which prints them at the end. */
		if (write(back, results, results_len) != (ssize_t)results_len)
			status = 1;
		_exit(status);
	}
	err = write_map(pid, "uid_map", text, &t);
	if (!err)
		err = write_map(pid, "gid_map", text, &t);
	if (!err && have_disk)
		err = idmap_disk(pid);
	free(text);
	if (write(go, err ? "n" : "g", 1) != 1)
		perror("write");
	for (;;) {
		ssize_t got = read(back, results + results_len,
				   sizeof(results) - 1 - results_len);

		if (got <= 0)
			break;
		results_len += got;
	}
	waitpid(pid, &status, 0);
	if (have_disk)
		umount2(IDMAPPED, MNT_DETACH);
	if (err || status)
		note("@@BENCH error %u %s %d\n", n, l->name, err ? err : status);
	close(go);
	close(back);
}

static long long mem_free(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * Namespaces are freed by a kernel worker, and some of their memory after
 * an RCU grace period: let the clock run (1 ms at a time, idle time costs
 * nothing under -icount sleep=off) until MemFree has not moved for 20
 * readings, so that one measurement does not see the last one's frees.
 */
static void settle(void)
{
	long long last = -1, now_free;
	int same = 0, i;

	for (i = 0; i < 5000 && same < 20; i++) {
		usleep(1000);
		now_free = mem_free();
		same = now_free == last ? same + 1 : 0;
		last = now_free;
	}
}

/*
 * Bytes of MemFree that NS_MEM namespaces take, each with the uid_map
 * @text (none if NULL), kept alive by an open /proc/PID/ns/user after
 * their process exits; -1 if a write failed.
 */
static long long namespaces_cost(const char *file, const char *text)
{
	static int fds[NS_MEM];
	unsigned long long t;
	long long before, after;
	int go, back, i, err = 0;
	char path[64], cmd;
	pid_t pid;

	/* Warm the caches of everything a namespace takes. */
	for (i = 0; i < 2; i++) {
		pid = waiting_child(&go, &back, &cmd);
		if (pid == 0)
			_exit(0);
		close(go);
		close(back);
		waitpid(pid, NULL, 0);
	}
	settle();
	before = mem_free();
	for (i = 0; i < NS_MEM && !err; i++) {
		pid = waiting_child(&go, &back, &cmd);
		if (pid == 0)
			_exit(0);
		err = text ? write_map(pid, file, text, &t) : 0;
		if (err)
			fprintf(stderr, "@@MEMERR %s %d namespaces: %s\n", file, i, strerror(-err));
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		close(go);
		close(back);
		waitpid(pid, NULL, 0);
	}
	settle();
	after = mem_free();
	while (i--)
		close(fds[i]);
	settle();
	return err ? -1 : before - after;
}

/*
 * What one map of @l with @n extents costs, beyond a one-extent map: a
 * uid_map written by root, or with @user a projid_map written by user
 * 1000 (no capability in the initial namespace; anybody may write
 * projid maps), reported as shape "<shape>-unprivileged".
 */
static void memory(const struct layout *l, unsigned int n, bool user)
{
	struct rlimit lim = { NS_MEM + 64, NS_MEM + 64 };
	const char *file = user ? "projid_map" : "uid_map";
	long long base, cost, r[2];
	int p[2], status, ok;
	char *text;
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		setrlimit(RLIMIT_NOFILE, &lim);
		/* Dumpable again, or our children's /proc files are root's. */
		if (user && (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
			     setresuid(1000, 1000, 1000) ||
			     prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
			_exit(1);
		make_narrow(1);
		text = map_text(1);
		ok = (r[0] = namespaces_cost(file, text)) != -1;
		free(text);
		l->make(n);
		text = map_text(n);
		ok = ok && (r[1] = namespaces_cost(file, text)) != -1;
		free(text);
		_exit(!ok || write(p[1], r, sizeof(r)) != sizeof(r));
	}
	close(p[1]);
	ok = read(p[0], r, sizeof(r)) == sizeof(r);
	close(p[0]);
	waitpid(pid, &status, 0);
	base = r[0];
	cost = r[1];
	if (!ok || status)
		note("@@BENCH mem_per_map %u %s%s rejected\n", n, l->name,
		     user ? "-unprivileged" : "");
	else
		note("@@BENCH mem_per_map %u %s%s %lld\n", n, l->name,
		     user ? "-unprivileged" : "", (cost - base) / NS_MEM);
}

static void memories(void)
{
	struct rlimit lim = { NS_MEM + 64, NS_MEM + 64 };
	long long bytes;

	/* A namespace without maps, against none at all. */
	setrlimit(RLIMIT_NOFILE, &lim);
	bytes = namespaces_cost("uid_map", NULL);
	note("@@BENCH mem_per_ns 0 - %lld\n", bytes / NS_MEM);
	memory(&layouts[1], 6, false);
	memory(&layouts[1], 340, false);
	memory(&layouts[1], 4096, false);
	memory(&layouts[5], 340, false);
	memory(&layouts[5], 4096, false);
	/* narrow: 340 lines fit in a page, as an unprivileged write must */
	memory(&layouts[0], 340, true);
	memory(&layouts[2], 340, true);
	memory(&layouts[5], 340, true);
}

/* "idmap_bench mem": the memory figures alone. */
int main(int argc, char **argv)
{
	unsigned int i, s, w, first = 1;

	/* One link of measure_exec()'s chain. */
	if (argc == 3 && !strcmp(argv[1], "exec")) {
		unsigned int k = strtoul(argv[2], NULL, 10);
		char arg[16];

		if (k <= 1)
			return 0;
		snprintf(arg, sizeof(arg), "%u", k - 1);
		execl("/proc/self/exe", argv[0], "exec", arg, (char *)NULL);
		return 127;
	}
	if (readlink("/proc/self/exe", self_path, sizeof(self_path) - 1) < 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "mem")) {
		memories();
		fwrite(results, 1, results_len, stdout);
		return 0;
	}

	if (argc > 1 && !strcmp(argv[1], "walks")) {
		mem_windows = true;
		first = 2;
	}
	/* No size named: all of them (walks: 1 and 64). */
	for (s = 0; s < NR_SIZES; s++)
		size_wanted[s] = argc == (int)first &&
				 (!mem_windows || sizes[s] == 1 || sizes[s] == 64);
	for (i = first; i < (unsigned int)argc; i++) {
		char *end;
		unsigned long n = strtoul(argv[i], &end, 10);

		for (s = 0; s < NR_SIZES && (*end || n != sizes[s]); s++)
			;
		if (s == NR_SIZES) {
			fprintf(stderr, "idmap_bench: no size %s; the sizes are 1 2 3 5 6 16 64 340 1024 4096, or \"mem\", or \"walks\" and sizes\n",
				argv[i]);
			return 2;
		}
		size_wanted[s] = true;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(DISK, F_OK) == 0) {
		mkdir(DISK_MNT, 0755);
		mkdir(IDMAPPED, 0755);
		have_disk = mount(DISK, DISK_MNT, "ext4", 0, NULL) == 0;
		if (!have_disk)
			perror("mount " DISK);
	}
	if (have_disk) {
		char path[64];

		make_walk_tree(DISK_MNT);
		/* All files first, then read-only: no disk I/O while timing. */
		for (w = 0; w < NR_LAYOUTS; w++)
			for (s = 0; s < NR_SIZES; s++) {
				unsigned int t = layouts[w].make(sizes[s]);

				disk_file(path, sizeof(path), DISK_MNT, &layouts[w], sizes[s]);
				set_owner(path, ext_first[t]);
			}
		sync();
		if (mount(NULL, DISK_MNT, NULL, MS_REMOUNT | MS_RDONLY, NULL))
			perror("remount " DISK_MNT " read-only");
	}
	for (i = 0; i < SPREAD; i++)
		snprintf(spread_path[i], sizeof(spread_path[i]), "/tmp/s%u", i);
	/* The floor: the same stat in the initial namespace. */
	set_owner("/tmp/b-first", 100001);
	if (!mem_windows)
		report("stat_init_ns", 0, "-", measure(do_stat, "/tmp/b-first", ITERS));
	make_walk_tree("/tmp");
	all_walks(0, "-", false);
	if (!mem_windows) {
		measure_exec(0, "-");
		processes();
	}
	/* A kernel without user namespaces: only those floors. */
	if (access("/proc/self/ns/user", F_OK)) {
		fwrite(results, 1, results_len, stdout);
		return 0;
	}
	for (w = 0; w < NR_LAYOUTS; w++)
		for (s = 0; s < NR_SIZES; s++)
			if (size_wanted[s] && (!mem_windows || layouts[w].full))
				run(&layouts[w], sizes[s]);
	if (argc == 1)
		memories();
	fwrite(results, 1, results_len, stdout);
	return 0;
}
