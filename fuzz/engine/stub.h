/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal user-space stand-ins for the kernel APIs user_idmap.c uses. */
#ifndef FUZZ_ENGINE_STUB_H
#define FUZZ_ENGINE_STUB_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <errno.h>
#include <ctype.h>

typedef uint64_t u64; typedef uint32_t u32; typedef uint16_t u16; typedef uint8_t u8;
#define U32_MAX ((u32)~0U)
#ifndef SIZE_MAX
#define SIZE_MAX ((size_t)-1)
#endif
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#undef __always_inline
/* As the kernel's inline: GNU semantics (6.12 exports two of these). */
#define __always_inline inline __attribute__((always_inline, gnu_inline))
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define EXPORT_SYMBOL_IF_KUNIT(x)
#define __init
#define subsys_initcall(x)
#define IS_ENABLED(x) (x)
#define CONFIG_USER_IDMAP_KUNIT_TEST 1   /* keep the pure kunit wrappers */
#define __static_assert_1(e) _Static_assert(e, #e)
#define __static_assert_2(e, m) _Static_assert(e, m)
#define __SA_PICK(_1, _2, N, ...) N
#define static_assert(...) __SA_PICK(__VA_ARGS__, __static_assert_2, __static_assert_1, x)(__VA_ARGS__)
#define BUILD_BUG_ON(c) _Static_assert(!(c), "BUILD_BUG_ON " #c)

/* One thread: plain accesses are enough. */
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

extern int stub_warned;
#define WARN_ON_ONCE(c) ({ int __c = !!(c); if (__c) { fprintf(stderr, "WARN_ON_ONCE %s:%d: %s\n", __FILE__, __LINE__, #c); stub_warned++; } __c; })

/* make diffcheck builds the engine at several page sizes: -DPAGE_SIZE= */
#ifndef PAGE_SIZE
#define PAGE_SIZE 4096UL
#endif
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define BITS_TO_LONGS(n) DIV_ROUND_UP((n), BITS_PER_LONG)
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
static inline void __set_bit(unsigned long nr, unsigned long *a) { a[nr / 64] |= 1UL << (nr % 64); }
static inline bool test_bit(unsigned long nr, const unsigned long *a) { return (a[nr / 64] >> (nr % 64)) & 1; }
static inline void bitmap_zero(unsigned long *a, unsigned int n) { memset(a, 0, BITS_TO_LONGS(n) * sizeof(long)); }

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp(v, lo, hi) min(max((v), (lo)), (hi))
#define struct_size(p, member, n) (sizeof(*(p)) + (size_t)(n) * sizeof((p)->member[0]))

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

/* Allocation: exact sizes, so ASan sees any read past what was asked for. */
/* Failure injection: when stub_fail_at is n > 0, the n-th allocation from now fails. */
extern int stub_fail_at, stub_failed;
static inline void *stub_alloc(size_t s)
{
	if (stub_fail_at > 0 && --stub_fail_at == 0) {
		stub_failed++;
		return NULL;
	}
	return malloc(s);
}
#define GFP_KERNEL 0
#define GFP_KERNEL_ACCOUNT 0
static inline void *kmalloc(size_t s, int f) { (void)f; return stub_alloc(s); }
static inline void *__vmalloc(size_t s, int f) { (void)f; return stub_alloc(s); }
static inline void *kvmalloc(size_t s, int f) { (void)f; return stub_alloc(s); }
static inline void *kvmalloc_array(size_t n, size_t s, int f) { (void)f; return stub_alloc(n * s); }
static inline void *kmemdup(const void *p, size_t s, int f) { void *q = stub_alloc(s); (void)f; if (q) memcpy(q, p, s); return q; }
static inline void kvfree(const void *p) { free((void *)p); }

typedef struct { int refs; } refcount_t;
static inline void refcount_set(refcount_t *r, int n) { r->refs = n; }
static inline void refcount_inc(refcount_t *r) { r->refs++; }
static inline bool refcount_dec_and_test(refcount_t *r) { return --r->refs == 0; }

/* lib/sort.c: an in-place heapsort (not stable), same comparator signature. */
typedef int (*cmp_func_t)(const void *, const void *);
static inline void stub_swap(char *a, char *b, size_t n) { char t; while (n--) { t = *a; *a++ = *b; *b++ = t; } }
static inline void sort(void *base, size_t num, size_t size, cmp_func_t cmp, void *swap)
{
	char *b = base; size_t i, r, c, n = num;
	(void)swap;
	if (num < 2) return;
	for (i = n / 2; i-- > 0;) {
		for (r = i; (c = 2 * r + 1) < n; r = c) {
			if (c + 1 < n && cmp(b + c * size, b + (c + 1) * size) < 0) c++;
			if (cmp(b + r * size, b + c * size) >= 0) break;
			stub_swap(b + r * size, b + c * size, size);
		}
	}
	for (n = num; --n > 0;) {
		stub_swap(b, b + n * size, size);
		for (r = 0; (c = 2 * r + 1) < n; r = c) {
			if (c + 1 < n && cmp(b + c * size, b + (c + 1) * size) < 0) c++;
			if (cmp(b + r * size, b + c * size) >= 0) break;
			stub_swap(b + r * size, b + c * size, size);
		}
	}
}

/* lib/string.c, lib/vsprintf.c (base 10, no sign, wraps modulo 2^64) */
static inline char *skip_spaces(const char *s) { while (isspace((unsigned char)*s)) s++; return (char *)s; }
static inline unsigned long simple_strtoul(const char *cp, char **endp, unsigned int base)
{
	unsigned long long r = 0;
	(void)base;
	while (*cp >= '0' && *cp <= '9') r = r * 10 + (*cp++ - '0');
	if (endp) *endp = (char *)cp;
	return r;
}

/* Types only the dropped parts use; left incomplete. */
struct file; struct user_namespace; struct seq_file; struct mutex;
#include "idmap_types.h"
#endif
