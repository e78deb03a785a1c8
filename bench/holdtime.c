// SPDX-License-Identifier: GPL-2.0
/*
 * holdtime: write uid_maps of several sizes, three times each, so that a
 * kernel built with bench/hold-{stock,patched}.patch prints how long each
 * write held userns_state_mutex ("@@HOLD <extents> <ns>"; under QEMU
 * -icount shift=0 one ns is one instruction).  Ids as in the benchmark's
 * narrow and wide shapes; N = 340 narrow is the largest map stock takes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int write_uid_map(pid_t pid, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	static const unsigned int sizes[] = { 6, 340, 4096 };
	static char text[4096 * 40];
	unsigned int s, i, r, wide;
	int p[2], q[2];
	char *t;
	pid_t pid;

	for (wide = 0; wide < 2; wide++)
		for (s = 0; s < 3; s++) {
			for (t = text, i = 0; i < sizes[s]; i++)
				t += wide ? sprintf(t, "%u %u 100\n", 1000000000 + i * 200000,
						    2000000000 + i * 200000) :
					    sprintf(t, "%u %u 1\n", 2 * i, 1000 + 2 * i);
			for (r = 0; r < 3; r++) {
				char c;

				if (pipe(p) || pipe(q))
					return 1;
				pid = fork();
				if (pid == 0) {
					close(p[1]);
					close(q[0]);
					/* Unshare, say so, wait until the parent is done. */
					if (unshare(CLONE_NEWUSER) || write(q[1], "u", 1) != 1 ||
					    read(p[0], &c, 1) < 0)
						_exit(1);
					_exit(0);
				}
				close(p[0]);
				close(q[1]);
				if (read(q[0], &c, 1) != 1)
					return 1;
				close(q[0]);
				printf("@@WRITE %s %u %s\n", wide ? "wide" : "narrow", sizes[s],
				       write_uid_map(pid, text) ? "rejected" : "ok");
				close(p[1]);
				waitpid(pid, NULL, 0);
			}
		}
	return 0;
}
