// SPDX-License-Identifier: GPL-2.0
/*
 * fourlines: the lookup that issue 8's cache-line target asks for, built
 * and measured, so that its instruction cost is a figure and not an
 * estimate (README, "Why issue 8's two targets ... stay open").
 *
 * The layout touches exactly 4 lines per lookup for any map of up to
 * 14 * 16 * 16 * 5 = 17920 extents, whatever its shape:
 *
 *  - the root: up to 13 keys in struct uid_gid_map's own line (modelled
 *    as 15, the last two U32_MAX, so that one search fits every node);
 *  - an inner line of 15 keys, and below it another: each key is the
 *    first key of the subtree to its right, 16 subtrees a line;
 *  - a line of 5 extents (60 bytes), searched in place.
 *
 * Each line is searched by halving, 4 steps for 16 subtrees and 3 for 5
 * extents: 15 compare steps, the least a comparison search can do with
 * 4 lines (log2(4096) = 12 at best, and lines do not split evenly).  Two
 * spellings are measured, with conditional adds (setcc, no branch) and
 * with branches; the compiler picks its best instructions for each.  The
 * reference is what our kernel does for a one-extent map: test the count
 * and the one extent.
 *
 * Run by scripts/fourlines.sh under valgrind's callgrind (instructions,
 * not time): one process per shape and lookup, counting only inside the
 * lookup function.  Every answer is first checked against a scan of the
 * extents, so the model is a working index, not a sketch.
 *
 * Usage: fourlines SHAPE N LOOKUP, LOOKUP one of one, setcc, branch;
 * prints the number of lookups made.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

#define ROUNDS 20

struct extent {
	uint32_t first, lower_first, count;
};

struct leaf {
	struct extent e[5];
	uint32_t pad;
} __attribute__((aligned(64)));

struct node {
	uint32_t key[15];
	uint32_t pad;
} __attribute__((aligned(64)));

struct map {
	uint32_t nr_extents;
	uint32_t root[15];
	struct node *l2, *l1;
	struct leaf *leaf;
} __attribute__((aligned(64)));

/* Keys at most @id among 15 sorted keys (U32_MAX pads): 0 to 15. */
static inline unsigned int rank_setcc(const uint32_t *key, uint32_t id)
{
	unsigned int r = 0;

	r += (key[r + 7] <= id) << 3;
	r += (key[r + 3] <= id) << 2;
	r += (key[r + 1] <= id) << 1;
	r += key[r] <= id;
	return r;
}

static inline unsigned int rank_branch(const uint32_t *key, uint32_t id)
{
	unsigned int r = 0;

	if (key[r + 7] <= id)
		r += 8;
	if (key[r + 3] <= id)
		r += 4;
	if (key[r + 1] <= id)
		r += 2;
	if (key[r] <= id)
		r += 1;
	return r;
}

/* The last of a line's 5 extents whose first is at most @id (or the first). */
static inline const struct extent *leaf_find(const struct leaf *l, uint32_t id)
{
	unsigned int i = (l->e[2].first <= id) << 1;

	i += l->e[i + 1].first <= id;
	if (i == 3 && l->e[4].first <= id)
		i = 4;
	return &l->e[i];
}

static inline uint32_t extent_down(const struct extent *e, uint32_t id)
{
	if (id - e->first < e->count)
		return id - e->first + e->lower_first;
	return (uint32_t)-1;
}

__attribute__((noinline)) uint32_t find_setcc(const struct map *m, uint32_t id)
{
	unsigned int a = rank_setcc(m->root, id);
	unsigned int b = 16 * a + rank_setcc(m->l2[a].key, id);
	unsigned int c = 16 * b + rank_setcc(m->l1[b].key, id);

	return extent_down(leaf_find(&m->leaf[c], id), id);
}

__attribute__((noinline)) uint32_t find_branch(const struct map *m, uint32_t id)
{
	unsigned int a = rank_branch(m->root, id);
	unsigned int b = 16 * a + rank_branch(m->l2[a].key, id);
	unsigned int c = 16 * b + rank_branch(m->l1[b].key, id);

	return extent_down(leaf_find(&m->leaf[c], id), id);
}

/* Our kernel's one-extent map: the count, then the extent in the map. */
__attribute__((noinline)) uint32_t find_one(const struct map *m, uint32_t id)
{
	const struct extent *e = &m->leaf[0].e[0];

	if (!m->nr_extents)
		return (uint32_t)-1;
	return extent_down(e, id);
}

#define LEAVES (14 * 16 * 16)

static void build(struct map *m, unsigned int n)
{
	unsigned int i;

	m->nr_extents = n;
	m->leaf = aligned_alloc(64, LEAVES * sizeof(struct leaf));
	m->l1 = aligned_alloc(64, LEAVES / 16 * sizeof(struct node));
	m->l2 = aligned_alloc(64, LEAVES / 256 * sizeof(struct node));
	if (!m->leaf || !m->l1 || !m->l2) {
		perror("fourlines");
		exit(2);
	}
	memset(m->leaf, 0xff, LEAVES * sizeof(struct leaf));
	memset(m->l1, 0xff, LEAVES / 16 * sizeof(struct node));
	memset(m->l2, 0xff, LEAVES / 256 * sizeof(struct node));
	memset(m->root, 0xff, sizeof(m->root));
	for (i = 0; i < LEAVES * 5; i++)
		m->leaf[i / 5].e[i % 5].count = 0;
	for (i = 0; i < n; i++)
		m->leaf[i / 5].e[i % 5] = (struct extent){ ext_first[i],
			ext_lower[i], ext_count[i] };
	/* A subtree's separator is its first leaf's first key. */
	for (i = 1; i < LEAVES; i++) {
		uint32_t key = m->leaf[i].e[0].first;

		if (i % 16)
			m->l1[i / 16].key[i % 16 - 1] = key;
		else if (i % 256)
			m->l2[i / 256].key[i / 16 % 16 - 1] = key;
		else
			m->root[i / 256 - 1] = key;
	}
}

static uint32_t scan(unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (id - ext_first[i] < ext_count[i])
			return id - ext_first[i] + ext_lower[i];
	return (uint32_t)-1;
}

int main(int argc, char **argv)
{
	uint32_t (*find)(const struct map *, uint32_t);
	unsigned int n, i, r, s, nids = 0, calls = 0;
	static uint32_t ids[2 * MAXN];
	static struct map m;
	volatile uint32_t sink = 0;

	if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[2]) > MAXN) {
		fprintf(stderr, "usage: fourlines SHAPE N one|setcc|branch\n");
		return 2;
	}
	n = atoi(argv[2]);
	for (s = 0; s < NR_LAYOUTS; s++)
		if (!strcmp(layouts[s].name, argv[1]))
			break;
	if (s == NR_LAYOUTS) {
		fprintf(stderr, "fourlines: no shape %s in bench/shapes.h\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[3], "one"))
		find = find_one;
	else if (!strcmp(argv[3], "setcc"))
		find = find_setcc;
	else if (!strcmp(argv[3], "branch"))
		find = find_branch;
	else {
		fprintf(stderr, "fourlines: no lookup %s\n", argv[3]);
		return 2;
	}
	if (find == find_one)
		n = 1;
	layouts[s].make(n);
	build(&m, n);
	/* An id inside each extent and one just past it, as cachelines.c. */
	for (i = 0; i < n; i++) {
		ids[nids++] = ext_first[i] + ext_count[i] / 2;
		ids[nids++] = ext_first[i] + ext_count[i];
	}
	for (i = 0; i < nids; i++)
		if (find(&m, ids[i]) != scan(n, ids[i])) {
			fprintf(stderr, "fourlines: %s N=%u: id %u maps to %u, not %u\n",
				argv[1], n, ids[i], find(&m, ids[i]), scan(n, ids[i]));
			return 1;
		}
	calls = nids;
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < nids; i++, calls++)
			sink += find(&m, ids[i]);
	printf("%u\n", calls);
	return 0;
}
