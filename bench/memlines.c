// SPDX-License-Identifier: GPL-2.0
/*
 * memlines: a QEMU TCG plugin that counts, for a window of guest code,
 * the kernel's memory accesses and the distinct 64-byte cache lines they
 * touch.  What the instruction counts of make bench cannot see: a load
 * that misses costs as much as a hundred instructions, and the number of
 * distinct lines a call touches is how many misses it takes when its data
 * is cold (a bound: there is no cache model here, no prefetch, and the
 * page-table walks of the MMU are not guest accesses).
 *
 * The guest marks its windows with three multi-byte NOPs that no compiler
 * emits, "nopl DISP(%rax)" with DISP 0x1d3a0001 (start), 0x1d3a0002
 * (stop) and 0x1d3a0003 (end of a row of windows) (bench/idmap_bench.c,
 * mark()).  Between a start and a stop, every load and store made by an
 * instruction at a kernel address (the top half of the address space) is
 * counted, and its physical cache line recorded.  At the end of a row the
 * plugin prints, through QEMU's log (-d plugin -D FILE), one line:
 *
 *   @@MEMLINES <row> <windows> <loads> <stores> <lines>
 *
 * the medians over the row's windows (a timer tick inside a window does
 * not move a median).  Rows are numbered from 0 in the order they end;
 * the guest names them in the same order.
 *
 * Built against qemu-plugin.h of Debian's qemu source package, the QEMU
 * that runs the guests (scripts/memlines.sh).  One vCPU: the benchmark
 * kernels are uniprocessor.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_START 0x1d3a0001u
#define MARK_STOP 0x1d3a0002u
#define MARK_ROW 0x1d3a0003u

#define LINE_SHIFT 6
#define KERNEL_HALF 0xffff800000000000ull

/* Distinct lines of one window: an open-addressed set, cleared by epoch. */
#define SET_BITS 16
#define SET_SIZE (1u << SET_BITS)
static uint64_t set_line[SET_SIZE];
static uint32_t set_epoch[SET_SIZE];
static uint32_t epoch = 1;
static uint64_t lines, overflow;

/* The window open now, and the row's windows so far. */
#define MAX_WINDOWS 4096
static bool active;
static uint64_t loads, stores;
static uint64_t row_loads[MAX_WINDOWS], row_stores[MAX_WINDOWS], row_lines[MAX_WINDOWS];
static unsigned int windows, row;

static void add_line(uint64_t line)
{
	uint32_t h = (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> (64 - SET_BITS));
	unsigned int probes;

	for (probes = 0; probes < SET_SIZE; probes++, h = (h + 1) & (SET_SIZE - 1)) {
		if (set_epoch[h] != epoch) {
			set_epoch[h] = epoch;
			set_line[h] = line;
			lines++;
			return;
		}
		if (set_line[h] == line)
			return;
	}
	overflow++;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t addr = vaddr;

	(void)vcpu;
	(void)udata;
	if (!active)
		return;
	if (qemu_plugin_mem_is_store(info))
		stores++;
	else
		loads++;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (hw && !qemu_plugin_hwaddr_is_io(hw))
		addr = qemu_plugin_hwaddr_phys_addr(hw);
	add_line(addr >> LINE_SHIFT);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static void on_mark(unsigned int vcpu, void *udata)
{
	uint32_t mark = (uint32_t)(uintptr_t)udata;
	char out[160];

	(void)vcpu;
	switch (mark) {
	case MARK_START:
		active = true;
		loads = stores = lines = 0;
		/* A new, empty set; all slots stale when the epoch wraps. */
		if (++epoch == 0) {
			memset(set_epoch, 0, sizeof(set_epoch));
			epoch = 1;
		}
		break;
	case MARK_STOP:
		if (!active)
			break;
		active = false;
		if (windows < MAX_WINDOWS) {
			row_loads[windows] = loads;
			row_stores[windows] = stores;
			row_lines[windows] = lines;
			windows++;
		}
		break;
	case MARK_ROW:
		snprintf(out, sizeof(out), "@@MEMLINES %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 "%s\n",
			 row, windows, median(row_loads, windows),
			 median(row_stores, windows), median(row_lines, windows),
			 overflow ? " overflow" : "");
		qemu_plugin_outs(out);
		row++;
		windows = 0;
		overflow = 0;
		break;
	}
}

/* "nopl DISP32(%rax)": 0f 1f 80, then DISP32 little-endian. */
static bool is_mark(const uint8_t *b, size_t size, uint32_t *mark)
{
	uint32_t d;

	if (size != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return false;
	d = b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24;
	if (d != MARK_START && d != MARK_STOP && d != MARK_ROW)
		return false;
	*mark = d;
	return true;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t mark;

		if (is_mark(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn), &mark))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mark);
		else if (qemu_plugin_insn_vaddr(insn) >= KERNEL_HALF)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)argv;
	if (argc || info->system_emulation == false) {
		fprintf(stderr, "memlines: takes no arguments, and runs in system emulation\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
