// SPDX-License-Identifier: GPL-2.0
/*
 * fourlines: the lookup that issue 8's cache-line target asks for, built
 * and measured, so that its instruction cost is a figure and not an
 * estimate (README, "Why issue 8's two targets ... stay open").
 *
 * The layout touches at most 4 lines per lookup for any map of up to
 * 8 * 16 * 16 * 5 = 10240 extents, whatever its shape:
 *
 *  - the map's own line: the root's 7 keys, and where the rest lies;
 *  - as few inner levels as the map needs (none up to 40 extents, one up
 *    to 640, two beyond), each a line of 15 keys: a key is the first key
 *    of the subtree to its right, 16 subtrees a line;
 *  - a line of 5 extents (60 bytes), searched in place.
 *
 * Each line is searched by halving: 3 steps in the root, 4 in an inner
 * line, 2 or 3 among 5 extents, so 13 to 14 compare steps at 4096
 * extents, 9 to 10 at 340.  The compiler picks its own instructions (gcc
 * -O2: branches).  The reference is what our kernel does for a one-extent
 * map: test the count and the one extent, kept in the map itself.
 *
 * Run by scripts/fourlines.sh under valgrind's callgrind (instructions,
 * not time): one process per shape and size, counting only inside the
 * lookup function.  Every answer is first checked against a scan of the
 * extents, so the model is a working index, not a sketch.
 *
 * Usage: fourlines SHAPE N one|four; prints the number of lookups made
 * and the lines each touches.
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

/* 5 extents (60 bytes) of a line, searched in place. */
struct leaf {
	struct extent e[5];
	uint32_t pad;
} __attribute__((aligned(64)));

/* 15 keys: the first key of each of a node's last 15 of 16 subtrees. */
struct node {
	uint32_t key[15];
	uint32_t pad;
} __attribute__((aligned(64)));

/*
 * The map's own line (48 bytes): the root's 7 keys (8 subtrees), how many
 * inner levels there are below it (0 to 2, as few as the extents need),
 * and one allocation: the nodes of the upper inner level, then those of
 * the lower one, then the leaves.
 */
struct map {
	uint32_t nr_extents;
	uint16_t levels, upper;	/* inner levels; nodes of the upper one */
	uint32_t root[7];
	uint32_t lower;		/* nodes of the lower inner level */
	const struct node *base;
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct map) == 64, "the map is one line");
_Static_assert(__builtin_offsetof(struct map, base) + sizeof(void *) <= 64,
	       "the root and where its subtrees are lie in the map's line");

/*
 * Keys at most @id among @half * 2 - 1 sorted keys (U32_MAX pads): 0 to
 * @half * 2 - 1.  Halving by moving a pointer, not an index: a compare, a
 * branch and an add a step (the loop unrolled: @half is a constant).
 */
static inline unsigned int rank(const uint32_t *key, unsigned int half,
				uint32_t id)
{
	const uint32_t *k = key;

#pragma GCC unroll 4
	for (; half; half /= 2)
		if (k[half - 1] <= id)
			k += half;
	return k - key;
}

#define rank7(key, id)	rank(key, 4, id)
#define rank15(key, id)	rank(key, 8, id)

/* The last of a line's 5 extents whose first is at most @id (or the first). */
static inline const struct extent *leaf_find(const struct leaf *l, uint32_t id)
{
	unsigned int i = 0;

	if (l->e[2].first <= id)
		i = 2;
	if (l->e[i + 1].first <= id)
		i++;
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

/* Root, then as many inner levels as the map has, then its leaf line. */
__attribute__((noinline)) uint32_t find_four(const struct map *m, uint32_t id)
{
	const struct node *n = m->base;
	unsigned int i = rank7(m->root, id);

	switch (m->levels) {
	case 2:
		i = 16 * i + rank15(n[i].key, id);
		n += m->upper;
		/* fall through */
	case 1:
		i = 16 * i + rank15(n[i].key, id);
		n += m->lower;
		/* fall through */
	default:
		break;
	}
	return extent_down(leaf_find((const struct leaf *)n + i, id), id);
}

/* Our kernel's one-extent map: the count, then the extent in the map. */
__attribute__((noinline)) uint32_t find_one(const struct map *m, uint32_t id)
{
	const struct extent *e = (const struct extent *)m->root;

	if (!m->nr_extents)
		return (uint32_t)-1;
	return extent_down(e, id);
}

static void build(struct map *m, unsigned int n)
{
	unsigned int leaves = (n + 4) / 5, span = 1, i, l, nodes[2] = { 0, 0 };
	unsigned int all, total, first;
	struct node *node;
	struct leaf *leaf;

	memset(m, 0, sizeof(*m));
	m->nr_extents = n;
	/* Fewest inner levels: the root has 8 subtrees, a node 16. */
	while (8 * span < leaves && m->levels < 2) {
		span *= 16;
		m->levels++;
	}
	if (8 * span < leaves) {
		fprintf(stderr, "fourlines: %u extents do not fit 4 lines\n", n);
		exit(2);
	}
	/* Nodes per level, the lower level first: one per 16 below. */
	for (l = 0, all = leaves; l < m->levels; l++) {
		all = (all + 15) / 16;
		nodes[l] = all;
	}
	m->lower = m->levels ? nodes[0] : 0;
	m->upper = m->levels == 2 ? nodes[1] : 0;
	total = m->upper + m->lower;
	node = aligned_alloc(64, total * sizeof(*node) + 16 * span * 8 * sizeof(*leaf));
	if (!node) {
		perror("fourlines");
		exit(2);
	}
	memset(node, 0xff, total * sizeof(*node));
	leaf = (struct leaf *)(node + total);
	memset(leaf, 0xff, 16 * span * 8 * sizeof(*leaf));
	for (i = 0; i < 16 * span * 8 * 5; i++)
		leaf[i / 5].e[i % 5].count = 0;
	for (i = 0; i < n; i++)
		leaf[i / 5].e[i % 5] = (struct extent){ ext_first[i],
			ext_lower[i], ext_count[i] };
	memset(m->root, 0xff, sizeof(m->root));
	/*
	 * Leaf i's first key separates it from leaf i - 1 at the level where
	 * their paths part: a lower node's slot, an upper node's, the root's.
	 */
	for (i = 1; i < leaves; i++) {
		first = leaf[i].e[0].first;
		if (m->levels >= 1 && i % 16)
			node[m->upper + i / 16].key[i % 16 - 1] = first;
		else if (m->levels == 2 && i / 16 % 16)
			node[i / 256].key[i / 16 % 16 - 1] = first;
		else
			m->root[i / span - 1] = first;
	}
	m->base = node;
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
		fprintf(stderr, "usage: fourlines SHAPE N one|four\n");
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
	else if (!strcmp(argv[3], "four"))
		find = find_four;
	else {
		fprintf(stderr, "fourlines: no lookup %s\n", argv[3]);
		return 2;
	}
	if (find == find_one)
		n = 1;
	layouts[s].make(n);
	build(&m, n);
	if (find == find_one)	/* the kernel keeps it in the map itself */
		memcpy(m.root, &(struct extent){ ext_first[0], ext_lower[0],
						 ext_count[0] }, sizeof(struct extent));
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
	/* Lines a lookup touches: the map's, its inner levels', a leaf. */
	printf("%u %u\n", calls, 2 + m.levels);
	return 0;
}
