// SPDX-License-Identifier: GPL-2.0
/*
 * cache_stats_stub.c - PLACEHOLDERS for what the caches will provide.
 *
 * ======================================================================
 * TO BE REPLACED AT MERGE: the metadata caches (written in another tree)
 * implement these two functions with the same prototypes (ctl.h); delete
 * this file and its line in Kbuild when they land.
 * ======================================================================
 *
 * Until then the control plane reports every cache counter as zero, and a
 * flush only drops the unused dentries of the scope (the pass-through
 * layer's only cached state).
 */
#include <linux/dcache.h>
#include <linux/string.h>

#include "metacache.h"
#include "ctl.h"

/**
 * mc_cache_stats_get() - the counters of one cache of a mount
 * @sbi: the mount
 * @cache: enum metacache_cache
 * @out: filled with the counters: hits, misses, expired, renewed and
 *	evicted only ever grow (since the mount); entries and mem_bytes are
 *	current values
 *
 * STUB: all zero.
 * Context: process context; may be called with the mount's mc_ctl::lock
 * held, so must not take it.
 */
void mc_cache_stats_get(struct mc_sb_info *sbi, int cache,
			struct mc_cache_counters *out)
{
	memset(out, 0, sizeof(*out));
}

/**
 * mc_cache_flush() - drop cached state of a mount
 * @sbi: the mount
 * @subtree: drop what is cached about this name and everything under it,
 *	or NULL for the whole mount
 *
 * STUB: shrinks the unused dentries under @subtree (or the root); counts
 * nothing.
 * Context: process context, may sleep; the mount is pinned by the caller.
 * Return: the number of cached entries dropped (of any cache), or a
 * negative errno.
 */
int mc_cache_flush(struct mc_sb_info *sbi, struct dentry *subtree)
{
	shrink_dcache_parent(subtree ? subtree : sbi->sb->s_root);
	return 0;
}
