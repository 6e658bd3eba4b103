/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - metacache's tracepoints (tracefs events/metacache/).
 *
 *	metacache_lower_call	a call into the lower file system, its latency
 *	metacache_served	an operation answered from a cache, its latency
 *	metacache_cache		a cache hit, miss, expiry, renewal or eviction
 *	metacache_invalidate	cached attributes or a listing dropped
 *	metacache_handle	a kept lower file reused, kept, or closed
 *
 * "mount" is the mount id of metacachectl and debugfs.  Watch them with
 * perf trace -e 'metacache:*', trace-cmd record -e metacache, or bpftrace.
 * Included at the end of metacache.h; trace.c creates the events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metacache

#if !defined(_METACACHE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _METACACHE_TRACE_H

#include <linux/tracepoint.h>

/* The enum values, for user space tools that parse the format. */
TRACE_DEFINE_ENUM(MC_OP_LOOKUP);
TRACE_DEFINE_ENUM(MC_OP_REVALIDATE);
TRACE_DEFINE_ENUM(MC_OP_GETATTR);
TRACE_DEFINE_ENUM(MC_OP_SETATTR);
TRACE_DEFINE_ENUM(MC_OP_PERMISSION);
TRACE_DEFINE_ENUM(MC_OP_CREATE);
TRACE_DEFINE_ENUM(MC_OP_MKDIR);
TRACE_DEFINE_ENUM(MC_OP_MKNOD);
TRACE_DEFINE_ENUM(MC_OP_SYMLINK);
TRACE_DEFINE_ENUM(MC_OP_LINK);
TRACE_DEFINE_ENUM(MC_OP_UNLINK);
TRACE_DEFINE_ENUM(MC_OP_RMDIR);
TRACE_DEFINE_ENUM(MC_OP_RENAME);
TRACE_DEFINE_ENUM(MC_OP_OPEN);
TRACE_DEFINE_ENUM(MC_OP_RELEASE);
TRACE_DEFINE_ENUM(MC_OP_READ);
TRACE_DEFINE_ENUM(MC_OP_WRITE);
TRACE_DEFINE_ENUM(MC_OP_READDIR);
TRACE_DEFINE_ENUM(MC_OP_FSYNC);
TRACE_DEFINE_ENUM(MC_OP_XATTR);
TRACE_DEFINE_ENUM(MC_OP_LOCK);
TRACE_DEFINE_ENUM(MC_OP_IOCTL);
TRACE_DEFINE_ENUM(MC_OP_STATFS);
TRACE_DEFINE_ENUM(MC_OP_OTHER);
TRACE_DEFINE_ENUM(MC_CACHE_ENTRY);
TRACE_DEFINE_ENUM(MC_CACHE_NEG);
TRACE_DEFINE_ENUM(MC_CACHE_ATTR);
TRACE_DEFINE_ENUM(MC_CACHE_DIR);
TRACE_DEFINE_ENUM(MC_CACHE_HANDLE);
TRACE_DEFINE_ENUM(MC_EV_HIT);
TRACE_DEFINE_ENUM(MC_EV_MISS);
TRACE_DEFINE_ENUM(MC_EV_EXPIRED);
TRACE_DEFINE_ENUM(MC_EV_RENEWED);
TRACE_DEFINE_ENUM(MC_EV_EVICTED);
TRACE_DEFINE_ENUM(MC_INVAL_ATTR);
TRACE_DEFINE_ENUM(MC_INVAL_DIR);
TRACE_DEFINE_ENUM(MC_HANDLE_REUSE);
TRACE_DEFINE_ENUM(MC_HANDLE_KEEP);
TRACE_DEFINE_ENUM(MC_HANDLE_CLOSE);

/* enum mc_op as its name (lower.c's mc_op_names). */
#define mc_show_op(op)							\
	__print_symbolic(op,						\
			 { MC_OP_LOOKUP, "lookup" },	\
			 { MC_OP_REVALIDATE, "revalidate" },	\
			 { MC_OP_GETATTR, "getattr" },	\
			 { MC_OP_SETATTR, "setattr" },	\
			 { MC_OP_PERMISSION, "permission" },	\
			 { MC_OP_CREATE, "create" },	\
			 { MC_OP_MKDIR, "mkdir" },	\
			 { MC_OP_MKNOD, "mknod" },	\
			 { MC_OP_SYMLINK, "symlink" },	\
			 { MC_OP_LINK, "link" },	\
			 { MC_OP_UNLINK, "unlink" },	\
			 { MC_OP_RMDIR, "rmdir" },	\
			 { MC_OP_RENAME, "rename" },	\
			 { MC_OP_OPEN, "open" },	\
			 { MC_OP_RELEASE, "release" },	\
			 { MC_OP_READ, "read" },	\
			 { MC_OP_WRITE, "write" },	\
			 { MC_OP_READDIR, "readdir" },	\
			 { MC_OP_FSYNC, "fsync" },	\
			 { MC_OP_XATTR, "xattr" },	\
			 { MC_OP_LOCK, "lock" },	\
			 { MC_OP_IOCTL, "ioctl" },	\
			 { MC_OP_STATFS, "statfs" },	\
			 { MC_OP_OTHER, "other" })

DECLARE_EVENT_CLASS(metacache_op_class,
	TP_PROTO(unsigned int mount, int op, u64 ns),
	TP_ARGS(mount, op, ns),
	TP_STRUCT__entry(
		__field(unsigned int, mount)
		__field(int, op)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->mount = mount;
		__entry->op = op;
		__entry->ns = ns;
	),
	TP_printk("mount=%u op=%s ns=%llu", __entry->mount,
		  mc_show_op(__entry->op),
		  (unsigned long long)__entry->ns)
);

DEFINE_EVENT(metacache_op_class, metacache_lower_call,
	TP_PROTO(unsigned int mount, int op, u64 ns),
	TP_ARGS(mount, op, ns));

DEFINE_EVENT(metacache_op_class, metacache_served,
	TP_PROTO(unsigned int mount, int op, u64 ns),
	TP_ARGS(mount, op, ns));

/* A lower call failed on purpose by fault.c, with -@err, not made. */
TRACE_EVENT(metacache_fault,
	TP_PROTO(unsigned int mount, int op, int err),
	TP_ARGS(mount, op, err),
	TP_STRUCT__entry(
		__field(unsigned int, mount)
		__field(int, op)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->mount = mount;
		__entry->op = op;
		__entry->err = err;
	),
	TP_printk("mount=%u op=%s err=%d", __entry->mount,
		  mc_show_op(__entry->op), __entry->err)
);

TRACE_EVENT(metacache_cache,
	TP_PROTO(unsigned int mount, int cache, int event),
	TP_ARGS(mount, cache, event),
	TP_STRUCT__entry(
		__field(unsigned int, mount)
		__field(int, cache)
		__field(int, event)
	),
	TP_fast_assign(
		__entry->mount = mount;
		__entry->cache = cache;
		__entry->event = event;
	),
	TP_printk("mount=%u cache=%s %s", __entry->mount,
		  __print_symbolic(__entry->cache,
				   { MC_CACHE_ENTRY, "entry" },
				   { MC_CACHE_NEG, "neg" },
				   { MC_CACHE_ATTR, "attr" },
				   { MC_CACHE_DIR, "dir" },
				   { MC_CACHE_HANDLE, "handle" }),
		  __print_symbolic(__entry->event,
				   { MC_EV_HIT, "hit" },
				   { MC_EV_MISS, "miss" },
				   { MC_EV_EXPIRED, "expired" },
				   { MC_EV_RENEWED, "renewed" },
				   { MC_EV_EVICTED, "evicted" }))
);

TRACE_EVENT(metacache_invalidate,
	TP_PROTO(unsigned int mount, unsigned long ino, int what),
	TP_ARGS(mount, ino, what),
	TP_STRUCT__entry(
		__field(unsigned int, mount)
		__field(unsigned long, ino)
		__field(int, what)
	),
	TP_fast_assign(
		__entry->mount = mount;
		__entry->ino = ino;
		__entry->what = what;
	),
	TP_printk("mount=%u ino=%lu %s", __entry->mount, __entry->ino,
		  __print_symbolic(__entry->what,
				   { MC_INVAL_ATTR, "attr" },
				   { MC_INVAL_DIR, "dir" }))
);

TRACE_EVENT(metacache_handle,
	TP_PROTO(unsigned int mount, unsigned long ino, int event),
	TP_ARGS(mount, ino, event),
	TP_STRUCT__entry(
		__field(unsigned int, mount)
		__field(unsigned long, ino)
		__field(int, event)
	),
	TP_fast_assign(
		__entry->mount = mount;
		__entry->ino = ino;
		__entry->event = event;
	),
	TP_printk("mount=%u ino=%lu %s", __entry->mount, __entry->ino,
		  __print_symbolic(__entry->event,
				   { MC_HANDLE_REUSE, "reuse" },
				   { MC_HANDLE_KEEP, "keep" },
				   { MC_HANDLE_CLOSE, "close" }))
);

#endif /* _METACACHE_TRACE_H */

/* This part must be outside the guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
