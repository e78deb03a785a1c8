// SPDX-License-Identifier: GPL-2.0
/* Naive references, compiled without sanitizers (and vectorized): a linear
 * scan over every extent, in 64-bit arithmetic. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
typedef uint32_t u32; typedef uint64_t u64;
#define U32_MAX UINT32_MAX

/* id -> other column, or U32_MAX; *hits gets the number of extents holding id */
u32 ref_lookup(const u32 *key, const u32 *other, const u32 *cnt, u32 n, u32 id, u32 *hitsp)
{
	u32 res = 0, hits = 0, i;

	for (i = 0; i < n; i++) {
		int h = (u64)id >= key[i] && (u64)id < (u64)key[i] + cnt[i];
		hits += h;
		res += h ? other[i] + (id - key[i]) : 0;
	}
	if (hitsp)
		*hitsp = hits;
	return hits == 1 ? res : U32_MAX;
}

/* The range [id, id + count) inside one extent (by key): other + offset, else U32_MAX */
u32 ref_range(const u32 *key, const u32 *other, const u32 *cnt, u32 n, u32 id, u32 count)
{
	u32 i;

	for (i = 0; i < n; i++)
		if ((u64)id >= key[i] && (u64)id + count <= (u64)key[i] + cnt[i] && count)
			return other[i] + (id - key[i]);
	return U32_MAX;
}

/* Do two extents meet in either column?  Every pair. */
int ref_overlap(const u32 *first, const u32 *lower, const u32 *cnt, u32 n)
{
	u32 i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (((u64)first[i] < (u64)first[j] + cnt[j] && (u64)first[j] < (u64)first[i] + cnt[i]) ||
			    ((u64)lower[i] < (u64)lower[j] + cnt[j] && (u64)lower[j] < (u64)lower[i] + cnt[i]))
				return 1;
	return 0;
}

/* How many extents of the parent (keys pfirst, pcnt) the range [lo, lo + c) meets. */
u32 ref_pieces(const u32 *pfirst, const u32 *pcnt, u32 np, u32 lo, u32 c)
{
	u32 i, k = 0;

	for (i = 0; i < np; i++)
		k += (u64)lo < (u64)pfirst[i] + pcnt[i] && (u64)pfirst[i] < (u64)lo + c;
	return k;
}
