/*
 * The job's cgroup with resource limits (memory.max, pids.max, cpu.max):
 * the controllers they need, the layout that the no-internal-process rule
 * leaves (Documentation/admin-guide/cgroup-v2.rst, "No Internal Process
 * Constraint"), and undoing that layout afterwards.
 */
#include "config.h"

#include "cgroup_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "proc.h"

/* The controllers limits need, as bits of controller_names. */
enum { CTL_MEMORY = 1u, CTL_PIDS = 2u, CTL_CPU = 4u, CTL_COUNT = 3 };
static const char *const controller_names[CTL_COUNT] = {"memory", "pids",
							"cpu"};
static const char *const controller_options[CTL_COUNT] = {
    "--memory-max", "--pids-max", "--cpu-max"};

/* The bits of the controllers that the limits l need. */
static unsigned needed_controllers(const struct runx_cgroup_limits *l)
{
	return (l->memory_max >= 0 || l->count_oom ? CTL_MEMORY : 0) |
	       (l->pids_max >= 0 ? CTL_PIDS : 0) |
	       (l->cpu_quota_us > 0 ? CTL_CPU : 0);
}

bool runx_cgroup_limits_any(const struct runx_cgroup_limits *l)
{
	return l->memory_max >= 0 || l->pids_max >= 0 || l->cpu_quota_us > 0;
}

/* True if the space-separated list text holds the word name. */
static bool has_word(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; (p = strstr(p, name)) != NULL; p += len)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* dir/file (cgroup.controllers, ...) as text and as bits; 0 or -errno. */
static int read_controllers(const char *dir, const char *file, char *text,
			    size_t size, unsigned *bits)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int r = runx_cgroup_read_file(path, text, size);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	*bits = 0;
	for (int i = 0; i < CTL_COUNT; i++)
		if (has_word(text, controller_names[i]))
			*bits |= 1u << i;
	return 0;
}

/* "+memory +pids" (on) or "-memory -pids" into dir's subtree_control. */
static int write_subtree(const char *dir, unsigned bits, bool on)
{
	char text[64] = "";

	for (int i = 0; i < CTL_COUNT; i++)
		if (bits & (1u << i))
			snprintf(text + strlen(text),
				 sizeof(text) - strlen(text), "%s%c%s",
				 text[0] ? " " : "", on ? '+' : '-',
				 controller_names[i]);
	return text[0]
		   ? runx_cgroup_write_in(dir, "cgroup.subtree_control", text)
		   : 0;
}

/* Enables the controllers of bits in dir that are not yet enabled there,
 * recording them in *added; 0 or -errno with a message in err. */
static int enable_in(const char *dir, unsigned bits, unsigned *added, char *err,
		     size_t errsize)
{
	char text[256];
	unsigned have = 0;
	int r = read_controllers(dir, "cgroup.subtree_control", text,
				 sizeof(text), &have);

	if (r == 0 && (r = write_subtree(dir, bits & ~have, true)) == 0) {
		*added |= bits & ~have;
		return 0;
	}
	snprintf(err, errsize,
		 "cannot enable the controllers for the job in '%s': %s", dir,
		 strerror(-r));
	return r;
}

/* The names and the options of the controllers of bits, ", "-joined;
 * the memory controller's option is --retry-on=oom where l sets no
 * memory.max. */
static void name_controllers(unsigned bits, const struct runx_cgroup_limits *l,
			     char *names, size_t nsize, char *opts,
			     size_t osize)
{
	names[0] = opts[0] = '\0';
	for (int i = 0; i < CTL_COUNT; i++)
		if (bits & (1u << i)) {
			snprintf(names + strlen(names), nsize - strlen(names),
				 "%s%s", names[0] ? ", " : "",
				 controller_names[i]);
			snprintf(opts + strlen(opts), osize - strlen(opts),
				 "%s%s", opts[0] ? ", " : "",
				 (1u << i) == CTL_MEMORY && l->memory_max < 0
				     ? "--retry-on=oom"
				     : controller_options[i]);
		}
}

/*
 * The bits of the controllers bound to a cgroup v1 hierarchy: a non-zero
 * "hierarchy" column in /proc/cgroups (cgroups(7); 0 for cgroup v2).
 */
static unsigned controllers_on_v1(void)
{
	char name[64];
	int hierarchy, n, on;
	unsigned bits = 0;
	FILE *f = fopen("/proc/cgroups", "re");

	if (f == NULL)
		return 0;
	fscanf(f, "%*[^\n]\n"); /* the header */
	while (fscanf(f, "%63s %d %d %d", name, &hierarchy, &n, &on) == 4)
		for (int i = 0; i < CTL_COUNT; i++)
			if (hierarchy != 0 &&
			    strcmp(name, controller_names[i]) == 0)
				bits |= 1u << i;
	fclose(f);
	return bits;
}

/*
 * Where the cgroup v1 hierarchy of controller name is mounted (the mount
 * point of a "cgroup" file system whose options hold name, from
 * /proc/self/mountinfo, proc(5)), into mnt; "" if runx sees none.
 */
static void v1_mount(const char *name, char *mnt, size_t size)
{
	char line[1024], point[512], fstype[64], opts[512];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	mnt[0] = '\0';
	if (f == NULL)
		return;
	while (mnt[0] == '\0' && fgets(line, sizeof(line), f) != NULL) {
		const char *dash = strstr(line, " - ");
		if (dash == NULL ||
		    sscanf(line, "%*s %*s %*s %*s %511s", point) != 1 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, opts) != 2 ||
		    strcmp(fstype, "cgroup") != 0)
			continue;
		for (char *o = strtok(opts, ","); o != NULL;
		     o = strtok(NULL, ","))
			if (strcmp(o, name) == 0)
				snprintf(mnt, size, "%s", point);
	}
	fclose(f);
}

/*
 * The refusal of limits whose controllers (missing) runx's cgroup own
 * does not offer, with advice that can work on this host: a controller
 * bound to cgroup v1 cannot be delegated in cgroup v2 at all; systemd-run
 * is named only where systemd is the init (/run/systemd/system, as
 * sd_booted(3) tests).
 */
static void refuse_missing(const char *own, const char *text, unsigned missing,
			   const struct runx_cgroup_limits *l, char *err,
			   size_t errsize)
{
	char names[64], opts[64], mnt[512];
	unsigned v1 = missing & controllers_on_v1();
	const char *are;

	name_controllers(v1 ? v1 : missing, l, names, sizeof(names), opts,
			 sizeof(opts));
	are = strchr(names, ',') ? "s are" : " is";
	if (v1 != 0) {
		char list[64] = ""; /* cgroup_no_v1= takes "memory,pids" */
		mnt[0] = '\0';
		for (int i = 0; i < CTL_COUNT; i++)
			if (v1 & (1u << i)) {
				if (mnt[0] == '\0') /* the first one's */
					v1_mount(controller_names[i], mnt,
						 sizeof(mnt));
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list), "%s%s",
					 list[0] ? "," : "",
					 controller_names[i]);
			}
		snprintf(err, errsize,
			 "%s: the %s controller%s on cgroup v1 on this host "
			 "(mounted at '%s'), and runx needs %s on cgroup v2: "
			 "boot with cgroup_no_v1=%s (or "
			 "systemd.unified_cgroup_hierarchy=1), or run runx "
			 "where cgroup v2 is the only hierarchy",
			 opts, names, are, mnt[0] ? mnt : "?",
			 strchr(names, ',') ? "them" : "it", list);
		return;
	}
	snprintf(
	    err, errsize,
	    "%s: the cgroup v2 %s controller%s not offered to runx's "
	    "cgroup '%s' (its cgroup.controllers: '%s'); %s",
	    opts, names, are, own, text,
	    access("/run/systemd/system", F_OK) == 0
		? "run runx in a cgroup delegated to you, e.g. "
		  "'systemd-run --user --scope -p Delegate=yes runx ...'"
		: "enable it in the parent cgroups' cgroup.subtree_control, "
		  "or run runx in a cgroup delegated to you");
}

int runx_cgroup_check_controllers(const char *own,
				  const struct runx_cgroup_limits *l, char *err,
				  size_t errsize)
{
	char text[256];
	unsigned have = 0, missing;
	int r = read_controllers(own, "cgroup.controllers", text, sizeof(text),
				 &have);

	if (r < 0) {
		snprintf(err, errsize,
			 "cannot read '%s/cgroup.controllers': %s", own,
			 strerror(-r));
		return r;
	}
	missing = needed_controllers(l) & ~have;
	if (missing == 0)
		return 0;
	refuse_missing(own, text, missing, l, err, errsize);
	return -ENOTSUP;
}

/* 1 if dir's cgroup.procs lists a process other than runx, 0 if not. */
static int holds_others(const char *dir)
{
	char path[PATH_MAX + 16];
	long pid;
	int others = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (!others && runx_read_long(f, &pid))
		others = pid != (long)getpid();
	fclose(f);
	return others;
}

/* Writes the limits l into the job's cgroup cg->path; 0 or -errno + err. */
static int set_limits(const struct runx_cgroup *cg,
		      const struct runx_cgroup_limits *l, char *err,
		      size_t errsize)
{
	char text[3][64];
	const char *file[3] = {NULL, NULL, NULL};
	int r = 0;

	if (l->memory_max >= 0)
		file[0] = "memory.max";
	if (l->pids_max >= 0)
		file[1] = "pids.max";
	if (l->cpu_quota_us > 0)
		file[2] = "cpu.max";
	snprintf(text[0], sizeof(text[0]), "%lld", (long long)l->memory_max);
	snprintf(text[1], sizeof(text[1]), "%lld", (long long)l->pids_max);
	snprintf(text[2], sizeof(text[2]), "%lld %lld",
		 (long long)l->cpu_quota_us, (long long)l->cpu_period_us);
	for (int i = 0; r == 0 && i < 3; i++)
		if (file[i] != NULL &&
		    (r = runx_cgroup_write_in(cg->path, file[i], text[i])) < 0)
			snprintf(err, errsize,
				 "cannot set %s of '%s' to '%s': %s", file[i],
				 cg->path, text[i], strerror(-r));
	return r;
}

/* The parent directory of dir into buf (dir has a '/' after the mount). */
static void parent_dir(const char *dir, char *buf, size_t size)
{
	snprintf(buf, size, "%s", dir);
	char *slash = strrchr(buf, '/');
	if (slash != NULL && slash != buf)
		*slash = '\0';
}

/* Makes cg->top ("base/runx-PID-N"), top/supervisor and cg->path
 * ("top/job"); 0 or -errno + err. */
static int make_nest_dirs(struct runx_cgroup *cg, const char *base, char *sup,
			  size_t supsize, char *err, size_t errsize)
{
	int r = runx_cgroup_unique_name(cg->top, sizeof(cg->top), base, err,
					errsize);

	if (r < 0 || (r = runx_cgroup_make_dir(cg->top, err, errsize)) < 0) {
		cg->top[0] = '\0';
		return r;
	}
	snprintf(sup, supsize, "%s/supervisor", cg->top);
	if (strlen(cg->top) + sizeof("/job") > sizeof(cg->path)) {
		snprintf(err, errsize, "cgroup path '%s' is too long", cg->top);
		return -ENAMETOOLONG;
	}
	memcpy(cg->path, cg->top, strlen(cg->top));
	memcpy(cg->path + strlen(cg->top), "/job", sizeof("/job"));
	if ((r = runx_cgroup_make_dir(sup, err, errsize)) < 0)
		return r;
	return runx_cgroup_make_dir(cg->path, err, errsize);
}

/*
 * The crun/systemd layout: base/runx-PID-N with supervisor and job
 * below it, runx moved into supervisor, the controllers enabled in
 * base (only when base is own, which holds nothing else once runx has
 * left) and in runx-PID-N.  0 or -errno + err; cg records what to undo.
 */
static int nest(struct runx_cgroup *cg, const char *own, const char *base,
		unsigned bits, char *err, size_t errsize)
{
	char sup[PATH_MAX + 16], pid[32];
	int r = make_nest_dirs(cg, base, sup, sizeof(sup), err, errsize);

	if (r < 0)
		return r;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(cg->home, sizeof(cg->home), "%s", own);
	if ((r = runx_cgroup_write_in(sup, "cgroup.procs", pid)) < 0) {
		snprintf(err, errsize, "cannot move runx into '%s': %s", sup,
			 strerror(-r));
		return r;
	}
	cg->moved = true;
	if (strcmp(base, own) == 0 &&
	    (r = enable_in(own, bits, &cg->home_added, err, errsize)) < 0)
		return r;
	return enable_in(cg->top, bits, &cg->top_added, err, errsize);
}

/*
 * The root layout: the controllers enabled in the root's
 * cgroup.subtree_control (left so: other jobs may use them), the job in
 * own/runx-PID-N.  The root is exempt from the no-internal-process rule;
 * the root of a cgroup namespace is not, and fails with EBUSY while it
 * holds processes.  0 or -errno with a message in err.
 */
static int root_layout(struct runx_cgroup *cg, const char *own, unsigned bits,
		       char *err, size_t errsize)
{
	unsigned added = 0;
	int r = enable_in(own, bits, &added, err, errsize);

	if (r < 0 || (r = runx_cgroup_unique_name(cg->path, sizeof(cg->path),
						  own, err, errsize)) < 0)
		return r;
	if ((r = runx_cgroup_make_dir(cg->path, err, errsize)) < 0)
		cg->path[0] = '\0';
	return r;
}

/* The job's cgroup next to own, which holds other processes: below own's
 * parent, if runx may make a cgroup there.  0 or -errno + err. */
static int beside(struct runx_cgroup *cg, const char *own, unsigned bits,
		  char *err, size_t errsize)
{
	char parent[PATH_MAX];
	int r;

	/* no child of own can have the controllers */
	parent_dir(own, parent, sizeof(parent));
	if ((r = runx_cgroup_probe(parent)) < 0) {
		snprintf(
		    err, errsize,
		    "runx's cgroup '%s' holds other processes, so limits "
		    "need a cgroup next to it, and '%s' is not writable: %s",
		    own, parent, strerror(-r));
		return r;
	}
	return nest(cg, own, parent, bits, err, errsize);
}

/*
 * Lays the job's cgroup out for the limits (see the header): own is runx's
 * cgroup directory, own_rel its path as /proc/self/cgroup names it.  0 or
 * -errno with a message in err.
 */
static int lay_out(struct runx_cgroup *cg, const char *own, const char *own_rel,
		   unsigned bits, char *err, size_t errsize)
{
	bool root = strcmp(own_rel, "/") == 0;
	int r;

	if (root && (r = root_layout(cg, own, bits, err, errsize)) != -EBUSY)
		return r;
	int others = holds_others(own);
	if (others < 0) {
		snprintf(err, errsize, "cannot read the processes of '%s': %s",
			 own, strerror(-others));
		return others;
	}
	if (!others)
		return nest(cg, own, own, bits, err, errsize);
	if (root) /* a cgroup namespace's root: its parent is not ours */
		return -EBUSY; /* err: root_layout's message */
	return beside(cg, own, bits, err, errsize);
}

int runx_cgroup_create_limited(struct runx_cgroup *cg, const char *own,
			       const struct runx_cgroup_limits *l, char *err,
			       size_t errsize)
{
	char own_rel[PATH_MAX];
	/* before runx may move itself: /proc/self/cgroup names where to */
	int r = runx_cgroup_own_rel(own, own_rel, sizeof(own_rel));

	runx_cgroup_reset(cg);
	if (r < 0) {
		snprintf(err, errsize, "cannot read /proc/self/cgroup: %s",
			 strerror(-r));
		return r;
	}
	if ((r = runx_cgroup_check_controllers(own, l, err, errsize)) < 0)
		return r;
	r = lay_out(cg, own, own_rel, needed_controllers(l), err, errsize);
	if (r == 0)
		r = set_limits(cg, l, err, errsize);
	if (r == 0)
		r = runx_cgroup_open_job(cg, own, own_rel, err, errsize);
	if (r < 0) {
		runx_cgroup_remove(cg, 0);
		cg->path[0] = cg->top[0] = '\0';
	}
	return r;
}

/*
 * The controllers runx enabled are disabled top's first (a controller can
 * be disabled only where no child enables it), then runx goes back into
 * its own cgroup (which must not enable domain controllers then), then
 * the runx-PID-N directory goes.
 */
int runx_cgroup_undo_layout(struct runx_cgroup *cg)
{
	char pid[32];
	int r = 0;

	if (cg->moved) {
		if (cg->home_added != 0) {
			write_subtree(cg->top, cg->top_added, false);
			r = write_subtree(cg->home, cg->home_added, false);
		}
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		int m = runx_cgroup_write_in(cg->home, "cgroup.procs", pid);
		if (m < 0 && r == 0)
			r = m;
		cg->moved = m < 0;
		if (m == 0)
			cg->home_added = cg->top_added = 0;
	}
	if (cg->top[0] != '\0' && !cg->moved) {
		int t = runx_cgroup_remove_tree(cg->top);
		if (r == 0)
			r = t;
	}
	return r;
}
