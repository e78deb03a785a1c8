// SPDX-License-Identifier: GPL-2.0
/*
 * make diffcheck: the engine (kernel/user_idmap.c, made to build in user
 * space by gen_engine.py, every function the kernel's) checked against
 * naive linear scans (ref.c) on random and adversarial maps of 1 to 4096
 * extents: fourteen shapes, child maps split across a parent's extents
 * (each written with the split header and again without, where stock's
 * rule must refuse a line no single parent extent holds with EPERM),
 * and writes whose allocations are made to fail.  For each map: the
 * result of the write (errno included) as computed independently, every
 * id at and around every extent's edges and every index slot's edges
 * mapped both ways and as ranges, the index's structure and its memory
 * against the bounds the code states, overlap detection, reading a split
 * map back, copies.  Built with ASan and UBSan; -DPAGE_SIZE= sets the
 * page size the engine is built for.
 *
 *   diffcheck SEED ROUNDS [SHAPE]   ROUNDS maps of each shape (or of SHAPE)
 *   diffcheck -r FILE               one map, lines "first lower count"
 *
 * Exit status 1 on any mismatch (the first 20 maps are written to
 * fail_N.txt, to replay with -r) or WARN_ON_ONCE() hit.
 *
 * map_write() needs the rest of the kernel: write_map() below repeats its
 * steps, and a change to them in the engine must be made here too.
 */
#include "engine.c"
#include <stdarg.h>

int stub_warned, stub_fail_at, stub_failed;
static u64 enomem_checked, enomem_seen;

u32 ref_lookup(const u32 *key, const u32 *other, const u32 *cnt, u32 n, u32 id, u32 *hits);
u32 ref_range(const u32 *key, const u32 *other, const u32 *cnt, u32 n, u32 id, u32 count);
int ref_overlap(const u32 *first, const u32 *lower, const u32 *cnt, u32 n);
u32 ref_pieces(const u32 *pfirst, const u32 *pcnt, u32 np, u32 lo, u32 c);

#define NOID U32_MAX
#define SPACE 0xffffffffULL	/* ids 0 .. U32_MAX - 1: key + count <= U32_MAX */
#define MAXN UID_GID_MAP_MAX_EXTENTS

/* ---------------------------------------------------------------- rng */
static u64 rs;
static u64 rnd64(void)
{
	u64 z = (rs += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static u64 rndn(u64 n) { return n ? rnd64() % n : 0; }	/* [0, n) */
static u32 rnd32(void) { return (u32)rnd64(); }

/* -------------------------------------------------------------- stats */
enum shape { S_EVEN, S_CLUSTERED, S_BIMODAL, S_RANDGAP, S_NESTED, S_TOUCHMAX,
	     S_COUNT1, S_HUGE, S_CROWD, S_STRIDE, S_WORST, S_MAXSIZE, S_SMALL, S_MIXED, S_SPLIT,
	     NR_SHAPES };
static const char *const shape_name[] = {
	"even", "clustered+far", "bimodal", "random-gaps", "nested-scales",
	"touch-U32_MAX-1", "count-1", "huge-counts", "crowd-root-slot",
	"slot-aligned", "worst-search", "max-index-size", "small(1..16)", "mixed", "split(child-of-parent)",
};
struct stats {
	u64 maps, maps_rejected_expected, extents, down, up, range, structural,
	    overlap_checks, split_maps, whole_writes, whole_eperm, mismatches, in_node, unindexed, maxsearch;
	double size_ratio, ix_ratio, search_ratio;
	u32 maxn;
} st[NR_SHAPES];
static int cur_shape;
static u64 total_mismatch;

/* ----------------------------------------------------------- extents */
typedef struct uid_gid_extent ext_t;

/* SoA copies for the reference. */
struct soa { u32 n, *first, *lower, *count; };
static void soa_set(struct soa *s, const ext_t *e, u32 n)
{
	u32 i;
	s->n = n;
	s->first = realloc(s->first, (n + 1) * 4);
	s->lower = realloc(s->lower, (n + 1) * 4);
	s->count = realloc(s->count, (n + 1) * 4);
	for (i = 0; i < n; i++) {
		s->first[i] = e[i].first;
		s->lower[i] = e[i].lower_first;
		s->count[i] = e[i].count;
	}
}

/* ------------------------------------------------ map_write() mirror */
/*
 * What map_write() does after copy_from_user() and before installing,
 * minus the permission checks: parse every line (parse_extent), keep the
 * first 5 in new_map.extent, reparse the rest into a kvmalloc()ed array,
 * extents_overlap(), translate_map() through the parent's map, then
 * build_idmap() with idmap_max_bytes(); install as map_write() does.
 * Returns 0 or the error and *stage: 1 parse, 2 overlap, 3 translate, 4 build.
 */
static int write_map(struct uid_gid_map *map, struct uid_gid_map *parent_map,
		     char *kbuf, bool privileged, u32 max_extents, bool split,
		     int *stage)
{
	struct uid_gid_map new_map;
	unsigned int idx;
	struct uid_gid_extent extent, *ext;
	char *pos, *next_line, *rest = NULL;
	u32 nr = 0;
	ssize_t ret;

	memset(map, 0, sizeof(*map));
	memset(&new_map, 0, sizeof(struct uid_gid_map));
	*stage = 1;
	ret = -EINVAL;
	for (pos = kbuf; pos; pos = next_line) {
		next_line = strchr(pos, '\n');
		if (next_line) {
			*next_line = '\0';
			next_line++;
			if (*next_line == '\0')
				next_line = NULL;
		}
		if (parse_extent(pos, &extent) < 0)
			goto out;
		if (++nr > max_extents)
			goto out;
		if (nr <= UID_GID_MAP_MAX_BASE_EXTENTS)
			new_map.extent[nr - 1] = extent;
		else if (nr == UID_GID_MAP_MAX_BASE_EXTENTS + 1)
			rest = pos;
	}
	if (nr > UID_GID_MAP_MAX_BASE_EXTENTS) {
		ret = -ENOMEM;
		ext = kvmalloc_array(nr, sizeof(*ext), GFP_KERNEL_ACCOUNT);
		if (!ext)
			goto out;
		memcpy(ext, new_map.extent, sizeof(new_map.extent));
		memset(new_map.extent, 0, sizeof(new_map.extent));
		new_map.forward = ext;
		idx = UID_GID_MAP_MAX_BASE_EXTENTS;
		for (pos = rest; idx < nr; idx++, pos += strlen(pos) + 1)
			WARN_ON_ONCE(parse_extent(pos, &ext[idx]));
	} else {
		ext = new_map.extent;
	}
	new_map.nr_extents = nr;

	*stage = 2;
	ret = -EINVAL;
	if (extents_overlap(ext, nr))
		goto out;
	if (new_map.nr_extents == 0)
		goto out;

	*stage = 3;
	ret = translate_map(&new_map, parent_map, max_extents, split);
	if (ret < 0)
		goto out;

	*stage = 4;
	if (new_map.nr_extents > UID_GID_MAP_MAX_BASE_EXTENTS) {
		ret = build_idmap(&new_map, privileged);
		if (ret < 0)
			goto out;
	}

	*stage = 0;
	if (new_map.nr_extents <= UID_GID_MAP_MAX_BASE_EXTENTS) {
		memcpy(map->extent, new_map.extent, sizeof(map->extent));
	} else {
		map->forward = new_map.forward;
		map->reverse = new_map.reverse;
		map->down = new_map.down;
		map->up = new_map.up;
		map->size = new_map.size;
	}
	smp_store_release(&map->nr_extents, new_map.nr_extents);
	ret = 0;
out:
	if (ret < 0 && new_map.nr_extents > UID_GID_MAP_MAX_BASE_EXTENTS)
		kvfree(new_map.forward);
	return ret;
}

/* Lines as text, with some harmless white-space variation. */
static char *render(const ext_t *e, u32 n)
{
	static const char *const ws[] = { " ", "  ", "\t", " \t " };
	char *buf = malloc((size_t)n * 64 + 8), *p = buf;
	bool fancy = rndn(4) == 0;
	u32 i;

	for (i = 0; i < n; i++) {
		if (fancy)
			p += sprintf(p, "%s%u%s%u%s%u%s", rndn(3) ? "" : ws[rndn(4)],
				     e[i].first, ws[rndn(4)], e[i].lower_first,
				     ws[rndn(4)], e[i].count, rndn(3) ? "" : ws[rndn(4)]);
		else
			p += sprintf(p, "%10u %10u %10u", e[i].first, e[i].lower_first, e[i].count);
		if (i + 1 < n || rndn(2))
			*p++ = '\n';
	}
	*p = 0;
	return buf;
}

static int build_from(struct uid_gid_map *map, struct uid_gid_map *parent,
		      const ext_t *e, u32 n, bool priv, u32 maxe, bool split,
		      int *stage)
{
	char *buf = render(e, n);
	int ret = write_map(map, parent, buf, priv, maxe, split, stage);

	free(buf);
	return ret;
}

/* ------------------------------------------------------- generators */

/* 0 .. @n - 1 in @perm, in order or, with @shuffle, in a random order. */
static void permutation(u32 *perm, u32 n, bool shuffle)
{
	u32 i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; shuffle && i > 1; i--) {
		j = rndn(i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

enum { L_DENSE, L_EVEN, L_RANDGAP, L_CLUSTER_FAR, L_FAR_CLUSTER, L_BIMODAL,
       L_NESTED, L_NESTED_REV, L_STRIDE, L_CROWD, L_WORST, L_MAXSIZE, NR_LAYOUTS };

/* Place n extents of counts c[] in order: pos[i] increasing, disjoint. */
static void layout(u32 *pos, const u32 *c, u32 n, int mode, bool endalign)
{
	static u64 g[MAXN + 1];
	u64 T = 0, F, B, used = 0, p;
	u32 i, maxc = 0;
	int s;

	for (i = 0; i < n; i++) {
		T += c[i];
		maxc = max(maxc, c[i]);
	}
	F = SPACE - T;
	memset(g, 0, sizeof(u64) * (n + 1));
	switch (mode) {
	case L_DENSE:
		g[0] = rndn(3) ? rndn(min_t(u64, F, 1 << 20) + 1) : rndn(F + 1);
		break;
	case L_EVEN:
		for (i = 0; i < n; i++)
			g[i] = F / (n + 1);
		if (rndn(2))
			g[0] = 0;
		break;
	case L_RANDGAP:
		B = F >> rndn(40);
		for (i = 0; i < n; i++)
			g[i] = rndn(2 * (B / n) + 1);
		break;
	case L_CLUSTER_FAR:	/* a cluster, then one far away */
	case L_FAR_CLUSTER:	/* one low, then the cluster far away */
		B = rndn(2) ? 0 : rndn(1ULL << rndn(20));
		for (i = 0; i < n; i++)
			g[i] = rndn(B / n + 1);
		g[0] = rndn(2) ? 1000 : rndn(1 << 20);
		i = mode == L_CLUSTER_FAR ? n - 1 : 1;
		if (n > 1)
			g[i] = rndn(2) ? 100000000 : F / 2 + rndn(F / 2);
		break;
	case L_BIMODAL:
		for (i = 0; i < n; i++)
			g[i] = rndn(2) ? 0 : rndn(4);
		g[0] = 1000;
		if (n > 1)
			g[n / 2] = rndn(2) ? 3000000000ULL : rndn(F / 2);
		break;
	case L_NESTED:
	case L_NESTED_REV: {
		/* pairs of keys, each pair far from the rest at a smaller scale */
		for (i = 1; i < n; i++) {
			u32 k = (i - 1) / 2;
			if ((i - 1) % 2 == 0)
				g[i] = k < 62 ? (F >> (k + 1)) : 0;
			else
				g[i] = rndn(3);
			if (rndn(8) == 0)
				g[i] = g[i] / (1 + rndn(3));
		}
		g[0] = rndn(2) ? 0 : rndn(1000);
		if (mode == L_NESTED_REV)	/* reverse the gaps 1..n-1 */
			for (i = 1; i < 1 + (n - 1) / 2; i++) {
				u64 t = g[i]; g[i] = g[n - i]; g[n - i] = t;
			}
		break;
	}
	case L_STRIDE: {
		/* keys at base + i * 2^s (+/- 1): on the root's slot edges */
		int lo = 64 - __builtin_clzll((u64)maxc + 2);	/* 2^lo > maxc + 2 */
		int hi = 63 - __builtin_clzll(SPACE / (n + 1));
		u64 stride, base;
		if (lo > hi) {
			layout(pos, c, n, L_RANDGAP, endalign);
			return;
		}
		s = lo + rndn(hi - lo + 1);
		stride = 1ULL << s;
		base = rndn(SPACE - stride * n + 1);
		for (i = 0; i < n; i++) {
			int j = rndn(4) == 0 ? (int)rndn(3) - 1 : 0;
			if (i == 0 && j < 0)
				j = 0;
			pos[i] = base + i * stride + j;
		}
		goto shift;
	}
	case L_WORST:
	case L_MAXSIZE: {
		/*
		 * Keys one id each.  The map reaches from near 0 to the last id, so
		 * the root's slots are as wide as can be (2^shift ids).
		 *  worst: one root slot holds m keys spread to its end and a run of
		 *         c neighbouring ids in one slot of its inner node (the
		 *         longest binary search); other keys one per root slot.
		 *  maxsize: two or three keys inside (not at the start of) many root
		 *         slots: an inner node each, the most index bytes.
		 */
		static u64 kp[MAXN + 8];
		u64 P2 = 2 * roundup_pow_of_two(n), b0 = rndn(2) ? 0 : rndn(1000), W, S;
		u64 last = rndn(2) ? SPACE - 1 : SPACE - 1 - rndn(3), span_last = last - b0;
		u32 k = 0, sh = 0, r, m, cr, nsh = 0, rest, slots, j, want;
		if (maxc > 1 || n < 6) {
			layout(pos, c, n, L_RANDGAP, endalign);
			return;
		}
		while ((span_last >> sh) >= P2)
			sh++;
		W = 1ULL << sh;
		slots = (span_last >> sh) + 1;
		kp[k++] = b0;
		if (mode == L_WORST) {
			m = 3 + rndn(n - 4);		/* 3 .. n - 2 */
			if (m > n - 2)
				m = n - 2;
			r = 1 + rndn(slots - 2);
			S = b0 + (u64)r * W;
			while (((W - 3) >> nsh) >= roundup_pow_of_two(m))
				nsh++;
			cr = min_t(u32, m - 1, 1U << nsh);
			if (rndn(2)) {	/* the kunit shape: the run first */
				for (j = 0; j < cr; j++)
					kp[k++] = S + 1 + j;
				rest = m - cr;
				for (j = 1; j <= rest; j++)
					kp[k++] = S + W - 2 - (u64)(rest - j) * ((W - 2 - cr) / rest);
			} else {	/* a key first, the run at a node slot edge later */
				u64 a = S + 1, at;
				kp[k++] = a;
				at = a + ((u64)rndn(1 + ((W / 2) >> nsh)) << nsh) + (rndn(3) == 0);
				if (at <= a)
					at = a + 1;
				cr = min_t(u32, cr, m - 2);
				for (j = 0; j < cr; j++)
					kp[k++] = at + j;
				rest = m - 1 - cr;
				for (j = 1; j <= rest; j++)
					kp[k++] = at + cr + (u64)j * ((S + W - 2 - at - cr) / rest);
			}
			/* the rest one per root slot, but r, 0 and the last */
			want = n - 1;
			for (j = 1; k < want && j < slots - 1; j++) {
				u64 left = want - k, avail = slots - 1 - j;
				if (j == r)
					continue;
				if (rndn(avail) < left)
					kp[k++] = b0 + (u64)j * W + (rndn(2) ? 0 : rndn(W));
			}
		} else {
			/* pairs or triples inside root slots */
			want = n - 1;
			for (j = 1; k < want && j < slots - 1; j++) {
				u64 left = want - k, avail = (slots - 2 - j) * 2 + 1;
				u32 t = min_t(u32, rndn(3) ? 2 : 3, want - k), q;
				u64 lo;
				if (rndn(avail) >= left + left / 2 + 1)
					continue;
				lo = b0 + (u64)j * W + 1;
				for (q = 0; q < t; q++)
					kp[k++] = lo + q * (W - 2) / t + rndn((W - 2) / t);
			}
		}
		while (k < n - 1)	/* not placed: fill the gaps near the end */
			kp[k++] = last - 1 - rndn(1 << 20);
		kp[k++] = last;
		/* sort, drop duplicates by moving up one */
		for (j = 1; j < k; j++) {
			u64 v = kp[j];
			int q = j - 1;
			while (q >= 0 && kp[q] > v) {
				kp[q + 1] = kp[q];
				q--;
			}
			kp[q + 1] = v;
		}
		for (j = 1; j < k; j++)
			if (kp[j] <= kp[j - 1])
				kp[j] = kp[j - 1] + 1;
		if (kp[k - 1] > SPACE - 1) {
			layout(pos, c, n, L_RANDGAP, endalign);
			return;
		}
		for (j = 0; j < n; j++)
			pos[j] = kp[j];
		goto check;
	}
	case L_CROWD: {
		/* all but one key within a window, the other far off */
		u64 W = T + (1ULL << rndn(29)), Bw = W - T;
		for (i = 0; i < n; i++)
			g[i] = rndn(2 * (Bw / n) + 1);
		g[0] = rndn(1 << 16);
		if (n > 1) {
			if (rndn(2))
				g[n - 1] = F > 4 * Bw ? F - rndn(F / 4 + 1) - 3 * Bw : F / 2;
			else
				g[1] = F > 4 * Bw ? F - rndn(F / 4 + 1) - 3 * Bw : F / 2;
		}
		break;
	}
	}
	/* fit: never more gap than F */
	for (i = 0; i < n; i++) {
		if (g[i] > F - used)	/* (g[i] may have wrapped) */
			g[i] = F - used;
		used += g[i];
	}
	p = 0;
	for (i = 0; i < n; i++) {
		p += g[i];
		pos[i] = p;
		p += c[i];
	}
shift:
	if (endalign && n) {
		/* the last extent ends at U32_MAX: its last id is U32_MAX - 1 */
		u64 end = (u64)pos[n - 1] + c[n - 1], d = SPACE - end;
		for (i = 0; i < n; i++)
			pos[i] += d;
	}
check:
	for (i = 0; i + 1 < n; i++)
		if ((u64)pos[i] + c[i] > pos[i + 1]) {
			fprintf(stderr, "layout bug mode %d i %u n %u pos %u c %u next %u F %llu\n", mode, i, n, pos[i], c[i], pos[i + 1], (unsigned long long)F);
			abort();
		}
	if (n && (u64)pos[n - 1] + c[n - 1] > SPACE) {
		fprintf(stderr, "layout overflow mode %d\n", mode);
		abort();
	}
}

enum { C_ONE, C_SMALL, C_FIXED, C_LOG, C_HUGE, C_ONEBIG, NR_CMODES };
static void gen_counts(u32 *c, u32 n, int mode)
{
	static const u32 fixed[] = { 1, 2, 1000, 65536, 1 << 20 };
	u32 v = fixed[rndn(5)], i;
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		switch (mode) {
		case C_ONE: c[i] = 1; break;
		case C_SMALL: c[i] = 1 + rndn(64); break;
		case C_FIXED: c[i] = v; break;
		case C_LOG: c[i] = 1 + rndn(1ULL << rndn(33)); break;
		case C_HUGE: c[i] = SPACE / n - rndn(1 + rndn(2) * 1000) ; break;
		case C_ONEBIG: c[i] = 1; break;
		}
		if (!c[i])
			c[i] = 1;
	}
	if (mode == C_ONEBIG && n) {
		i = rndn(2) ? n - 1 : rndn(n);
		c[i] = rndn(2) ? 65536 : SPACE - n - rndn(1 + rndn(2) * 100000);
	}
	for (;;) {
		for (sum = 0, i = 0; i < n; i++)
			sum += c[i];
		if (sum <= SPACE)
			break;
		for (i = 0; i < n; i++)
			c[i] = c[i] / 2 ? c[i] / 2 : 1;
	}
}

static u32 pick_n(void)
{
	static const u32 special[] = { 1, 2, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33,
		63, 64, 65, 127, 128, 129, 255, 256, 257, 339, 340, 341, 511, 512,
		513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096 };
	switch (rndn(5)) {
	case 0: return special[rndn(sizeof(special) / 4)];
	case 1: return 1 + rndn(16);
	case 2: return 1 + rndn(400);
	case 3: return 1 + rndn(4096);
	default: return (u32)max_t(u64, 1, min_t(u64, 4096, (1u << rndn(13)) + rndn(3) - 1));
	}
}

/*
 * Fill e[0..n) for shape: counts, a first column (in the shape) and a lower
 * column (the same layout, or another one over a permutation), maybe the
 * two columns swapped so that the shape is in the lower ids.
 */
static void gen_shape(ext_t *e, u32 n, int shape)
{
	static u32 c[MAXN], pos[MAXN], perm[MAXN], c2[MAXN], pos2[MAXN];
	int cm, lm, lm2;
	bool endalign = rndn(8) == 0, endalign2 = rndn(8) == 0;
	u32 i;

	switch (shape) {
	case S_EVEN: cm = rndn(2) ? C_FIXED : C_SMALL; lm = L_EVEN; break;
	case S_CLUSTERED: cm = C_ONE; lm = rndn(3) ? L_CLUSTER_FAR : L_FAR_CLUSTER; break;
	case S_BIMODAL: cm = rndn(2) ? C_ONE : C_SMALL; lm = L_BIMODAL; break;
	case S_RANDGAP: cm = rndn(2) ? C_SMALL : C_LOG; lm = L_RANDGAP; break;
	case S_NESTED: cm = rndn(2) ? C_ONE : C_SMALL; lm = rndn(2) ? L_NESTED : L_NESTED_REV; break;
	case S_TOUCHMAX: cm = rndn(NR_CMODES); lm = rndn(NR_LAYOUTS); endalign = endalign2 = true; break;
	case S_COUNT1: cm = C_ONE; lm = rndn(NR_LAYOUTS); break;
	case S_HUGE: cm = rndn(2) ? C_HUGE : C_ONEBIG; lm = rndn(NR_LAYOUTS); break;
	case S_CROWD: cm = rndn(2) ? C_ONE : C_SMALL; lm = L_CROWD; break;
	case S_STRIDE: cm = rndn(2) ? C_ONE : C_SMALL; lm = L_STRIDE; break;
	case S_WORST: cm = C_ONE; lm = L_WORST; break;
	case S_MAXSIZE: cm = C_ONE; lm = L_MAXSIZE; break;
	default: cm = rndn(NR_CMODES); lm = rndn(NR_LAYOUTS); endalign = rndn(4) == 0; break;
	}
	gen_counts(c, n, cm);
	if (shape == S_TOUCHMAX && n && rndn(2))
		c[n - 1] = 1;	/* the extent [U32_MAX - 1, 1] */
	if (shape == S_CLUSTERED) {
		/* single ids together, one big range far away */
		i = lm == L_CLUSTER_FAR ? n - 1 : 0;
		c[i] = rndn(2) ? 65536 : 1 + rndn(1u << 31);
	}
	layout(pos, c, n, lm, endalign);

	/* lower column */
	for (i = 0; i < n; i++)
		perm[i] = i;
	switch (rndn(4)) {
	case 0: /* identical, like the kunit test */
		for (i = 0; i < n; i++)
			pos2[i] = pos[i];
		break;
	case 1: /* same layout mode, fresh */
		layout(pos2, c, n, lm, endalign2);
		break;
	default: /* another layout over a permutation (or reversal) */
		if (rndn(3)) {
			for (i = n; i > 1; i--) {
				u32 j = rndn(i), t = perm[i - 1];
				perm[i - 1] = perm[j]; perm[j] = t;
			}
		} else {
			for (i = 0; i < n; i++)
				perm[i] = n - 1 - i;
		}
		lm2 = rndn(2) ? lm : (int)rndn(NR_LAYOUTS);
		for (i = 0; i < n; i++)
			c2[i] = c[perm[i]];
		layout(pos2, c2, n, lm2, endalign2);
		{
			static u32 tmp[MAXN];
			for (i = 0; i < n; i++)
				tmp[perm[i]] = pos2[i];
			memcpy(pos2, tmp, n * 4);
		}
		break;
	}
	for (i = 0; i < n; i++) {
		e[i].first = pos[i];
		e[i].lower_first = pos2[i];
		e[i].count = c[i];
	}
	if (rndn(2))
		for (i = 0; i < n; i++) {
			u32 t = e[i].first; e[i].first = e[i].lower_first; e[i].lower_first = t;
		}
}

/* Written order: sorted by first, by lower, shuffled, or reversed. */
static void shuffle_lines(ext_t *e, u32 n)
{
	u32 i, j;
	ext_t t;

	switch (rndn(4)) {
	case 0: break;
	case 1:
		for (i = 0; i < n / 2; i++) {
			t = e[i]; e[i] = e[n - 1 - i]; e[n - 1 - i] = t;
		}
		break;
	default:
		for (i = n; i > 1; i--) {
			j = rndn(i);
			t = e[i - 1]; e[i - 1] = e[j]; e[j] = t;
		}
	}
}

/* ------------------------------------------------------- reporting */
static const ext_t *cur_lines, *cur_parent;
static u32 cur_nlines, cur_nparent;
static u64 cur_map_no, cur_seed;

static void dump_ext(FILE *f, const char *what, const ext_t *e, u32 n)
{
	u32 i;
	fprintf(f, "# %s: %u extents\n", what, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%u %u %u\n", e[i].first, e[i].lower_first, e[i].count);
}

static void mismatch(const char *fmt, ...)
{
	va_list ap;
	char name[64];
	FILE *f;

	st[cur_shape].mismatches++;
	total_mismatch++;
	va_start(ap, fmt);
	fprintf(stderr, "MISMATCH [%s seed %llu map %llu n=%u]: ", shape_name[cur_shape],
		(unsigned long long)cur_seed, (unsigned long long)cur_map_no, cur_nlines);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (total_mismatch <= 20) {
		snprintf(name, sizeof(name), "fail_%llu.txt", (unsigned long long)total_mismatch);
		f = fopen(name, "w");
		if (f) {
			va_start(ap, fmt);
			fprintf(f, "# ");
			vfprintf(f, fmt, ap);
			fprintf(f, "\n");
			va_end(ap);
			if (cur_parent)
				dump_ext(f, "parent", cur_parent, cur_nparent);
			dump_ext(f, "lines", cur_lines, cur_nlines);
			fclose(f);
		}
	}
}

/* ------------------------------------------------------- checks */
struct refmaps {
	struct soa lines;	/* the lines as written: first -> lower (parent ns) */
	struct soa parent;	/* the parent's extents: parent id -> kernel id, or none */
	struct soa pieces;	/* the stored extents (for ranges) */
};

static u32 ref_down(struct refmaps *r, u32 id)
{
	u32 l = ref_lookup(r->lines.first, r->lines.lower, r->lines.count, r->lines.n, id, NULL);
	if (l == NOID || !r->parent.n)
		return l;
	return ref_lookup(r->parent.first, r->parent.lower, r->parent.count, r->parent.n, l, NULL);
}

static u32 ref_up(struct refmaps *r, u32 kid)
{
	u32 l = kid;
	if (r->parent.n) {
		l = ref_lookup(r->parent.lower, r->parent.first, r->parent.count, r->parent.n, kid, NULL);
		if (l == NOID)
			return NOID;
	}
	return ref_lookup(r->lines.lower, r->lines.first, r->lines.count, r->lines.n, l, NULL);
}

static u32 *probes;
static u32 nprobes, capprobes;
static void probe(u32 id)
{
	if (nprobes == capprobes) {
		capprobes = capprobes ? 2 * capprobes : 65536;
		probes = realloc(probes, capprobes * 4);
	}
	probes[nprobes++] = id;
}
static void probe4(u32 key, u32 count)
{
	probe(key - 1); probe(key); probe(key + count - 1); probe(key + count);
}

/* Ids on the edges of the root's and the inner nodes' slots. */
static void probe_index(const struct uid_gid_index *ix)
{
	const struct uid_gid_index_node *node;
	u32 b, c;
	u64 a;

	if (!ix->slot)
		return;
	for (b = 0; b <= ix->slots; b++) {
		a = (u64)ix->base + ((u64)b << ix->shift);
		probe(a - 1); probe(a); probe(a + 1);
		if (b < ix->slots && (ix->slot[b] & UID_GID_INDEX_NODE)) {
			node = index_node(ix, ix->slot[b]);
			for (c = 0; c <= node->last + 1u; c++) {
				a = (u64)node->base + ((u64)c << node->shift);
				probe(a - 1); probe(a); probe(a + 1);
			}
		}
	}
}

static u32 isqrt64(u64 x)
{
	u64 r = 0;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* Structure of one index: slots in range, nodes inside the index's bytes. */
static void check_index(const struct uid_gid_map *map, bool up)
{
	const struct uid_gid_index *ix = up ? &map->up : &map->down;
	const ext_t *ext = up ? map->reverse : map->forward;
	struct uid_gid_index tmp;
	const struct uid_gid_index_node *node;
	u32 nr = map->nr_extents, bytes, b, c, s, off, prev = 0;

	if (!ix->slot)
		return;
	st[cur_shape].structural++;
	bytes = index_fill(&tmp, ext, nr, up, NULL);
	if ((double)bytes / (18 * nr + 2) > st[cur_shape].ix_ratio)
		st[cur_shape].ix_ratio = (double)bytes / (18 * nr + 2);
	if (bytes > 18 * nr + 2)
		mismatch("%s index takes %u bytes > 18*nr+2 = %u", up ? "up" : "down", bytes, 18 * nr + 2);
	if (tmp.base != ix->base || tmp.shift != ix->shift || tmp.slots != ix->slots)
		mismatch("%s index header differs on resizing", up ? "up" : "down");
	if (ix->slots > 2 * roundup_pow_of_two(nr))
		mismatch("%s root has %u slots > 2P", up ? "up" : "down", ix->slots);
	/* The index lies inside the allocation: down then up before the bitmap/count. */
	if ((const char *)ix->slot + bytes > (const char *)map->forward + map->size - sizeof(refcount_t))
		mismatch("%s index runs past the allocation", up ? "up" : "down");
	for (b = 0; b < ix->slots; b++) {
		s = ix->slot[b];
		if (!(s & UID_GID_INDEX_NODE)) {
			if (s >= nr || s < prev)
				mismatch("%s root slot %u = %u (nr %u, prev %u)", up ? "up" : "down", b, s, nr, prev);
			prev = s;
			continue;
		}
		off = 4 * (s - UID_GID_INDEX_NODE);
		if (off < ALIGN(ix->slots * 2u, 4u) || off + 12 > bytes) {
			mismatch("%s node offset %u outside index (%u bytes)", up ? "up" : "down", off, bytes);
			continue;
		}
		node = index_node(ix, s);
		if (off + offsetof(struct uid_gid_index_node, slot) + 2 * (node->last + 2u) > bytes)
			mismatch("%s node at %u with last %u runs past index (%u bytes)", up ? "up" : "down", off, node->last, bytes);
		if (node->lo < prev || node->lo >= nr)
			mismatch("%s node lo %u", up ? "up" : "down", node->lo);
		for (c = 0; c <= node->last + 1u; c++) {
			if (node->slot[c] >= nr || node->slot[c] < node->lo ||
			    (c && node->slot[c] < node->slot[c - 1]))
				mismatch("%s node slot %u = %u", up ? "up" : "down", c, node->slot[c]);
		}
		prev = node->slot[node->last + 1];
	}
	{
		u32 most = uid_gid_map_kunit_max_search(map, up);
		u32 bound = min_t(u32, nr - 1, isqrt64((1ULL << 33) / roundup_pow_of_two(nr)));
		if (most > st[cur_shape].maxsearch)
			st[cur_shape].maxsearch = most;
		if ((double)most / bound > st[cur_shape].search_ratio)
			st[cur_shape].search_ratio = (double)most / bound;
		if (most > bound)
			mismatch("%s: binary search over %u extents > bound %u", up ? "up" : "down", most, bound);
	}
}

/*
 * Every id around the edges of the lines (down) or of the parent's
 * extents (up), of the stored extents and of the index's slots, 0,
 * U32_MAX and random ids, mapped @up or down, against the reference:
 * the number of ids checked.
 */
static u32 check_direction(struct uid_gid_map *map, struct refmaps *r,
			   const ext_t *fwd, u32 nr, bool up)
{
	const struct soa *near = up ? &r->parent : &r->lines;
	u32 i, k, id, got, want;

	nprobes = 0;
	probe(0); probe(1); probe(U32_MAX - 1); probe(U32_MAX); probe(U32_MAX - 2);
	for (i = 0; i < near->n; i++)
		probe4(up ? near->lower[i] : near->first[i], near->count[i]);
	for (i = 0; i < nr; i++)
		probe4(extent_key(&fwd[i], up), fwd[i].count);
	if (nr > UID_GID_MAP_MAX_BASE_EXTENTS)
		probe_index(up ? &map->up : &map->down);
	for (i = 0; i < 64; i++)
		probe(rnd32());
	for (i = 0; i < 64 && nr; i++) {
		k = rndn(nr);
		probe(extent_key(&fwd[k], up) + rndn(fwd[k].count));
	}
	for (i = 0; i < nprobes; i++) {
		id = probes[i];
		got = up ? map_id_up(map, id) : map_id_down(map, id);
		want = up ? ref_up(r, id) : ref_down(r, id);
		if (nr > UID_GID_MAP_MAX_BASE_EXTENTS && uid_gid_map_kunit_in_node(map, id, up))
			st[cur_shape].in_node++;
		if (got != want)
			mismatch("%s(%u) = %u, want %u", up ? "up" : "down", id, got, want);
	}
	return nprobes;
}

static void check_map(struct uid_gid_map *map, struct refmaps *r, bool split)
{
	u32 nr = map->nr_extents, i, k, id, got, want;
	const ext_t *fwd = nr <= UID_GID_MAP_MAX_BASE_EXTENTS ? map->extent : map->forward;
	struct stats *s = &st[cur_shape];

	soa_set(&r->pieces, fwd, nr);

	if (nr > UID_GID_MAP_MAX_BASE_EXTENTS) {
		/* map->size against 60 * nr + 32 (the kunit bound) */
		u32 bound = 60 * nr + 32;
		if ((double)map->size / bound > s->size_ratio)
			s->size_ratio = (double)map->size / bound;
		if (map->size > bound)
			mismatch("map->size %u > bound %u (nr %u%s)", map->size, bound, nr, "");
		if (!map->down.slot)
			s->unindexed++;
		check_index(map, false);
		check_index(map, true);
		/* sorted arrays and sentinels */
		for (i = 0; i + 1 < nr; i++)
			if (map->forward[i].first >= map->forward[i + 1].first ||
			    map->reverse[i].lower_first >= map->reverse[i + 1].lower_first)
				mismatch("arrays not sorted at %u", i);
		if (map->forward[nr].first != U32_MAX || map->forward[nr].count ||
		    map->reverse[nr].lower_first != U32_MAX || map->reverse[nr].count)
			mismatch("sentinels");
	} else {
		for (i = nr; i < UID_GID_MAP_MAX_BASE_EXTENTS; i++)
			if (map->extent[i].first || map->extent[i].lower_first || map->extent[i].count)
				mismatch("inline slot %u past nr not zero", i);
	}

	s->down += check_direction(map, r, fwd, nr, false);
	s->up += check_direction(map, r, fwd, nr, true);

	/* ---- ranges down, against the stored extents */
	for (i = 0; i < nr && i < 256; i++) {
		const ext_t *e = &fwd[nr <= 256 ? i : rndn(nr)];
		u32 a, cnt, tries[6][2];
		a = e->first + rndn(e->count);
		tries[0][0] = e->first; tries[0][1] = e->count;
		tries[1][0] = e->first; tries[1][1] = e->count + 1;
		tries[2][0] = a; tries[2][1] = e->first + e->count - a;
		tries[3][0] = a; tries[3][1] = e->first + e->count - a + 1;
		tries[4][0] = a; tries[4][1] = 1 + rndn(e->first + e->count - a);
		tries[5][0] = e->first - 1; tries[5][1] = 2;
		for (k = 0; k < 6; k++) {
			a = tries[k][0]; cnt = tries[k][1];
			if (!cnt)
				continue;
			got = map_id_range_down(map, a, cnt);
			want = ref_range(r->pieces.first, r->pieces.lower, r->pieces.count, nr, a, cnt);
			if (got != want)
				mismatch("range_down(%u, %u) = %u, want %u", a, cnt, got, want);
			s->range++;
		}
	}

	/* ---- a split map reads back as its pieces: the stored extents */
	if (split && nr > r->lines.n)
		s->split_maps++;
	else if (!split && nr != r->lines.n)
		mismatch("%u extents stored from %u lines, none split", nr, r->lines.n);

	/* ---- a copy looks up the same */
	{
		struct uid_gid_map copy;
		uid_gid_map_copy(&copy, map);
		for (i = 0; i < 32; i++) {
			id = i < 16 && nr ? fwd[rndn(nr)].first : rnd32();
			if (map_id_down(&copy, id) != map_id_down(map, id))
				mismatch("copy down(%u)", id);
		}
		uid_gid_map_free(&copy);
	}
}

/* The overlap check on its own: a generated map, sometimes made to overlap. */
static void check_overlap(const ext_t *e0, u32 n)
{
	static ext_t e[MAXN];
	struct soa s = { 0 };
	u32 i, j;
	bool want, got;

	if (n < 2)
		return;
	memcpy(e, e0, n * sizeof(*e));
	i = rndn(n);
	j = rndn(n);
	switch (rndn(4)) {
	case 0: /* move i's first onto j's range, or j's lower */
		e[i].first = e[j].first + rndn(e[j].count);
		break;
	case 1:
		e[i].lower_first = e[j].lower_first + rndn(e[j].count);
		break;
	case 2: /* grow i by one */
		if ((u64)e[i].first + e[i].count < SPACE && (u64)e[i].lower_first + e[i].count < SPACE)
			e[i].count++;
		break;
	default: break;
	}
	if ((u64)e[i].first + e[i].count > SPACE || (u64)e[i].lower_first + e[i].count > SPACE)
		return;
	soa_set(&s, e, n);
	want = ref_overlap(s.first, s.lower, s.count, n);
	shuffle_lines(e, n);
	got = extents_overlap(e, n);
	if (got != want)
		mismatch("extents_overlap = %d, want %d (n %u)", got, want, n);
	st[cur_shape].overlap_checks++;
	free(s.first); free(s.lower); free(s.count);
}

/* ---------------------------------------------------------- one map */
static struct uid_gid_map init_map;	/* the initial namespace: 0 0 4294967295 */

static void run_one(int shape)
{
	static ext_t e[MAXN], pe[MAXN];
	struct refmaps r = { 0 };
	struct uid_gid_map map, parent;
	bool priv = rndn(6) != 0, split = shape == S_SPLIT;
	u32 maxe, n, np = 0, i;
	int ret, stage, want_ret = 0, want_whole = 0;
	struct uid_gid_map *pmap = &init_map;

	cur_shape = shape;
	cur_map_no++;
	cur_parent = NULL;
	maxe = priv ? MAXN : (rndn(2) ? UID_GID_MAP_MAX_UNPRIVILEGED_EXTENTS : MAXN);

	if (!split) {
		n = shape == S_SMALL ? 1 + rndn(16) : pick_n();
		if (!priv && maxe < n)
			n = 1 + rndn(maxe);
		gen_shape(e, n, shape);
	} else {
		/* A parent of runs of contiguous ids (many extents), and a child
		 * whose lower ranges cross the parent's extents. */
		u32 li;
		u64 cur, endrun;
		np = pick_n();
		{
			static u32 c[MAXN], pos[MAXN], pos2[MAXN], perm[MAXN], c2[MAXN], tmp[MAXN];
			gen_counts(c, np, rndn(2) ? C_SMALL : (rndn(2) ? C_ONE : C_LOG));
			layout(pos, c, np, rndn(3) ? L_DENSE : L_RANDGAP, rndn(6) == 0);
			permutation(perm, np, true);
			for (i = 0; i < np; i++)
				c2[i] = c[perm[i]];
			layout(pos2, c2, np, rndn(NR_LAYOUTS), rndn(6) == 0);
			for (i = 0; i < np; i++)
				tmp[perm[i]] = pos2[i];
			for (i = 0; i < np; i++) {
				pe[i].first = pos[i];
				pe[i].lower_first = tmp[i];
				pe[i].count = c[i];
			}
		}
		ret = build_from(&parent, &init_map, pe, np, true, MAXN, true, &stage);
		if (ret) {
			fprintf(stderr, "parent build failed %d stage %d\n", ret, stage);
			abort();
		}
		pmap = &parent;
		cur_parent = pe;
		cur_nparent = np;
		/* child lines: random sub-ranges of the parent's runs */
		n = 0;
		for (i = 0; i < np && n < MAXN; ) {
			u32 j = i;
			cur = pe[i].first;
			while (j + 1 < np && (u64)pe[j].first + pe[j].count == pe[j + 1].first)
				j++;
			endrun = (u64)pe[j].first + pe[j].count;
			/* cut [cur, endrun) into lines with holes */
			while (cur < endrun && n < MAXN) {
				u64 len = 1 + rndn(rndn(2) ? (endrun - cur) : min_t(u64, endrun - cur, 1 + rndn(200)));
				if (rndn(4) == 0) {	/* a hole */
					cur += len;
					continue;
				}
				e[n].lower_first = cur;
				e[n].count = len;
				n++;
				cur += len;
			}
			i = j + 1;
			if (rndn(np > 64 ? 4096 : 64) == 0)
				break;
		}
		if (n == 0) {
			e[0].lower_first = pe[0].first;
			e[0].count = pe[0].count;
			n = 1;
		}
		/* occasionally a line reaching an unmapped parent id: -EPERM */
		if (rndn(16) == 0) {
			li = rndn(n);
			if ((u64)e[li].lower_first + e[li].count < SPACE) {
				e[li].count++;
				/* overlap with the next line is possible: fine, reference below */
			}
		}
		{
			static u32 c[MAXN], pos[MAXN];
			for (i = 0; i < n; i++)
				c[i] = e[i].count;
			/* child first column: a layout over a permutation of the lines */
			static u32 perm[MAXN], c2[MAXN];
			permutation(perm, n, rndn(2));
			for (i = 0; i < n; i++)
				c2[i] = c[perm[i]];
			layout(pos, c2, n, rndn(NR_LAYOUTS), rndn(6) == 0);
			for (i = 0; i < n; i++)
				e[perm[i]].first = pos[i];
		}
		if (!priv)
			maxe = rndn(2) ? UID_GID_MAP_MAX_UNPRIVILEGED_EXTENTS : MAXN;
		if (rndn(4) == 0)
			maxe = n + rndn(2 * n + 1);
		if (maxe > MAXN)
			maxe = MAXN;
		if (n > maxe)
			n = maxe;
	}

	shuffle_lines(e, n);
	cur_lines = e;
	cur_nlines = n;
	soa_set(&r.lines, e, n);
	if (split)
		soa_set(&r.parent, pe, np);
	else
		r.parent.n = 0;	/* init parent: identity */

	/* The expected outcome, computed independently. */
	if (ref_overlap(r.lines.first, r.lines.lower, r.lines.count, n)) {
		want_ret = -EINVAL;	/* stage 2 */
	} else {
		u64 total = 0;
		bool perm_ok = true;
		for (i = 0; i < n; i++) {
			if (split) {
				u32 k = ref_pieces(r.parent.first, r.parent.count, np, e[i].lower_first, e[i].count);
				/* every id of the line mapped? the pieces' sizes add up */
				u64 covered = 0, j;
				for (j = 0; j < np; j++) {
					u64 a = max_t(u64, e[i].lower_first, pe[j].first);
					u64 b = min_t(u64, (u64)e[i].lower_first + e[i].count, (u64)pe[j].first + pe[j].count);
					if (a < b)
						covered += b - a;
				}
				if (covered != e[i].count)
					perm_ok = false;
				/* without the header: one parent extent per line */
				if (k != 1 || covered != e[i].count)
					want_whole = -EPERM;
				total += k;
			} else {
				total++;
			}
		}
		if (!perm_ok)
			want_ret = -EPERM;
		else if (want_whole == 0 && total > n)
			mismatch("reference: %llu pieces from %u whole lines", (unsigned long long)total, n);
		else if (total > maxe)
			want_ret = -EINVAL;
		else if (total > UID_GID_MAP_MAX_BASE_EXTENTS &&
			 !(priv || maxe > UID_GID_MAP_MAX_UNPRIVILEGED_EXTENTS)) {
			/* unprivileged, stock bound: 8192 bytes even without index */
			u64 b = ALIGN(2 * (total + 1) * 12, 8) + 4;

			if (b > 8192)
				want_ret = -EINVAL;
		}
	}

	/* Sometimes make the 1st, 2nd or 3rd allocation of the write fail. */
	if (rndn(16) == 0) {
		stub_fail_at = 1 + rndn(3);
		stub_failed = 0;
		ret = build_from(&map, pmap, e, n, priv, maxe, true, &stage);
		enomem_checked++;
		if (stub_failed) {
			enomem_seen++;
			if (ret == 0 || (ret != -ENOMEM && ret != want_ret))
				mismatch("allocation failed but write returned %d (stage %d)", ret, stage);
		}
		stub_fail_at = 0;
		if (!ret)
			uid_gid_map_free(&map);
	}
	ret = build_from(&map, pmap, e, n, priv, maxe, true, &stage);
	st[shape].maps++;
	st[shape].extents += n;
	st[shape].maxn = max(st[shape].maxn, n);
	if (want_whole == 0)
		want_whole = want_ret;
	if (ret != want_ret) {
		mismatch("write returned %d at stage %d, want %d (priv %d, max %u)", ret, stage, want_ret, priv, maxe);
	} else if (ret) {
		st[shape].maps_rejected_expected++;
	} else {
		if (map.nr_extents > UID_GID_MAP_MAX_BASE_EXTENTS && !priv &&
		    maxe <= UID_GID_MAP_MAX_UNPRIVILEGED_EXTENTS && map.size > 8192)
			mismatch("unprivileged map of %u bytes", map.size);
		check_map(&map, &r, split);
		uid_gid_map_free(&map);
	}
	if (split) {
		/* The same lines without the header: stock's rule, EPERM for
		 * a line that no single extent of the parent holds. */
		int whole = build_from(&map, pmap, e, n, priv, maxe, false, &stage);

		st[shape].whole_writes++;
		if (whole != want_whole)
			mismatch("write without the split header returned %d at stage %d, want %d",
				 whole, stage, want_whole);
		else if (whole == -EPERM)
			st[shape].whole_eperm++;
		else if (!whole)
			check_map(&map, &r, false);
		if (!whole)
			uid_gid_map_free(&map);
	}
	if (split)
		uid_gid_map_free(&parent);
	if (!split && rndn(4) == 0)
		check_overlap(e, n);
	free(r.lines.first); free(r.lines.lower); free(r.lines.count);
	free(r.parent.first); free(r.parent.lower); free(r.parent.count);
	free(r.pieces.first); free(r.pieces.lower); free(r.pieces.count);
}

/* --------------------------------------------------------- replay */
static int replay(const char *path)
{
	static ext_t e[MAXN];
	struct refmaps r = { 0 };
	struct uid_gid_map map;
	char line[256];
	u32 n = 0;
	int stage, ret;
	FILE *f = fopen(path, "r");

	if (!f)
		return perror(path), 2;
	while (fgets(line, sizeof(line), f) && n < MAXN)
		if (line[0] != '#' && sscanf(line, "%u %u %u", &e[n].first, &e[n].lower_first, &e[n].count) == 3)
			n++;
	fclose(f);
	cur_lines = e; cur_nlines = n; cur_shape = S_MIXED;
	soa_set(&r.lines, e, n);
	ret = build_from(&map, &init_map, e, n, true, MAXN, true, &stage);
	printf("replay: %u lines, write = %d (stage %d)\n", n, ret, stage);
	if (!ret) {
		check_map(&map, &r, false);
		uid_gid_map_free(&map);
	}
	printf("replay: %llu down, %llu up, %llu range lookups, %llu mismatches\n",
	       (unsigned long long)st[S_MIXED].down, (unsigned long long)st[S_MIXED].up,
	       (unsigned long long)st[S_MIXED].range, (unsigned long long)total_mismatch);
	free(r.lines.first); free(r.lines.lower); free(r.lines.count);
	free(r.pieces.first); free(r.pieces.lower); free(r.pieces.count);
	fflush(stdout);
	return total_mismatch != 0;
}

int main(int argc, char **argv)
{
	u64 seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	u64 rounds = argc > 2 ? strtoull(argv[2], NULL, 0) : 100;
	int only = argc > 3 ? atoi(argv[3]) : -1, s;
	u64 iter = 0;

	init_map.nr_extents = 1;
	init_map.extent[0] = (ext_t){ 0, 0, 4294967295U };
	if (argc > 2 && !strcmp(argv[1], "-r"))
		return replay(argv[2]);
	if (only >= NR_SHAPES) {
		fprintf(stderr, "diffcheck: no shape %d (0 to %d)\n", only, NR_SHAPES - 1);
		return 2;
	}
	rs = cur_seed = seed;
	while (iter < rounds * (only >= 0 ? 1 : NR_SHAPES)) {
		s = only >= 0 ? only : (int)(iter % NR_SHAPES);
		run_one(s);
		iter++;
	}
	printf("%-24s %7s %7s %6s %9s %11s %11s %9s %6s %6s %5s\n", "shape", "maps", "rejected",
	       "max n", "extents", "down ids", "up ids", "ranges", "struct", "ovlp", "MISM");
	for (s = 0; s < NR_SHAPES; s++)
		printf("%-24s %7llu %7llu %6u %9llu %11llu %11llu %9llu %6llu %6llu %5llu\n", shape_name[s],
		       (unsigned long long)st[s].maps, (unsigned long long)st[s].maps_rejected_expected,
		       st[s].maxn, (unsigned long long)st[s].extents, (unsigned long long)st[s].down,
		       (unsigned long long)st[s].up, (unsigned long long)st[s].range,
		       (unsigned long long)st[s].structural, (unsigned long long)st[s].overlap_checks,
		       (unsigned long long)st[s].mismatches);
	for (s = 0; s < NR_SHAPES; s++)
		printf("%-24s via-node lookups %9llu, unindexed maps %3llu, longest search %4llu (%.2f of bound), size %.2f of 60n+32, index %.2f of 18n+2\n",
		       shape_name[s], (unsigned long long)st[s].in_node,
		       (unsigned long long)st[s].unindexed, (unsigned long long)st[s].maxsearch,
		       st[s].search_ratio, st[s].size_ratio, st[s].ix_ratio);
	printf("split maps: %llu of %llu had lines split into pieces\n",
	       (unsigned long long)st[S_SPLIT].split_maps, (unsigned long long)st[S_SPLIT].maps);
	printf("without the split header: %llu writes of the split shape, %llu refused with EPERM as on stock\n",
	       (unsigned long long)st[S_SPLIT].whole_writes, (unsigned long long)st[S_SPLIT].whole_eperm);
	printf("allocation-failure writes: %llu, of which %llu hit an injected failure (leaks/double frees: ASan)\n",
	       (unsigned long long)enomem_checked, (unsigned long long)enomem_seen);
	printf("seed %llu, %llu maps, WARN_ON_ONCE hits %d, total mismatches %llu\n",
	       (unsigned long long)seed, (unsigned long long)iter, stub_warned,
	       (unsigned long long)total_mismatch);
	return total_mismatch || stub_warned;
}
