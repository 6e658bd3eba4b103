// SPDX-License-Identifier: GPL-2.0
/*
 * gen_rmmod: unloading the module while a generator job runs (on a tmpfs
 * of our own, no metacache mount: nothing else holds the module).  The
 * unload either stops the job cleanly (its working tree removed, the
 * tmpfs unmountable afterwards) or is refused as busy; then stopping the
 * job lets it unload.  Reloads the module if it was loaded before.
 */
#include <sys/mount.h>

#include "mctest.h"
#include "mcutil.h"
#include "genlib.h"

#define DIR_ "/tmp/mcgen-rmmod"

MCT_TEST(rmmod_with_a_running_job)
{
	const char *ko = mc_env("MC_KO");
	struct gen_params p = {
		.target = DIR_, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 2, .files = 10, .duration_ms = 3600 * 1000,
	};
	int was_loaded = mc_module_loaded("metacache");
	struct gen_job j = { 0 };
	struct nl_sock s;
	int64_t id;
	int err;

	MCT_ASSERT(ko, "MC_KO not set");
	if (!was_loaded)
		MCT_ASSERT(!mc_insmod(ko, NULL), "insmod %s: %s", ko,
			   strerror(errno));
	mkdir(DIR_, 0755);
	MCT_ASSERT(!mount("mcgen", DIR_, "tmpfs", 0, "size=16m"), "mount: %s",
		   strerror(errno));
	MCT_ASSERT(!nl_open(&s), "open the family");
	id = gen_start(&s, &p);
	MCT_ASSERT(id > 0, "start: %s (%s)", strerror((int)-id),
		   nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_wait_running(&s, (uint32_t)id, &j), "job not running");
	nl_close(&s);
	err = mc_rmmod("metacache");
	if (err) {
		/* refused: it must say busy, and the job goes on */
		MCT_EXPECT(err == -EBUSY || err == -EAGAIN || err == -EWOULDBLOCK,
			   "rmmod: %s", strerror(-err));
		MCT_ASSERT(!nl_open(&s), "open the family again");
		MCT_EXPECT(!gen_get(&s, (uint32_t)id, &j) &&
			   j.state < METACACHE_BENCH_ST_DONE,
			   "the job did not survive a refused rmmod");
		gen_stop(&s, (uint32_t)id);
		gen_wait(&s, (uint32_t)id, &j);
		nl_close(&s);
		MCT_EXPECT(!mc_rmmod("metacache"), "rmmod after the job: %s",
			   strerror(errno));
	} else {
		mct_diag("rmmod stopped the running job");
	}
	MCT_EXPECT(!mc_module_loaded("metacache"), "the module is still loaded");
	MCT_EXPECT(gen_count_entries(DIR_) == 0,
		   "%d entries left in " DIR_, gen_count_entries(DIR_));
	MCT_EXPECT(!umount(DIR_), "umount " DIR_ ": %s", strerror(errno));
	rmdir(DIR_);
	if (was_loaded)
		MCT_EXPECT(!mc_insmod(ko, NULL), "insmod again: %s",
			   strerror(errno));
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
