// SPDX-License-Identifier: GPL-2.0
/*
 * idmap_profile: the guest side of 'make profile' (scripts/profile.sh).
 *
 *   idmap_profile WORKLOAD CALLS [userns]
 *
 * Prepares the workload, prints "@@PROFILE-READY" and waits for a line on
 * standard input (the console): meanwhile the host turns on QEMU's
 * per-instruction execution log.  Then it calls getppid() (the start
 * marker), runs the workload CALLS times, calls getppid() again (the end
 * marker) and prints "@@PROFILE-DONE".  The host counts the instructions
 * between the two markers, per function, and divides by CALLS.
 *
 * Workloads, in the initial user namespace, or with "userns" in a child
 * user namespace whose uid and gid maps are "0 100000 65536":
 *   stat       stat("/tmp/b-first"), a tmpfs file owned by 100001:100001
 *   fstat      fstat() of that file
 *   getresuid  getresuid() and getresgid()
 *   fchown     fchown() of that file to its own owner
 *   setfsuid   setfsuid() to the file's owner (a credential made, then freed)
 *   writeN     write() of an N-extent uid_map (1 <= N <= 4096), bench's
 *              narrow shape ("2i 1000+2i 1"), to a fresh child namespace
 *              each call: the children are made, and their map files
 *              opened, before the log starts (not with "userns")
 *   reverseN   the same lines, written last to first: the kernel must
 *              sort them
 *   crossN     first in order, lower ids the other way ("2i 1000+2(N-1-i)
 *              1"): the two columns must be sorted apart, the most sorting
 *   open1, stat1, access1, open8, stat8, access8
 *              openat()+close(), fstatat(), faccessat(R_OK) of a tmpfs
 *              file 1 or 8 components below a directory's fd (/tmp/pw)
 *   fork       fork(), the child exits at once, waitpid()
 *   execve     the same, the child execs this program first ("exit")
 *   clone_newuser, unshare_newuser
 *              fork's loop, the child made with CLONE_NEWUSER, or
 *              unsharing its user namespace before it exits
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <errno.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define FILE_PATH "/tmp/b-first"
#define OWNER 100001

static int fd;
static char *map_text;		/* writeN: the map written, map_len bytes */
static size_t map_len;
static int *map_fds, map_next;
static unsigned int owner = OWNER;	/* as the workload's namespace sees it */

static int write_file(const char *path, const char *text)
{
	int f = open(path, O_WRONLY);
	int ok = f >= 0 && write(f, text, strlen(text)) == (ssize_t)strlen(text);

	if (f >= 0)
		close(f);
	if (!ok)
		perror(path);
	return ok ? 0 : -1;
}

/*
 * Fork a child into a new user namespace with both maps "0 100000 65536";
 * returns 0 in the child, which runs the workload, and the child's exit
 * status (or 1) in the parent.
 */
static int enter_userns(void)
{
	int go[2], in[2], status;
	char path[64], c;
	pid_t pid;

	if (pipe(go) || pipe(in))
		return perror("pipe"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		/* In the namespace, tell the parent; it writes the maps. */
		if (unshare(CLONE_NEWUSER))
			perror("unshare"), exit(1);
		if (write(in[1], "u", 1) != 1 || read(go[0], &c, 1) != 1)
			exit(1);
		owner = OWNER - 100000;
		return 0;
	}
	if (read(in[0], &c, 1) != 1)
		return waitpid(pid, &status, 0), 1;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (write_file(path, "0 100000 65536\n"))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	if (write_file(path, "0 100000 65536\n"))
		return 1;
	if (write(go[1], "m", 1) != 1)
		return perror("write"), 1;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int do_stat(void)
{
	struct stat st;

	return stat(FILE_PATH, &st);
}

static int do_fstat(void)
{
	struct stat st;

	return fstat(fd, &st);
}

static int do_getresuid(void)
{
	uid_t r, e, s;
	gid_t gr, ge, gs;

	return getresuid(&r, &e, &s) | getresgid(&gr, &ge, &gs);
}

static int do_fchown(void)
{
	return fchown(fd, owner, owner);
}

/* setfsuid() returns the previous fsuid: the owner, once set. */
static int do_setfsuid(void)
{
	return setfsuid(owner) != (int)owner;
}

/* Write the next fresh namespace's uid_map. */
static int do_write(void)
{
	return write(map_fds[map_next++], map_text, map_len) != (ssize_t)map_len;
}

/*
 * For writeN: @count children, each in a user namespace of its own with
 * no map yet, and their uid_map files open for writing.  The children
 * wait until the pipe's write end, kept open, closes at exit.
 */
static int make_namespaces(unsigned int n, char order, long count)
{
	int go[2], in[2];
	char path[64], c, *p;
	unsigned int i;
	long k;
	pid_t pid;

	map_text = malloc(n * 24 + 1);
	map_fds = calloc(count, sizeof(*map_fds));
	if (!map_text || !map_fds || pipe(go) || pipe(in))
		return perror("make_namespaces"), 1;
	for (i = 0, p = map_text; i < n; i++) {
		unsigned int first = order == 'r' ? n - 1 - i : i;
		unsigned int lower = order == 'c' ? n - 1 - i : first;

		p += sprintf(p, "%u %u 1\n", 2 * first, 1000 + 2 * lower);
	}
	map_len = p - map_text;
	for (k = 0; k < count; k++) {
		pid = fork();
		if (pid < 0)
			return perror("fork"), 1;
		if (pid == 0) {
			close(go[1]);
			if (unshare(CLONE_NEWUSER) || write(in[1], "u", 1) != 1)
				_exit(1);
			/* Until the parent exits. */
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
		if (read(in[0], &c, 1) != 1)
			return fprintf(stderr, "idmap_profile: child %d failed\n", pid), 1;
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		map_fds[k] = open(path, O_WRONLY);
		if (map_fds[k] < 0)
			return perror(path), 1;
	}
	close(go[0]);
	return 0;
}

/* The path walks below /tmp/pw: the directory's fd and the two files. */
#define WALK_DIR "/tmp/pw"
#define WALK8 "a/b/c/d/e/f/g/f"
static int walk_fd = -1;

static int make_walk_tree(void)
{
	char path[64];
	const char *p;
	int f;

	mkdir(WALK_DIR, 0755);
	for (p = WALK8; (p = strchr(p, '/')); p++) {
		snprintf(path, sizeof(path), WALK_DIR "/%.*s", (int)(p - WALK8), WALK8);
		mkdir(path, 0755);
	}
	f = open(WALK_DIR "/f", O_CREAT | O_WRONLY, 0644);
	if (f >= 0)
		close(f);
	f = open(WALK_DIR "/" WALK8, O_CREAT | O_WRONLY, 0644);
	if (f >= 0)
		close(f);
	walk_fd = open(WALK_DIR, O_PATH | O_DIRECTORY);
	return walk_fd < 0 ? perror(WALK_DIR), -1 : 0;
}

static int open_close(const char *path)
{
	int f = openat(walk_fd, path, O_RDONLY);

	return f < 0 ? -1 : close(f);
}

static int do_open1(void) { return open_close("f"); }
static int do_open8(void) { return open_close(WALK8); }

static int do_stat1(void)
{
	struct stat st;

	return fstatat(walk_fd, "f", &st, 0);
}

static int do_stat8(void)
{
	struct stat st;

	return fstatat(walk_fd, WALK8, &st, 0);
}

static int do_access1(void) { return faccessat(walk_fd, "f", R_OK, 0); }
static int do_access8(void) { return faccessat(walk_fd, WALK8, R_OK, 0); }

static char *self;	/* this program, for execve */

/* A child made by @flags (0: a plain fork) that runs @child; its status. */
static int spawn(unsigned long flags, int (*child)(void))
{
	pid_t pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
	int status;

	if (pid == 0)
		_exit(child());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int child_exit(void) { return 0; }
static int child_exec(void) { return execl(self, self, "exit", (char *)NULL), 127; }
static int child_unshare(void) { return unshare(CLONE_NEWUSER) ? errno : 0; }

static int do_fork(void) { return spawn(0, child_exit); }
static int do_execve(void) { return spawn(0, child_exec); }
static int do_clone_newuser(void) { return spawn(CLONE_NEWUSER, child_exit); }
static int do_unshare_newuser(void) { return spawn(0, child_unshare); }

static const struct {
	const char *name;
	int (*fn)(void);
} workloads[] = {
	{ "stat", do_stat },
	{ "fstat", do_fstat },
	{ "getresuid", do_getresuid },
	{ "fchown", do_fchown },
	{ "setfsuid", do_setfsuid },
	{ "open1", do_open1 },
	{ "open8", do_open8 },
	{ "stat1", do_stat1 },
	{ "stat8", do_stat8 },
	{ "access1", do_access1 },
	{ "access8", do_access8 },
	{ "fork", do_fork },
	{ "execve", do_execve },
	{ "clone_newuser", do_clone_newuser },
	{ "unshare_newuser", do_unshare_newuser },
};

int main(int argc, char **argv)
{
	int (*fn)(void) = NULL;
	char line[16];
	long calls, i;
	unsigned int w;

	/* The child of the execve workload. */
	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	self = argv[0];
	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "userns"))) {
		fprintf(stderr, "usage: %s WORKLOAD CALLS [userns]\n", argv[0]);
		return 2;
	}
	for (w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++)
		if (!strcmp(argv[1], workloads[w].name))
			fn = workloads[w].fn;
	calls = strtol(argv[2], NULL, 10);
	/* Its namespaces are the initial one's children. */
	if ((!strncmp(argv[1], "write", 5) || !strncmp(argv[1], "reverse", 7) ||
	     !strncmp(argv[1], "cross", 5)) && argc == 3) {
		char order = argv[1][0];
		const char *num = argv[1] + (order == 'r' ? 7 : 5);
		char *end;
		unsigned long n = strtoul(num, &end, 10);

		if (end != num && *num != '-' && !*end && n >= 1 && n <= 4096 &&
		    calls >= 1) {
			fn = do_write;
			/* The warm-up's calls, the check's, and the log's. */
			if (make_namespaces(n, order, 17 + calls))
				return 1;
		}
	}
	if (!fn || calls < 1) {
		fprintf(stderr, "idmap_profile: unknown workload '%s' or bad count '%s'\n",
			argv[1], argv[2]);
		return 2;
	}

	fd = open(FILE_PATH, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || fchown(fd, OWNER, OWNER)) {
		perror(FILE_PATH);
		return 1;
	}
	if (make_walk_tree())
		return 1;
	if (argc == 4) {
		int rc = enter_userns();

		if (rc || owner == OWNER)
			return rc;
	}
	/* Warm every cache the workload uses before the log starts. */
	for (i = 0; i < 16; i++)
		fn();
	/* What is profiled must be the call that works, not its error path. */
	if (fn()) {
		fprintf(stderr, "idmap_profile: %s fails in this namespace\n", argv[1]);
		return 1;
	}

	printf("@@PROFILE-READY\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "idmap_profile: no go from the host\n");
		return 1;
	}
	syscall(SYS_getppid);
	for (i = 0; i < calls; i++)
		fn();
	syscall(SYS_getppid);
	printf("@@PROFILE-DONE\n");
	fflush(stdout);
	return 0;
}
