/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shapes.h: the map shapes of the benchmark (idmap_bench.c) and of the
 * cache-line model (cachelines.c), so that both measure the same maps.
 */
#ifndef BENCH_SHAPES_H
#define BENCH_SHAPES_H

#include <stdbool.h>

#define MAXN 4096

/*
 * Map shapes.  Each fills ext_first, ext_lower (kernel ids: the maps are
 * written from the initial namespace) and ext_count for N extents, and
 * names the extent whose ids the "_last" workloads use:
 *  narrow:    first 2i, lower 1000 + 2i, one id: the shortest text (340
 *             lines fit in stock's page), evenly spread
 *  wide:      ten-digit ids in both columns, 100 ids every 200000
 *  clustered: N - 1 single ids side by side, and 65536 ids at kernel id
 *             100000000 (host users mapped one by one beside a
 *             subordinate range); the owner is in the last single id
 *  bimodal:   single ids, half near 1000, half near 3000000000
 *  random:    1 to 64 ids, random gaps (fixed seed)
 *  worst:     the shape that makes our index search longest (the KUnit
 *             suite's search: a crowded node of the root's widest slot);
 *             the owner is at the end of the crowd
 */
static unsigned int ext_first[MAXN], ext_lower[MAXN], ext_count[MAXN];

struct layout {
	const char *name;
	unsigned int (*make)(unsigned int n);	/* returns the target extent */
	bool full;				/* every workload, not the main ones */
};

static unsigned int set_extent(unsigned int i, unsigned int first,
			       unsigned int lower, unsigned int count)
{
	ext_first[i] = first;
	ext_lower[i] = lower;
	ext_count[i] = count;
	return i;
}

static unsigned int make_narrow(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		set_extent(i, 2 * i, 1000 + 2 * i, 1);
	return n - 1;
}

static unsigned int make_wide(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		set_extent(i, 1000000000 + i * 200000, 2000000000 + i * 200000, 100);
	return n - 1;
}

static unsigned int make_clustered(unsigned int n)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i++)
		set_extent(i, i, 1000 + i, 1);
	set_extent(n - 1, 100000, 100000000, 65536);
	return n >= 2 ? n - 2 : 0;
}

static unsigned int make_bimodal(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (i < n / 2)
			set_extent(i, i, 1000 + i, 1);
		else
			set_extent(i, 2000000000 + i, 3000000000U + i, 1);
	return n - 1;
}

static unsigned int make_random(unsigned int n)
{
	unsigned int i, first = 0, lower = 1000, count, state = 2463534242U;

	for (i = 0; i < n; i++) {
		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		count = 1 + state % 64;
		first += state % (2 * (1U << 20) / n + 1);
		lower += (state >> 8) % (2 * (1U << 20) / n + 1);
		set_extent(i, first, lower, count);
		first += count;
		lower += count;
	}
	return n - 1;
}

static unsigned int pow2_at_least(unsigned int n)
{
	unsigned int p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/* Room in one inner slot of a node of @m keys in a root slot of 2^@shift. */
static unsigned int crowd(unsigned int shift, unsigned int m)
{
	unsigned long long slot = 1ULL << shift;
	unsigned int nshift = 0;

	while (((unsigned int)(slot - 3) >> nshift) >= pow2_at_least(m))
		nshift++;
	return m - 1 < (1U << nshift) ? m - 1 : 1U << nshift;
}

/*
 * As make_worst() in kernel/user_idmap_kunit.c: ids 0 and 4294967293, the
 * root's (2 * roundup_pow_of_two(n) slots) slot 1 holding m keys, c of them side by side at its start and
 * the rest spread to its end, everything else one per root slot; m is the
 * one that makes c largest.
 */
static unsigned int make_worst(unsigned int n)
{
	unsigned int p = 2 * pow2_at_least(n), shift = 0, m, best = 3, c, i, k = 0, rest, w;
	unsigned long long slot;

	if (n < 6)
		return make_narrow(n);
	while ((4294967293U >> shift) >= p)
		shift++;
	slot = 1ULL << shift;
	for (m = 3; m <= n - 2; m++)
		if (crowd(shift, m) > crowd(shift, best))
			best = m;
	m = best;
	c = crowd(shift, m);
	set_extent(k++, 0, 0, 1);
	for (i = 0; i < c; i++, k++)
		set_extent(k, slot + 1 + i, slot + 1 + i, 1);
	rest = m - c;
	w = (unsigned int)((slot - 2 - c) / rest);
	for (i = 1; i <= rest; i++, k++) {
		unsigned int pos = (unsigned int)(2 * slot - 2) - (rest - i) * w;

		set_extent(k, pos, pos, 1);
	}
	for (i = 2; k < n - 1; i++, k++)
		set_extent(k, (unsigned int)(i * slot), (unsigned int)(i * slot), 1);
	set_extent(k, 4294967293U, 4294967293U, 1);
	return c;
}

static const struct layout layouts[] = {
	{ "narrow", make_narrow, true },
	{ "wide", make_wide, true },
	{ "clustered", make_clustered, false },
	{ "bimodal", make_bimodal, false },
	{ "random", make_random, false },
	{ "worst", make_worst, false },
};

#define NR_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

#endif /* BENCH_SHAPES_H */
