// SPDX-License-Identifier: GPL-2.0
/*
 * idmap_mod: an out-of-tree module that converts ids through the user
 * namespace of a process, as a file system or driver module does, and
 * checks every answer.  Module code takes the #ifdef MODULE side of
 * <linux/uidgid.h>: every conversion is a call into the kernel's exports.
 *
 * The process (pid=) must be in a namespace whose uid and gid maps are
 * extents= lines "i*step lower+i*step 1" for i = 0, 1, ...: single ids,
 * one apart, so that no two extents merge.  For each extent the module
 * checks make_kuid(), make_kgid(), from_kuid(), from_kgid(),
 * from_kuid_munged(), from_kgid_munged(), kuid_has_mapping() and
 * kgid_has_mapping() on the mapped id and on the unmapped ids beside it,
 * then prints one line: "idmap_mod: N extents, M conversions, K wrong".
 * Loading fails (EINVAL) when K is not 0, or when the namespace is not
 * what the parameters say (ENOENT: no such process, EINVAL: initial
 * namespace).
 */
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "a process in the namespace to convert through");
static unsigned int extents = 4096;
module_param(extents, uint, 0444);
MODULE_PARM_DESC(extents, "number of extents of its uid and gid maps");
static unsigned int step = 2;
module_param(step, uint, 0444);
MODULE_PARM_DESC(step, "distance of one extent's id from the next");
static unsigned int lower = 10000;
module_param(lower, uint, 0444);
MODULE_PARM_DESC(lower, "kernel id of the first extent");

static unsigned long conversions, wrong;

static void check(bool ok, const char *what, unsigned int i)
{
	conversions++;
	if (ok)
		return;
	if (!wrong)
		pr_err("idmap_mod: %s wrong at extent %u\n", what, i);
	wrong++;
}

static void check_extent(struct user_namespace *ns, unsigned int i)
{
	u32 id = i * step, kid = lower + i * step;
	kuid_t ku = KUIDT_INIT(kid);
	kgid_t kg = KGIDT_INIT(kid);

	check(uid_eq(make_kuid(ns, id), ku), "make_kuid", i);
	check(gid_eq(make_kgid(ns, id), kg), "make_kgid", i);
	check(from_kuid(ns, ku) == id, "from_kuid", i);
	check(from_kgid(ns, kg) == id, "from_kgid", i);
	check(from_kuid_munged(ns, ku) == id, "from_kuid_munged", i);
	check(from_kgid_munged(ns, kg) == id, "from_kgid_munged", i);
	check(kuid_has_mapping(ns, ku), "kuid_has_mapping", i);
	check(kgid_has_mapping(ns, kg), "kgid_has_mapping", i);
	/* The id after it is in no extent, inside and outside. */
	check(!uid_valid(make_kuid(ns, id + 1)), "make_kuid (gap)", i);
	check(!gid_valid(make_kgid(ns, id + 1)), "make_kgid (gap)", i);
	check(from_kuid(ns, KUIDT_INIT(kid + 1)) == (uid_t)-1, "from_kuid (gap)", i);
	check(from_kgid(ns, KGIDT_INIT(kid + 1)) == (gid_t)-1, "from_kgid (gap)", i);
	check(from_kuid_munged(ns, KUIDT_INIT(kid + 1)) == overflowuid,
	      "from_kuid_munged (gap)", i);
	check(from_kgid_munged(ns, KGIDT_INIT(kid + 1)) == overflowgid,
	      "from_kgid_munged (gap)", i);
	check(!kuid_has_mapping(ns, KUIDT_INIT(kid + 1)), "kuid_has_mapping (gap)", i);
}

static int __init idmap_mod_init(void)
{
	struct user_namespace *ns;
	struct task_struct *task;
	const struct cred *cred;
	struct pid *p;
	unsigned int i;

	if (step < 2)
		return -EINVAL;
	p = find_get_pid(pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return -ENOENT;
	cred = get_task_cred(task);
	put_task_struct(task);
	ns = get_user_ns(cred->user_ns);
	put_cred(cred);
	if (!ns->parent) {
		put_user_ns(ns);
		return -EINVAL;
	}
	for (i = 0; i < extents; i++)
		check_extent(ns, i);
	/* Past the last extent and before the first: nothing. */
	check(!uid_valid(make_kuid(ns, extents * step)), "make_kuid (after)", extents);
	check(from_kuid(ns, KUIDT_INIT(lower - 1)) == (uid_t)-1, "from_kuid (before)", 0);
	put_user_ns(ns);
	pr_info("idmap_mod: %u extents, %lu conversions, %lu wrong\n",
		extents, conversions, wrong);
	return wrong ? -EINVAL : 0;
}

static void __exit idmap_mod_exit(void)
{
}

module_init(idmap_mod_init);
module_exit(idmap_mod_exit);
MODULE_DESCRIPTION("Converts ids through a user namespace's maps and checks them");
MODULE_LICENSE("GPL");
