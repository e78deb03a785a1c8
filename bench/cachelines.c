// SPDX-License-Identifier: GPL-2.0
/*
 * cachelines: how many 64-byte cache lines one id lookup touches, for the
 * stock engine's layout (extents inline up to 5, else a kmalloc'd array
 * sorted by key and searched with bsearch()) and for ours (extents inline
 * up to 5, else a bucket index and a sorted array, see
 * kernel/user_idmap.c).  A cache-cold lookup costs one miss per line.
 *
 * What icount cannot see, counted exactly: both lookups are modelled in
 * user space with the kernel's data layout and search order, every load
 * goes through touch(), and the distinct lines are counted.  The models
 * follow the kernel code of the two engines step for step; the kernel's
 * KUnit suite checks that our lookup gives the right answers.
 *
 * Output: a markdown table, N -> lines per lookup (mean and worst) over one
 * id inside each extent and one id just outside it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define BASE_EXTENTS 5

struct extent {
	uint32_t first, lower_first, count;
};

/* Distinct lines touched by the current lookup. */
static uintptr_t seen[256];
static int nseen;

static void touch(const void *p, size_t size)
{
	uintptr_t l, first = (uintptr_t)p / LINE, last = ((uintptr_t)p + size - 1) / LINE;
	int i;

	for (l = first; l <= last; l++) {
		for (i = 0; i < nseen; i++)
			if (seen[i] == l)
				break;
		if (i == nseen)
			seen[nseen++] = l;
	}
}

/* struct uid_gid_map sits at the start of a 64-byte aligned user_namespace. */
struct map_model {
	uint32_t nr_extents;
	uint32_t pad;
	union {
		struct extent extent[BASE_EXTENTS];
		struct {
			/* ours: two tables of 24 bytes; stock: two pointers */
			struct {
				const struct extent *extent;
				const uint16_t *bucket;
				uint32_t base;
				uint16_t last_bucket;
				uint8_t shift;
			} down, up;
		};
		struct {
			const struct extent *forward, *reverse;
		};
	};
} __attribute__((aligned(LINE)));

static int cmp_lower(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->lower_first < y->lower_first ? -1 : x->lower_first > y->lower_first;
}

/* Stock: map_id_up() -> map_id_up_max() -> bsearch() with cmp_map_id(). */
static int stock_up(const struct map_model *m, uint32_t id)
{
	size_t lo = 0, hi = m->nr_extents;

	touch(&m->nr_extents, 4);
	if (m->nr_extents <= BASE_EXTENTS) {
		for (lo = 0; lo < m->nr_extents; lo++) {
			touch(&m->extent[lo], 12);
			if (id - m->extent[lo].lower_first < m->extent[lo].count)
				return 1;
		}
		return 0;
	}
	touch(&m->reverse, 8);
	/* lib/bsearch.c: halve [lo, hi) until the comparator answers 0. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct extent *e = &m->reverse[mid];

		touch(e, 12);
		if (id >= e->lower_first && id - e->lower_first < e->count)
			return 1;
		if (id < e->lower_first)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* Ours: map_find() -> table_find(), the up table. */
static int ours_up(const struct map_model *m, uint32_t id)
{
	uint32_t bucket, lo, hi, mid;
	const struct extent *e;

	touch(&m->nr_extents, 4);
	if (m->nr_extents <= BASE_EXTENTS)
		return stock_up(m, id);
	touch(&m->up, 24);
	bucket = (id - m->up.base) >> m->up.shift;
	if (bucket > m->up.last_bucket)
		return 0;
	touch(&m->up.bucket[bucket], 4);
	lo = m->up.bucket[bucket];
	hi = m->up.bucket[bucket + 1];
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		touch(&m->up.extent[mid], 4);
		if (m->up.extent[mid].lower_first <= id)
			lo = mid;
		else
			hi = mid - 1;
	}
	e = &m->up.extent[lo];
	touch(e, 12);
	return id - e->lower_first < e->count;
}

static uint32_t pow2_ceil(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The up table as uid_gid_map_install() builds it. */
static void build_ours(struct map_model *m, const struct extent *sorted, uint32_t nr)
{
	uint32_t nb = 2 * pow2_ceil(nr), shift = 0, b, i = 0;
	uint64_t span = (uint64_t)sorted[nr - 1].lower_first + sorted[nr - 1].count -
			sorted[0].lower_first;
	size_t size = 2 * nr * sizeof(struct extent) + 2 * (nb + 1) * 2;
	/* kvmalloc(): power-of-two slab objects up to 8 KiB, else pages */
	size_t align = size > 8192 ? 4096 : pow2_ceil(size);
	struct extent *ext = aligned_alloc(align, (size + align - 1) / align * align);
	uint16_t *bucket;

	memcpy(ext + nr, sorted, nr * sizeof(*ext));
	bucket = (uint16_t *)(ext + 2 * nr) + nb + 1;
	while (((span - 1) >> shift) >= nb)
		shift++;
	m->up.extent = ext + nr;
	m->up.bucket = bucket;
	m->up.base = sorted[0].lower_first;
	m->up.shift = shift;
	m->up.last_bucket = (span - 1) >> shift;
	for (b = 0; b <= m->up.last_bucket + 1u; b++) {
		uint64_t start = m->up.base + ((uint64_t)b << shift);

		while (i + 1 < nr && sorted[i + 1].lower_first <= start)
			i++;
		bucket[b] = i;
	}
}

static void build_stock(struct map_model *m, const struct extent *sorted, uint32_t nr)
{
	/* kmalloc_array(340, 12) and kmemdup(): 4 KiB objects, 4 KiB aligned */
	struct extent *rev = aligned_alloc(4096, 4096 * ((nr * 12 + 4095) / 4096));

	memcpy(rev, sorted, nr * sizeof(*rev));
	m->reverse = rev;
}

int main(void)
{
	static const uint32_t sizes[] = { 1, 5, 6, 16, 64, 340, 1024, 4096 };
	unsigned int s, i, k;

	printf("| N | stock: lines per lookup (mean / worst) | ours: lines per lookup (mean / worst) |\n");
	printf("|---|---|---|\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t nr = sizes[s];
		struct extent *ext = calloc(nr, sizeof(*ext));
		struct map_model *ms = aligned_alloc(LINE, sizeof(*ms));
		struct map_model *mo = aligned_alloc(LINE, sizeof(*mo));
		double sum[2] = { 0, 0 };
		int worst[2] = { 0, 0 }, n = 0;

		/* The benchmark's narrow layout: extent i at 100000 + 200 * i. */
		for (i = 0; i < nr; i++) {
			ext[i].first = 200 * i;
			ext[i].lower_first = 100000 + 200 * i;
			ext[i].count = 100;
		}
		qsort(ext, nr, sizeof(*ext), cmp_lower);
		memset(ms, 0, sizeof(*ms));
		memset(mo, 0, sizeof(*mo));
		ms->nr_extents = mo->nr_extents = nr;
		if (nr <= BASE_EXTENTS) {
			memcpy(ms->extent, ext, nr * sizeof(*ext));
			memcpy(mo->extent, ext, nr * sizeof(*ext));
		} else {
			build_stock(ms, ext, nr);
			build_ours(mo, ext, nr);
		}
		for (i = 0; i < nr; i++) {
			for (k = 0; k < 2; k++) {
				/* inside the extent, then just past it */
				uint32_t id = ext[i].lower_first + (k ? ext[i].count : 1);

				nseen = 0;
				stock_up(ms, id);
				sum[0] += nseen;
				worst[0] = nseen > worst[0] ? nseen : worst[0];
				nseen = 0;
				ours_up(mo, id);
				sum[1] += nseen;
				worst[1] = nseen > worst[1] ? nseen : worst[1];
				n++;
			}
		}
		printf("| %u | %s%.2f / %d | %.2f / %d |\n", nr,
		       nr > 340 ? "(stock refuses; model) " : "",
		       sum[0] / n, worst[0], sum[1] / n, worst[1]);
	}
	return 0;
}
