// SPDX-License-Identifier: GPL-2.0
/*
 * idmap_fuzz: a seeded, grammar-aware generator of id-map write scenarios,
 * run in the guest on the stock and on the patched kernel alike; the host
 * (scripts/fuzz-compare.py) compares the two transcripts.
 *
 * A scenario: a tree of one to three user namespaces (ancestors set up with
 * fixed, valid maps: identity, a 65536-id range, the rootless layout, seven
 * extents, or an unprivileged user's self map), created by root or by an
 * unprivileged user; one fuzzed write to the deepest namespace's uid, gid or
 * projid map, by its parent's root, by itself, or by the initial namespace's
 * root; optionally a setgroups write before it and another after.  The map
 * text comes from a grammar (boundary ids, ids at the parent's extent edges,
 * overlaps, wraps, zero counts, white space, signs, hex, leading zeros,
 * over-long numbers, junk, blank lines, CRs, 1 to 4097 lines), from byte
 * mutations of such a text (replaced, inserted, deleted bytes, NULs), or is
 * random bytes.
 *
 * Recorded, for each scenario: the errno of every write (the fuzzed one, then
 * a second, minimal valid map by the same writer: it must succeed when the
 * first failed, as a failed write changes nothing), the map read back from
 * the initial namespace, the parent and the namespace itself, and lookups at
 * every edge of every line (the first and last 4 lines): an id set as fsuid
 * or fsgid inside and a file created there, its owner seen from the initial
 * namespace; files owned by kernel ids at the edges of the lower ranges,
 * their owners seen from inside.
 *
 * A model of stock's parser, of its permission rules for the writers this
 * generator makes, and of the ancestors' maps prints, beside the
 * transcript, which documented class of difference a scenario may fall in
 * (over stock's size limits; a range split across the parent's extents)
 * and, for the map the kernel installed (the fuzzed one or the second),
 * what the namespace reads back and what each lookup must return.  Lines
 * of the transcript start with '@' (scenario), 'S', 'M', 'G' (generator and
 * model: the same on both kernels), 'K' (what the kernel did) or 'E' (the
 * model of what the kernel installed).
 *
 * Usage: idmap_fuzz SEED COUNT [FIRST]   scenarios FIRST .. FIRST+COUNT-1
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#define DIR_FZ		"/tmp/fz"
#define MAX_BUF		(160 * 1024)
#define MAX_LINES	4200
#define MAX_PROBES	32
#define USER_ID		1000

/* ---- deterministic random numbers (splitmix64) ---- */
static uint64_t rstate;

static uint64_t rnd(void)
{
	uint64_t z = (rstate += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

/* percent chance */
static int chance(int pct)
{
	return (int)rn(100) < pct;
}

static void die(const char *what)
{
	fprintf(stderr, "idmap_fuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- maps of the model ---- */
struct ext {
	uint64_t first, lower, count;
};

struct map {
	int nr;
	struct ext e[MAX_LINES];
};

/* Ancestor templates, written to all three maps of the namespace. */
struct tmpl {
	const char *name;
	const char *text;	/* as written */
	int unpriv;		/* created and written by USER_ID itself */
};

static const struct tmpl l1_tmpl[] = {
	{ "range", "0 100000 65536\n", 0 },
	{ "rootless", "0 1000 1\n1 100000 65536\n", 0 },
	{ "seven", "0 100000 1000\n1000 200000 1000\n2000 300000 1000\n"
		   "3000 3000 1\n5000 400000 10\n6000 500000 20\n7000 600000 1\n", 0 },
	{ "self", "0 1000 1\n", 1 },
};

/* Maps of a level-2 ancestor, in level-1 ids: valid without splitting. */
static const char *const l2_tmpl[] = {
	"0 0 1\n",
	"0 1 999\n",
	"0 1 100\n100 200 100\n200 0 1\n",
	"0 0 1\n1000 1000 500\n2000 2000 1000\n",
	"0 3000 1\n1 1000 10\n11 6000 20\n",
};

static int parse_u(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > 0xffffffffffULL)
			x = 0xffffffffffULL;
		s++;
	}
	*p = s;
	*v = x;
	return 0;
}

static void tmpl_parse(const char *text, struct map *m)
{
	const char *p = text;

	m->nr = 0;
	while (*p) {
		struct ext *e = &m->e[m->nr++];

		parse_u(&p, &e->first);
		parse_u(&p, &e->lower);
		parse_u(&p, &e->count);
		while (*p == '\n')
			p++;
	}
}

/* id of a map's upper (namespace) side to its lower side; -1: unmapped */
static int64_t map_down(const struct map *m, uint64_t id)
{
	for (int i = 0; i < m->nr; i++)
		if (id >= m->e[i].first && id - m->e[i].first < m->e[i].count)
			return (int64_t)(m->e[i].lower + (id - m->e[i].first));
	return -1;
}

static int64_t map_up(const struct map *m, uint64_t id)
{
	for (int i = 0; i < m->nr; i++)
		if (id >= m->e[i].lower && id - m->e[i].lower < m->e[i].count)
			return (int64_t)(m->e[i].first + (id - m->e[i].lower));
	return -1;
}

/*
 * Stock's parser (map_write() in 6.1), as a model: the text up to its first
 * NUL, lines split on '\n' (a final one optional), per line white space,
 * three fields read with simple_strtoul() base 10 (no sign, no prefix,
 * wrapping on overflow, then truncated to u32), the first two followed by
 * white space, nothing but white space after the third; EINVAL for an id
 * of 4294967295, a zero count or a range that wraps, a range overlapping an
 * earlier line's (either column), no line.  Returns 0 and the lines (the
 * model of an installed map), or -1 (EINVAL).  Stock's 340-line limit is
 * not modelled: the 'limits' class of the comparison covers it.
 */
static int isspace_k(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static uint32_t strtoul_k(char **p)
{
	uint64_t x = 0;
	char *s = *p;

	while (*s >= '0' && *s <= '9')
		x = x * 10 + (uint64_t)(*s++ - '0');
	*p = s;
	return (uint32_t)x;
}

static char *skip_k(char *s)
{
	while (isspace_k((unsigned char)*s))
		s++;
	return s;
}

static int model_parse(const char *buf, size_t len, struct map *m)
{
	static char text[MAX_BUF + 1];
	char *pos, *next;

	memcpy(text, buf, len);
	text[len] = '\0';
	m->nr = 0;
	for (pos = text; pos; pos = next) {
		uint32_t f, l, c;

		next = strchr(pos, '\n');
		if (next) {
			*next++ = '\0';
			if (!*next)
				next = NULL;
		}
		pos = skip_k(pos);
		f = strtoul_k(&pos);
		if (!isspace_k((unsigned char)*pos))
			return -1;
		pos = skip_k(pos);
		l = strtoul_k(&pos);
		if (!isspace_k((unsigned char)*pos))
			return -1;
		pos = skip_k(pos);
		c = strtoul_k(&pos);
		if (*pos && !isspace_k((unsigned char)*pos))
			return -1;
		pos = skip_k(pos);
		if (*pos)
			return -1;
		if (f == UINT32_MAX || l == UINT32_MAX)
			return -1;
		if ((uint32_t)(f + c) <= f || (uint32_t)(l + c) <= l)
			return -1;
		for (int i = 0; i < m->nr; i++) {
			const struct ext *o = &m->e[i];

			if (o->first <= f + (uint64_t)c - 1 && o->first + o->count - 1 >= f)
				return -1;
			if (o->lower <= l + (uint64_t)c - 1 && o->lower + o->count - 1 >= l)
				return -1;
		}
		if (m->nr >= MAX_LINES - 1)
			return -1;
		m->e[m->nr++] = (struct ext){ f, l, c };
	}
	return m->nr ? 0 : -1;
}

/* ---- the scenario ---- */
enum { T_UID, T_GID, T_PROJID };
static const char *const type_name[] = { "uid", "gid", "projid" };
enum { W_PARENT, W_SELF, W_INIT };
static const char *const writer_name[] = { "parent", "self", "init" };
enum { SG_NONE, SG_DENY, SG_ALLOW, SG_JUNK };
static const char *const sg_name[] = { "none", "deny", "allow", "junk" };

struct scenario {
	int depth;		/* 1..3: level of the target namespace */
	int l1;			/* l1_tmpl index (depth >= 2) */
	int l2;			/* l2_tmpl index (depth 3) */
	int user_creator;	/* depth 1: target created by USER_ID */
	int nofcap;		/* depth 1, root: created without CAP_SETFCAP */
	int type, writer, sg, sg_after;
	const char *gen;
	char *buf;
	size_t len;
	/* model */
	struct map parent;	/* the parent's map, parent ids -> grandparent */
	struct map chain[2];	/* ancestors' maps, outermost first */
	int nchain;
	uint32_t creator_id;	/* creator's euid/egid in the parent's ids */
};

static struct scenario sc;
static struct map model;	/* the fuzzed text, parsed as stock would */

/* parent's ids of the target's lower side -> kernel ids; -1 unmapped */
static int64_t to_kernel(uint64_t id)
{
	int64_t v = (int64_t)id;

	for (int i = sc.nchain - 1; i >= 0 && v >= 0; i--)
		v = map_down(&sc.chain[i], (uint64_t)v);
	return v;
}

static int64_t from_kernel(uint64_t k)
{
	int64_t v = (int64_t)k;

	for (int i = 0; i < sc.nchain && v >= 0; i++)
		v = map_up(&sc.chain[i], (uint64_t)v);
	return v;
}

/* ---- generator ---- */
static char *out;
static size_t olen;

static void emit(const char *s)
{
	size_t n = strlen(s);

	if (olen + n < MAX_BUF) {
		memcpy(out + olen, s, n);
		olen += n;
	}
}

static void emitc(char c)
{
	if (olen + 1 < MAX_BUF)
		out[olen++] = c;
}

/* clean: plain decimal numbers and single spaces; else anything goes */
static int noisy;

static const char *sep(void)
{
	static const char *const s[] = { "\t", "  ", " \t ", "" };

	return !noisy || chance(92) ? " " : s[rn(4)];
}

static void emit_num(uint64_t v)
{
	char b[64];
	int k = noisy ? (int)rn(100) : 0;

	if (k < 88)
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	else if (k < 90)
		snprintf(b, sizeof(b), "000%llu", (unsigned long long)v);
	else if (k < 92)
		snprintf(b, sizeof(b), "+%llu", (unsigned long long)v);
	else if (k < 93)
		snprintf(b, sizeof(b), "-%llu", (unsigned long long)v);
	else if (k < 95)
		snprintf(b, sizeof(b), "0x%llx", (unsigned long long)v);
	else if (k < 96)
		snprintf(b, sizeof(b), "%llu%s", (unsigned long long)v, "000000000000000000000");
	else if (k < 97)
		snprintf(b, sizeof(b), "00000000000000000000000000000%llu", (unsigned long long)v);
	else if (k < 98)
		snprintf(b, sizeof(b), "%llu%c", (unsigned long long)v, "x,.#"[rn(4)]);
	else
		snprintf(b, sizeof(b), "%s", "");
	emit(b);
}

static uint64_t boundary(void)
{
	static const uint64_t b[] = {
		0, 1, 2, 999, 1000, 1001, 65535, 65536, 65537, 99999, 100000,
		165535, 165536, 2147483647ULL, 2147483648ULL, 4294967293ULL,
		4294967294ULL, 4294967295ULL, 4294967296ULL, 18446744073709551615ULL,
	};

	return b[rn(sizeof(b) / sizeof(b[0]))];
}

/* an id near an edge of the parent's map (its upper side) */
static uint64_t parent_edge(void)
{
	/* the initial namespace maps everything: edges of typical ranges */
	static const struct ext init_edges[] = {
		{ 0, 0, 1 }, { 1000, 1000, 1 }, { 100000, 100000, 65536 },
		{ 200000, 200000, 1000 }, { 4294900000ULL, 4294900000ULL, 67295 },
	};
	const struct ext *e;

	if (chance(noisy ? 25 : 5))
		return boundary();
	if (!sc.nchain)
		e = &init_edges[rn(sizeof(init_edges) / sizeof(init_edges[0]))];
	else
		e = &sc.parent.e[rn((uint32_t)sc.parent.nr)];
	switch (rn(6)) {
	case 0: return e->first ? e->first - 1 : 0;
	case 1: return e->first;
	case 2: return e->first + e->count - 1;
	case 3: return e->first + e->count;
	case 4: return e->first + rn((uint32_t)e->count);
	default: return rn(200000);
	}
}

static uint64_t gen_count(uint64_t lower)
{
	int64_t k;

	uint32_t c = noisy ? rn(10) : 1 + rn(9);

	if (!noisy && chance(30))
		c = 4;
	switch (c) {
	case 0: return 0;
	case 1: case 2: return 1;
	case 3: return 1 + rn(10);
	case 4:	/* to the end of the parent's extent holding lower */
		for (int i = 0; i < sc.parent.nr; i++) {
			const struct ext *e = &sc.parent.e[i];

			if (lower >= e->first && lower - e->first < e->count)
				return e->first + e->count - lower + (chance(30) ? 1 : 0);
		}
		return 1;
	case 5:	/* into the parent's next extent */
		k = (int64_t)rn(3) + 1;
		return 1000 + (uint64_t)k * 1000;
	case 6: return 65536 + rn(3) - 1;
	case 7: return noisy ? boundary() : 1 + rn(100);
	default: return 1 + rn(2000);
	}
}

static void gen_line(uint64_t first, uint64_t lower, uint64_t count)
{
	if (!noisy) {
		char b[80];

		snprintf(b, sizeof(b), "%llu %llu %llu", (unsigned long long)first,
			 (unsigned long long)lower, (unsigned long long)count);
		emit(b);
		return;
	}
	if (chance(3))
		emit(chance(50) ? " " : "\t");
	emit_num(first);
	emit(sep());
	emit_num(lower);
	emit(sep());
	emit_num(count);
	if (chance(3))
		emit(chance(50) ? " " : " \t");
	if (chance(1))
		emit(" 7");
}

static void gen_structured(void)
{
	int k = (int)rn(100), n;
	uint64_t next = 0, lnext = 0;

	if (k < 35)
		n = 1;
	else if (k < 72)
		n = 2 + (int)rn(4);
	else if (k < 90)
		n = 6 + (int)rn(7);
	else if (k < 95)
		n = 13 + (int)rn(30);
	else
		n = (int)(uint32_t[]){ 338, 339, 340, 341, 342, 1000, 4095, 4096, 4097 }[rn(9)];

	if (n > 40) {
		/* many lines: regular, mostly valid, sometimes one bad line */
		uint64_t stride = 1 + rn(3), base = rn(2) ? 0 : 100000, bad = rn(3) ? (uint64_t)n : rn((uint32_t)n);
		int wide = chance(30);

		sc.gen = "many";
		noisy = 0;
		for (int i = 0; i < n; i++) {
			uint64_t f = (wide ? 3000000000ULL : 0) + (uint64_t)i * stride;
			uint64_t l = base + (uint64_t)i * stride;

			if ((uint64_t)i == bad)
				l = base;	/* overlaps line 0 */
			if (sc.depth > 1 || sc.user_creator)
				l = (uint64_t)i * stride % 1000;
			gen_line(f, l, 1);
			emitc('\n');
		}
		return;
	}
	sc.gen = "lines";
	for (int i = 0; i < n; i++) {
		uint64_t first, lower, count;

		first = chance(60) ? next : chance(noisy ? 50 : 10) ? boundary() : rn(1000000);
		lower = i && chance(noisy ? 20 : 70) ? lnext + (chance(80) ? 0 : rn(3)) : parent_edge();
		if (sc.writer == W_SELF && chance(50))
			lower = sc.creator_id;
		count = gen_count(lower);
		if (chance(noisy ? 10 : 3))
			first = next ? next - 1 : 0;	/* overlap */
		gen_line(first, lower, count);
		next = first + (count < 100000 ? count : 1);
		lnext = lower + (count < 100000 ? count : 1);
		if (i < n - 1 || chance(60)) {
			if (noisy && chance(3))
				emitc('\r');
			emitc('\n');
		}
		if (noisy && chance(4))
			emitc('\n');
	}
}

static void mutate(void)
{
	static const char cs[] = " \t\n0123456789+-x";
	int n = 1 + (int)rn(3);

	sc.gen = "mutated";
	for (int i = 0; i < n; i++) {
		size_t at = olen ? rn((uint32_t)olen) : 0;
		char c = chance(70) ? cs[rn(sizeof(cs) - 1)] : chance(50) ? '\0' : (char)rn(256);

		switch (rn(4)) {
		case 0:
			if (olen)
				out[at] = c;
			break;
		case 1:
			if (olen + 1 < MAX_BUF) {
				memmove(out + at + 1, out + at, olen - at);
				out[at] = c;
				olen++;
			}
			break;
		case 2:
			if (olen) {
				memmove(out + at, out + at + 1, olen - at - 1);
				olen--;
			}
			break;
		default: {
			size_t l = rn(16);

			if (at + l <= olen && olen + l < MAX_BUF) {
				memmove(out + at + l, out + at, olen - at);
				olen += l;
			}
			break;
		}
		}
	}
}

static void gen_raw(void)
{
	static const char cs[] = " \t\n0123456789";
	size_t n = rn(48);

	sc.gen = "raw";
	for (size_t i = 0; i < n; i++)
		emitc(chance(90) ? cs[rn(sizeof(cs) - 1)] : (char)rn(256));
}

static void gen_scenario(uint64_t seed, uint64_t idx)
{
	int k;

	rstate = seed * 0x100000001b3ULL ^ (idx + 1) * 0x9e3779b97f4a7c15ULL;
	rnd();
	memset(&sc, 0, offsetof(struct scenario, parent));
	sc.parent.nr = 0;
	sc.nchain = 0;
	k = (int)rn(100);
	sc.depth = k < 55 ? 1 : k < 90 ? 2 : 3;
	sc.type = (int)rn(3);
	sc.l1 = (int)rn(4);
	if (sc.depth == 3 && l1_tmpl[sc.l1].unpriv)
		sc.l1 = 0;
	sc.l2 = (int)rn(sizeof(l2_tmpl) / sizeof(l2_tmpl[0]));
	sc.user_creator = sc.depth == 1 && chance(40);
	sc.nofcap = sc.depth == 1 && !sc.user_creator && chance(15);
	k = (int)rn(100);
	sc.writer = k < 70 ? W_PARENT : (k < 95 || sc.depth == 1) ? W_SELF : W_INIT;
	k = (int)rn(100);
	sc.sg = k < 50 ? SG_NONE : k < 85 ? SG_DENY : k < 95 ? SG_ALLOW : SG_JUNK;
	sc.sg_after = chance(10);

	/* the chain of ancestors' maps and the target's parent map */
	if (sc.depth >= 2)
		tmpl_parse(l1_tmpl[sc.l1].text, &sc.chain[sc.nchain++]);
	if (sc.depth >= 3)
		tmpl_parse(l2_tmpl[sc.l2], &sc.chain[sc.nchain++]);
	if (sc.nchain) {
		sc.parent = sc.chain[sc.nchain - 1];
	} else {
		sc.parent.nr = 1;
		sc.parent.e[0] = (struct ext){ 0, 0, 4294967295ULL };
	}
	sc.creator_id = sc.depth == 1 && sc.user_creator ? USER_ID : 0;

	olen = 0;
	noisy = chance(25);
	k = (int)rn(100);
	if (k < 75) {
		gen_structured();
	} else if (k < 95) {
		gen_structured();
		mutate();
	} else {
		gen_raw();
	}
	sc.buf = out;
	sc.len = olen;
}

/* ---- servers: one process per namespace level, driven over pipes ---- */
enum { OP_UNSHARE, OP_CRED, OP_NOFCAP, OP_SPAWN, OP_WRITE, OP_READ, OP_PROBE, OP_EXIT };

struct req {
	int op, a, b;
	int len;
	char path[64];
};

struct rep {
	int rc;
	int len;
};

static int cmdfd[4][2], repfd[4][2];
static pid_t pids[4];
static char *io;	/* request / reply data */

static void xread(int fd, void *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			_exit(3);
		}
		p = (char *)p + r;
		n -= (size_t)r;
	}
}

static void xwrite(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			_exit(3);
		}
		p = (const char *)p + r;
		n -= (size_t)r;
	}
}

/* A probe: forward (id inside -> file owner outside) or reverse. */
struct probe {
	int fwd;
	uint32_t id;
};

static int do_write(const char *path, const char *d, size_t n)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1000 - errno;
	r = write(fd, d, n);
	if (r < 0)
		r = -errno;
	else if ((size_t)r != n)
		r = -999;	/* short write */
	else
		r = 0;
	close(fd);
	return (int)r;
}

static int do_read(const char *path, char *d, size_t cap)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, d + n, cap - n);

		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap)
			break;
	}
	close(fd);
	return (int)n;
}

static int do_probes(int type, int n, char *d)
{
	struct probe p[2 * MAX_PROBES];
	int64_t res[2 * MAX_PROBES];
	char path[64];

	memcpy(p, d, (size_t)n * sizeof(p[0]));
	for (int j = 0; j < n; j++) {
		struct stat st;

		if (p[j].fwd) {
			int fd;

			if (type == T_UID) {
				setfsuid(p[j].id);
				if ((uint32_t)setfsuid(p[j].id) != p[j].id) {
					res[j] = -1;	/* could not be set */
					continue;
				}
			} else {
				setfsgid(p[j].id);
				if ((uint32_t)setfsgid(p[j].id) != p[j].id) {
					res[j] = -1;
					continue;
				}
			}
			snprintf(path, sizeof(path), DIR_FZ "/f%d", j);
			fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			res[j] = fd < 0 ? -1000 - errno : 0;
			if (fd >= 0)
				close(fd);
		} else {
			snprintf(path, sizeof(path), DIR_FZ "/r%d", j);
			if (stat(path, &st))
				res[j] = -1000 - errno;
			else
				res[j] = type == T_UID ? st.st_uid : st.st_gid;
		}
	}
	memcpy(d, res, (size_t)n * sizeof(res[0]));
	return n * (int)sizeof(res[0]);
}

/* Drop CAP_SETFCAP from the effective and permitted sets. */
static int drop_setfcap(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_SETFCAP / 32].effective &= ~(1U << (CAP_SETFCAP % 32));
	d[CAP_SETFCAP / 32].permitted &= ~(1U << (CAP_SETFCAP % 32));
	d[CAP_SETFCAP / 32].inheritable &= ~(1U << (CAP_SETFCAP % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static void __attribute__((noreturn)) serve(int level)
{
	struct req q;
	struct rep r;

	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		xread(cmdfd[level][0], &q, sizeof(q));
		if (q.len)
			xread(cmdfd[level][0], io, (size_t)q.len);
		r.len = 0;
		switch (q.op) {
		case OP_UNSHARE:
			r.rc = unshare(CLONE_NEWUSER) ? -errno : 0;
			break;
		case OP_CRED:
			setgroups(0, NULL);
			r.rc = 0;
			if (setresgid((gid_t)q.b, (gid_t)q.b, (gid_t)q.b))
				r.rc = -errno;
			else if (setresuid((uid_t)q.a, (uid_t)q.a, (uid_t)q.a))
				r.rc = -errno;
			prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
			break;
		case OP_NOFCAP:
			r.rc = drop_setfcap();
			break;
		case OP_SPAWN:
			r.rc = fork();
			if (r.rc == 0)
				serve(level + 1);
			if (r.rc < 0)
				r.rc = -errno;
			break;
		case OP_WRITE:
			r.rc = do_write(q.path, io, (size_t)q.len);
			break;
		case OP_READ:
			r.rc = do_read(q.path, io, MAX_BUF);
			r.len = r.rc > 0 ? r.rc : 0;
			break;
		case OP_PROBE:
			r.len = do_probes(q.a, q.b, io);
			r.rc = 0;
			break;
		default:
			_exit(0);
		}
		xwrite(repfd[level][1], &r, sizeof(r));
		if (r.len)
			xwrite(repfd[level][1], io, (size_t)r.len);
	}
}

/* level 0 is this process itself */
static int call(int level, int op, int a, int b, const char *path, const char *d, int len,
		char *reply)
{
	struct req q = { op, a, b, len, "" };
	struct rep r;

	if (level == 0) {
		if (op == OP_WRITE)
			return do_write(path, d, (size_t)len);
		if (op == OP_READ)
			return do_read(path, reply, MAX_BUF);
		return -9999;
	}
	if (path)
		snprintf(q.path, sizeof(q.path), "%s", path);
	xwrite(cmdfd[level][1], &q, sizeof(q));
	if (len)
		xwrite(cmdfd[level][1], d, (size_t)len);
	xread(repfd[level][0], &r, sizeof(r));
	if (r.len)
		xread(repfd[level][0], reply, (size_t)r.len);
	return op == OP_PROBE ? r.len : r.rc;
}

/* ---- transcript ---- */
static const char *ename(int rc)
{
	static char b[32];
	int e = rc <= -1000 ? -rc - 1000 : -rc;
	const char *n;

	if (rc >= 0)
		return "OK";
	switch (e) {
	case EPERM: n = "EPERM"; break;
	case EINVAL: n = "EINVAL"; break;
	case EACCES: n = "EACCES"; break;
	case ENOMEM: n = "ENOMEM"; break;
	case EFAULT: n = "EFAULT"; break;
	case ENOENT: n = "ENOENT"; break;
	case EOVERFLOW: n = "EOVERFLOW"; break;
	case E2BIG: n = "E2BIG"; break;
	case ENOSPC: n = "ENOSPC"; break;
	case EEXIST: n = "EEXIST"; break;
	default: n = NULL; break;
	}
	if (rc == -999)
		return "SHORT";
	if (n)
		snprintf(b, sizeof(b), "%s%s", rc <= -1000 ? "open:" : "", n);
	else
		snprintf(b, sizeof(b), "%s%d", rc <= -1000 ? "open:" : "e", e);
	return b;
}

static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}

static void print_text(const char *tag, const char *d, int n)
{
	int lines = 0;

	if (n < 0) {
		printf("%s %s\n", tag, ename(n));
		return;
	}
	for (int i = 0; i < n; i++)
		lines += d[i] == '\n';
	if (lines > 8) {
		printf("%s lines=%d hash=%016llx\n", tag, lines,
		       (unsigned long long)fnv(d, (size_t)n));
		return;
	}
	printf("%s \"", tag);
	for (int i = 0; i < n; i++) {
		if (d[i] == '\n')
			printf("|");
		else if (d[i] == ' ' && i + 1 < n && d[i + 1] == ' ')
			continue;	/* columns: squeeze padding */
		else
			putchar(d[i]);
	}
	printf("\"\n");
}

static void print_buf(void)
{
	printf("M len=%zu hash=%016llx", sc.len, (unsigned long long)fnv(sc.buf, sc.len));
	if (sc.len <= 200) {
		printf(" text=");
		for (size_t i = 0; i < sc.len; i++) {
			unsigned char c = (unsigned char)sc.buf[i];

			if (c > ' ' && c < 127 && c != '\\')
				putchar(c);
			else
				printf("\\x%02x", c);
		}
	}
	printf("\n");
}

static const char *map_file(int type)
{
	return type == T_UID ? "uid_map" : type == T_GID ? "gid_map" : "projid_map";
}

static char *reply;
static int gen_only;	/* IDMAP_FUZZ_GEN_ONLY: print the scenarios, run nothing */

/* Set up the ancestors and the target; returns 0 or a setup error. */
static int setup(void)
{
	char path[64], txt[64];
	int rc;

	for (int l = 1; l <= sc.depth; l++) {
		int creator = l - 1;

		if (l == 1) {
			pids[1] = fork();
			if (pids[1] < 0)
				die("fork");
			if (pids[1] == 0)
				serve(1);
		} else {
			rc = call(creator, OP_SPAWN, 0, 0, NULL, NULL, 0, reply);
			if (rc < 0)
				return rc;
			pids[l] = rc;
		}
		/* an unprivileged creator: USER_ID, before its namespace */
		if (l == 1 && ((sc.depth == 1 && sc.user_creator) ||
			       (sc.depth > 1 && l1_tmpl[sc.l1].unpriv))) {
			rc = call(1, OP_CRED, USER_ID, USER_ID, NULL, NULL, 0, reply);
			if (rc)
				return rc;
		}
		if (l == 1 && sc.nofcap) {
			rc = call(1, OP_NOFCAP, 0, 0, NULL, NULL, 0, reply);
			if (rc)
				return rc;
		}
		rc = call(l, OP_UNSHARE, 0, 0, NULL, NULL, 0, reply);
		if (rc)
			return rc;
		if (l == sc.depth)
			break;
		/* an ancestor: its three maps, then root inside it */
		for (int t = 0; t < 3; t++) {
			const char *m;
			int writer = creator;

			if (l == 1) {
				m = l1_tmpl[sc.l1].text;
				if (l1_tmpl[sc.l1].unpriv) {
					writer = 1;
					if (t == T_GID) {
						rc = call(1, OP_WRITE, 0, 0, "/proc/self/setgroups",
							  "deny", 4, reply);
						if (rc)
							return rc;
					}
				}
			} else {
				m = l2_tmpl[sc.l2];
			}
			snprintf(path, sizeof(path), "/proc/%d/%s", pids[l], map_file(t));
			rc = call(writer, OP_WRITE, 0, 0, path, m, (int)strlen(m), reply);
			if (rc)
				return rc;
		}
		rc = call(l, OP_CRED, 0, 0, NULL, NULL, 0, reply);
		if (rc)
			return rc;
	}
	(void)txt;
	return 0;
}

static void teardown(void)
{
	for (int l = sc.depth; l >= 1; l--)
		if (pids[l] > 0)
			kill(pids[l], SIGKILL);
	/* this process is the subreaper: orphaned levels are reaped here */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	memset(pids, 0, sizeof(pids));
}

static void clean_dir(void)
{
	char path[64];

	for (int j = 0; j < 2 * MAX_PROBES; j++) {
		snprintf(path, sizeof(path), DIR_FZ "/f%d", j);
		unlink(path);
		snprintf(path, sizeof(path), DIR_FZ "/r%d", j);
		unlink(path);
	}
}

static int writer_level(void)
{
	if (sc.writer == W_SELF)
		return sc.depth;
	if (sc.writer == W_INIT)
		return 0;
	return sc.depth - 1;
}

/*
 * Would stock's permission rules (steps 1, 4 and 6 of the reference) let
 * this scenario's writer install the lines @m, their lower ids aside?  The
 * writers here: the parent's root (all capabilities over the parent), the
 * namespace itself (none over its parent), the initial root at depth 2 or
 * 3 (neither the namespace nor its parent: refused).
 */
static int model_permitted(const struct map *m)
{
	int lower0 = 0;

	if (sc.writer == W_INIT)
		return 0;
	for (int i = 0; i < m->nr; i++)
		lower0 |= m->e[i].lower == 0;
	if (sc.type == T_PROJID)
		return 1;
	if (sc.writer == W_PARENT)
		return 1;
	/* itself: one id, its creator's own, and for uid 0 CAP_SETFCAP */
	if (m->nr != 1 || m->e[0].count != 1 || m->e[0].lower != sc.creator_id)
		return 0;
	if (sc.type == T_UID)
		return !(lower0 && sc.nofcap);
	return sc.sg == SG_DENY;
}

/* What the namespace reads back from its own map file, as print_text() shows it. */
static void expect_self(const struct map *m)
{
	static char text[MAX_LINES * 33 + 1];
	struct ext sorted[MAX_LINES];
	int n = m->nr, len = 0;

	memcpy(sorted, m->e, (size_t)n * sizeof(sorted[0]));
	/* stored inline, in the order written; beyond 5, sorted by first */
	if (n > 5)
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && sorted[j - 1].first > sorted[j].first; j--) {
				struct ext t = sorted[j];

				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
	for (int i = 0; i < n; i++)
		len += sprintf(text + len, "%10u %10u %10u\n", (unsigned int)sorted[i].first,
			       (unsigned int)sorted[i].lower, (unsigned int)sorted[i].count);
	print_text("E R self", text, len);
}

static int in_model_lines(const struct map *m, uint64_t x, int64_t *down)
{
	*down = map_down(m, x);
	return *down >= 0;
}

static void run_scenario(uint64_t seed, uint64_t idx)
{
	struct probe pr[2 * MAX_PROBES];
	int np = 0, rc, wl, parsed, limits, split = 0, tl = 0, all_covered = 1, perm;
	char path[64], w2[64];
	const struct map *installed = NULL;
	struct map second;

	gen_scenario(seed, idx);
	printf("@ %llu\n", (unsigned long long)idx);
	printf("S depth=%d l1=%s l2=%d creator=%s type=%s writer=%s setgroups=%s after=%d gen=%s%s\n",
	       sc.depth, sc.depth > 1 ? l1_tmpl[sc.l1].name : "-", sc.depth > 2 ? sc.l2 : -1,
	       sc.depth == 1 && sc.user_creator ? "user" : sc.nofcap ? "root-nofcap" : "root",
	       type_name[sc.type],
	       writer_name[sc.writer], sg_name[sc.sg], sc.sg_after, sc.gen,
	       noisy ? ",noisy" : "");
	print_buf();

	/* model: the classes this scenario may fall in */
	parsed = model_parse(sc.buf, sc.len, &model) == 0;
	for (size_t i = 0; i < sc.len; i++)
		tl += sc.buf[i] == '\n';
	if (sc.len && sc.buf[sc.len - 1] != '\n')
		tl++;
	limits = sc.len >= 4096 || tl > 340;
	if (parsed) {
		for (int i = 0; i < model.nr; i++) {
			const struct ext *e = &model.e[i];
			uint64_t x = e->lower, end = e->lower + e->count;
			int inside = 0, covered = 1;

			for (int j = 0; j < sc.parent.nr; j++) {
				const struct ext *p = &sc.parent.e[j];

				if (x >= p->first && end <= p->first + p->count)
					inside = 1;
			}
			/* covered by the union of the parent's extents? */
			while (!inside && x < end) {
				int64_t d = -1;

				for (int j = 0; j < sc.parent.nr; j++) {
					const struct ext *p = &sc.parent.e[j];

					if (x >= p->first && x - p->first < p->count)
						d = (int64_t)(p->first + p->count);
				}
				if (d < 0) {
					covered = 0;
					break;
				}
				x = (uint64_t)d;
			}
			if (!inside && covered)
				split = 1;
			if (!covered)
				all_covered = 0;
		}
	}
	perm = parsed && model_permitted(&model);
	printf("G parsed=%d lines=%d limits=%d split=%d covered=%d perm=%d priv=%d\n", parsed,
	       parsed ? model.nr : -1, limits, split, parsed && all_covered, perm,
	       writer_level() == 0);

	if (gen_only)
		return;
	clean_dir();
	rc = setup();
	if (rc) {
		printf("K setup %s\n", ename(rc));
		teardown();
		return;
	}
	wl = writer_level();

	/* setgroups before the write, by the writer */
	if (sc.sg != SG_NONE) {
		static const char *const t[] = { "", "deny", "allow\n", "denyx" };

		snprintf(path, sizeof(path), "/proc/%d/setgroups", pids[sc.depth]);
		rc = call(wl, OP_WRITE, 0, 0, path, t[sc.sg], (int)strlen(t[sc.sg]), reply);
		printf("K SG %s\n", ename(rc));
	}
	snprintf(path, sizeof(path), "/proc/%d/%s", pids[sc.depth], map_file(sc.type));
	rc = call(wl, OP_WRITE, 0, 0, path, sc.buf, (int)sc.len, reply);
	printf("K W1 %s\n", ename(rc));
	if (rc == 0 && parsed)
		installed = &model;
	snprintf(w2, sizeof(w2), "0 %u 1\n", sc.creator_id);
	rc = call(wl, OP_WRITE, 0, 0, path, w2, (int)strlen(w2), reply);
	printf("K W2 %s\n", ename(rc));
	if (rc == 0) {
		tmpl_parse(w2, &second);
		installed = &second;
	}
	if (sc.sg_after) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pids[sc.depth]);
		rc = call(wl, OP_WRITE, 0, 0, path, "deny", 4, reply);
		printf("K SG2 %s\n", ename(rc));
	}

	/* read back: initial namespace, parent, the namespace itself */
	snprintf(path, sizeof(path), "/proc/%d/%s", pids[sc.depth], map_file(sc.type));
	rc = call(0, OP_READ, 0, 0, path, NULL, 0, reply);
	print_text("K R init", reply, rc);
	if (sc.depth > 1) {
		rc = call(sc.depth - 1, OP_READ, 0, 0, path, NULL, 0, reply);
		print_text("K R parent", reply, rc);
	}
	snprintf(path, sizeof(path), "/proc/self/%s", map_file(sc.type));
	rc = call(sc.depth, OP_READ, 0, 0, path, NULL, 0, reply);
	print_text("K R self", reply, rc);
	if (installed)
		expect_self(installed);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pids[sc.depth]);
	rc = call(0, OP_READ, 0, 0, path, NULL, 0, reply);
	print_text("K R setgroups", reply, rc);

	if (sc.type == T_PROJID) {
		teardown();
		return;
	}

	/* probes at the edges of the lines (the first and the last four) */
	{
		const struct map *m = parsed ? &model : NULL;
		int nl = m ? m->nr : 0;

		for (int i = 0; i < nl && np < 2 * MAX_PROBES - 8; i++) {
			const struct ext *e = &m->e[i];
			uint64_t f[4] = { e->first - 1, e->first, e->first + e->count - 1,
					  e->first + e->count };
			uint64_t l[4] = { e->lower - 1, e->lower, e->lower + e->count - 1,
					  e->lower + e->count };

			if (i == 4 && nl > 8)
				i = nl - 4;
			for (int k = 0; k < 4; k++) {
				int64_t kid = to_kernel(l[k]);

				/* 65534: setfsuid() cannot tell it from overflowuid */
				if (f[k] < 0xffffffffULL && f[k] != 65534)
					pr[np++] = (struct probe){ 1, (uint32_t)f[k] };
				if (l[k] < 0xffffffffULL && kid >= 0 && kid < 0xffffffffLL)
					pr[np++] = (struct probe){ 0, (uint32_t)kid };
			}
			/* the seams: where an extent of the parent's map ends inside */
			for (int j = 0; j < sc.parent.nr && np < 2 * MAX_PROBES - 12; j++) {
				uint64_t b = sc.parent.e[j].first + sc.parent.e[j].count;

				if (b <= e->lower || b >= e->lower + e->count)
					continue;
				for (uint64_t d = 0; d < 2; d++) {
					uint64_t x = e->first + (b - e->lower) - d;
					int64_t kid = to_kernel(b - d);

					if (x < 0xffffffffULL && x != 65534)
						pr[np++] = (struct probe){ 1, (uint32_t)x };
					if (kid >= 0 && kid < 0xffffffffLL)
						pr[np++] = (struct probe){ 0, (uint32_t)kid };
				}
			}
		}
		if (!np) {
			static const uint32_t d[] = { 0, 1, 1000, 65535 };

			for (int k = 0; k < 4; k++) {
				pr[np++] = (struct probe){ 1, d[k] };
				if (to_kernel(d[k]) >= 0)
					pr[np++] = (struct probe){ 0, (uint32_t)to_kernel(d[k]) };
			}
		}
	}
	for (int j = 0; j < np; j++) {
		if (!pr[j].fwd) {
			int fd;

			snprintf(path, sizeof(path), DIR_FZ "/r%d", j);
			fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd < 0 || fchown(fd, pr[j].id, pr[j].id))
				die("reverse probe file");
			close(fd);
		}
	}
	memcpy(io, pr, (size_t)np * sizeof(pr[0]));
	rc = call(sc.depth, OP_PROBE, sc.type, np, NULL, io, np * (int)sizeof(pr[0]), reply);
	if (rc != np * (int)sizeof(int64_t)) {
		printf("K probe failed\n");
		teardown();
		return;
	}
	{
		int64_t res[2 * MAX_PROBES];

		memcpy(res, reply, (size_t)rc);
		for (int j = 0; j < np; j++) {
			int64_t want, low;
			struct stat st;

			if (pr[j].fwd) {
				long long got = res[j];

				if (got == 0) {
					snprintf(path, sizeof(path), DIR_FZ "/f%d", j);
					if (stat(path, &st))
						die("stat");
					got = sc.type == T_UID ? st.st_uid : st.st_gid;
					printf("K F %u %lld\n", pr[j].id, got);
				} else {
					printf("K F %u %s\n", pr[j].id, got == -1 ? "unset" : ename((int)got));
				}
				/* model: what the installed map makes of it */
				want = -1;
				if (installed && in_model_lines(installed, pr[j].id, &low))
					want = to_kernel((uint64_t)low);
				printf("E F %u %lld\n", pr[j].id, (long long)want);
			} else {
				if (res[j] >= 0)
					printf("K B %u %lld\n", pr[j].id, (long long)res[j]);
				else
					printf("K B %u %s\n", pr[j].id, ename((int)res[j]));
				want = 65534;
				if (installed) {
					int64_t p = from_kernel(pr[j].id);

					if (p >= 0) {
						int64_t up = map_up(installed, (uint64_t)p);

						if (up >= 0)
							want = up;
					}
				}
				printf("E B %u %lld\n", pr[j].id, (long long)want);
			}
		}
	}
	teardown();
}

int main(int argc, char **argv)
{
	uint64_t seed, count, first = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SEED COUNT [FIRST]\n", argv[0]);
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	count = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		first = strtoull(argv[3], NULL, 0);
	gen_only = getenv("IDMAP_FUZZ_GEN_ONLY") != NULL;
	out = malloc(MAX_BUF);
	io = malloc(MAX_BUF);
	reply = malloc(MAX_BUF);
	if (!out || !io || !reply)
		die("malloc");
	if (mkdir(DIR_FZ, 01777) && errno != EEXIST)
		die("mkdir " DIR_FZ);
	chmod(DIR_FZ, 01777);
	for (int l = 1; l <= 3; l++)
		if (pipe(cmdfd[l]) || pipe(repfd[l]))
			die("pipe");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("PR_SET_CHILD_SUBREAPER");
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	printf("# idmap_fuzz seed=%llu first=%llu count=%llu\n", (unsigned long long)seed,
	       (unsigned long long)first, (unsigned long long)count);
	for (uint64_t i = first; i < first + count; i++)
		run_scenario(seed, i);
	printf("# done %llu\n", (unsigned long long)count);
	fflush(stdout);
	return 0;
}
