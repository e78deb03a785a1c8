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
 * Output: a markdown table per map shape (bench/shapes.h), N -> lines per
 * lookup (mean and worst) over one id inside each extent and one id just
 * outside it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

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
struct index_model {
	const uint16_t *slot;
	uint32_t base;
	uint16_t slots;
	uint8_t shift;
};

struct map_model {
	uint32_t nr_extents;
	union {
		struct extent extent[BASE_EXTENTS];
		struct {
			/* stock: the two arrays; ours: those and their indexes */
			const struct extent *forward, *reverse;
			struct index_model down, up;
			uint32_t size;
		};
	};
} __attribute__((aligned(LINE)));

struct node_model {
	uint32_t base;
	uint16_t last, lo;
	uint8_t shift;
	uint16_t slot[];
};

#define NODE 0x8000

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

static const struct node_model *node_of(const struct index_model *ix, uint32_t slot)
{
	return (const void *)((const char *)ix->slot + 4 * (slot - NODE));
}

/* Ours: map_id_up() -> index_find(), the up index. */
static int ours_up(const struct map_model *m, uint32_t id)
{
	const struct index_model *ix = &m->up;
	const struct extent *ext = m->reverse;
	const struct node_model *node;
	uint32_t pos, slot, lo, hi, mid;

	touch(&m->nr_extents, 4);
	if (m->nr_extents <= BASE_EXTENTS) {
		/*
		 * The slots until one holds the id (those past nr are zero),
		 * the last one only if in use.
		 */
		for (lo = 0; lo < BASE_EXTENTS; lo++) {
			if (lo == BASE_EXTENTS - 1 && m->nr_extents < BASE_EXTENTS)
				return 0;
			touch(&m->extent[lo], 12);
			if (id - m->extent[lo].lower_first < m->extent[lo].count)
				return 1;
		}
		return 0;
	}
	touch(ix, sizeof(*ix));
	touch(&m->reverse, 8);
	pos = (id - ix->base) >> ix->shift;
	if (pos >= ix->slots)
		return 0;
	touch(&ix->slot[pos], 2);
	slot = ix->slot[pos];
	if (!(slot & NODE)) {
		touch(&ext[slot + 1].lower_first, 4);
		lo = slot + (ext[slot + 1].lower_first <= id);
	} else {
		node = node_of(ix, slot);
		touch(node, 10);
		pos = (id - node->base) >> node->shift;
		if (pos > node->last) {
			/* below base, or past the last key inside */
			if (id < node->base) {
				lo = node->lo;
			} else {
				touch(&node->slot[node->last + 1], 2);
				lo = node->slot[node->last + 1];
			}
		} else {
			touch(&node->slot[pos], 4);
			lo = node->slot[pos];
			hi = node->slot[pos + 1];
			while (lo < hi) {
				mid = (lo + hi + 1) / 2;
				touch(&ext[mid].lower_first, 4);
				if (ext[mid].lower_first <= id)
					lo = mid;
				else
					hi = mid - 1;
			}
		}
	}
	touch(&ext[lo], 12);
	return id - ext[lo].lower_first < ext[lo].count;
}

static uint32_t pow2_ceil(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint8_t index_shift(uint32_t span_last, uint32_t nr)
{
	uint8_t shift = 0;

	while ((span_last >> shift) >= nr)
		shift++;
	return shift;
}

static uint32_t last_at_most(const struct extent *e, uint32_t nr, uint32_t i, uint64_t id)
{
	while (i + 1 < nr && e[i + 1].lower_first <= id)
		i++;
	return i;
}

/* index_fill() of kernel/user_idmap.c for the up index: size, or fill. */
static uint32_t fill_up(struct index_model *ix, const struct extent *e, uint32_t nr,
			uint16_t *slot)
{
	uint32_t span_last = e[nr - 1].lower_first + (e[nr - 1].count - 1) - e[0].lower_first;
	uint32_t b, c, i = 0, j, k, used, nbase, nspan, nlast;
	uint64_t start;
	uint8_t nshift;

	ix->base = e[0].lower_first;
	ix->shift = index_shift(span_last, 2 * pow2_ceil(nr));
	ix->slots = (span_last >> ix->shift) + 1;
	used = (ix->slots * 2 + 3) & ~3u;
	for (b = 0; b < ix->slots; b++) {
		start = ix->base + ((uint64_t)b << ix->shift);
		i = last_at_most(e, nr, i, start);
		j = last_at_most(e, nr, i, start + (1ULL << ix->shift) - 1);
		if (j - i <= 1) {
			if (slot)
				slot[b] = i;
			continue;
		}
		nbase = e[i + 1].lower_first;
		nspan = e[j].lower_first - nbase;
		nshift = index_shift(nspan, pow2_ceil(j - i));
		nlast = nspan >> nshift;
		if (slot) {
			struct node_model *node = (struct node_model *)((char *)slot + used);

			node->base = nbase;
			node->last = nlast;
			node->lo = i;
			node->shift = nshift;
			for (c = 0, k = i + 1; c <= nlast; c++) {
				k = last_at_most(e, nr, k, nbase + ((uint64_t)c << nshift));
				node->slot[c] = k;
			}
			node->slot[c] = j;
			slot[b] = NODE | used / 4;
		}
		used += (10 + 2 * (nlast + 2) + 3) & ~3u;
	}
	return used;
}

/* build_idmap(): the reverse array and its index, where they would lie. */
static void build_ours(struct map_model *m, const struct extent *sorted, uint32_t nr)
{
	uint32_t bytes, ext_bytes = (nr + 1) * sizeof(struct extent);
	size_t size, align;
	char *p;

	bytes = fill_up(&m->up, sorted, nr, NULL);
	/* the down index: assume it is as large as the up one */
	size = 2 * ext_bytes + 2 * bytes;
	/* kmalloc() up to a page (power-of-two objects), vmalloc() beyond */
	align = size > 4096 ? 4096 : pow2_ceil(size);
	p = aligned_alloc(align, (size + align - 1) / align * align);
	m->forward = (struct extent *)p;
	m->reverse = (struct extent *)(p + ext_bytes);
	memcpy((void *)m->reverse, sorted, nr * sizeof(struct extent));
	((struct extent *)m->reverse)[nr] = (struct extent){ UINT32_MAX, UINT32_MAX, 0 };
	m->up.slot = (uint16_t *)(p + 2 * ext_bytes + bytes);
	fill_up(&m->up, sorted, nr, (uint16_t *)m->up.slot);
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
	unsigned int l, s, i, k;

	for (l = 0; l < NR_LAYOUTS; l++) {
		printf("%s| %s: N | stock: lines per lookup (mean / worst) |"
		       " ours: lines per lookup (mean / worst) |\n", l ? "\n" : "",
		       layouts[l].name);
		printf("|---|---|---|\n");
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t nr = sizes[s];
			struct extent *ext = calloc(nr, sizeof(*ext));
			struct map_model *ms = aligned_alloc(LINE, sizeof(*ms));
			struct map_model *mo = aligned_alloc(LINE, sizeof(*mo));
			double sum[2] = { 0, 0 };
			int worst[2] = { 0, 0 }, n = 0;

			layouts[l].make(nr);
			for (i = 0; i < nr; i++) {
				ext[i].first = ext_first[i];
				ext[i].lower_first = ext_lower[i];
				ext[i].count = ext_count[i];
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
					uint32_t id = ext[i].lower_first +
						      (k ? ext[i].count : ext[i].count / 2);

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
	}
	return 0;
}
