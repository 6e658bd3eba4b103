# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the test bed (sourced by the job script inside the guest).
# Starts the servers from scratch and mounts the three lower file systems:
#
#   /tmp/mc/export/nfs     tmpfs exported by the kernel NFS server (NFSv4.2)
#   /tmp/mc/export/cifs    tmpfs shared by Samba's smbd (SMB 3.1.1)
#   /tmp/mc/lower/tmpfs    a local tmpfs
#   /tmp/mc/lower/nfs      the NFS client mount of the export
#   /tmp/mc/lower/cifs     the cifs client mount of the share
#   /tmp/mc/lower2/nfs     a second, independent NFS client (nosharecache)
#   /tmp/mc/lower2/cifs    a second, independent cifs client (nosharesock)
#
# The upper (metacache) mount points are /tmp/mc/upper/<fs>.

MC=/tmp/mc
MC_FSTYPES="tmpfs nfs cifs"
# smbd's logs, one per client machine (log level 1: errors, and the lease
# breaks it timed out, which stress/integrity counts).
MC_SMB_LOGS=/var/log/samba

# Seconds since boot, for the stage timings.
mc_uptime() {
	cut -d' ' -f1 /proc/uptime
}

# mc_stage NAME: record that stage NAME ended now (results/timings.txt).
mc_stage() {
	echo "$1 $(mc_uptime)" >> "$MC_RESULTS/timings.txt"
	echo "testbed: $1 done at $(mc_uptime) s"
}

mc_log() {
	echo "testbed: $*"
}

# Wait up to $2 tenths of a second for a TCP listener on port $1 (hex in
# /proc/net/tcp, state 0A = LISTEN).
mc_wait_port() {
	local hex i=0
	hex=$(printf '%04X' "$1")
	while [ $i -lt "$2" ]; do
		if grep -q ":$hex [0-9A-F:]* 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

mc_start_nfs() {
	# (built in on the debug kernel, which has no /lib/modules)
	grep -qw nfsd /proc/filesystems || modprobe nfsd || return 1
	mkdir -p $MC/export/nfs /var/lib/nfs/v4recovery /run/rpcbind
	mount -t tmpfs -o mode=755 tmpfs $MC/export/nfs || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	# The shortest lease and grace period nfsd accepts: a fresh server
	# refuses non-reclaim OPENs during its grace period.
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	# lockd's grace period (50 s by default) holds back NFSv4 locks too
	# (locks_in_grace() asks every lock manager): without this the first
	# lock test of a boot waited 40 s.  lockd came with nfsd.
	echo 10 > /proc/sys/fs/nfs/nlm_grace_period || return 1
	# No delegations (nfsd takes them as file leases): late in a long,
	# loaded run, recalls were seen not to reach the clients, which then
	# trusted revoked delegations (stale reads, local-only locks) and
	# failed every cross-client test after that, with or without
	# metacache.  Each client's close-to-open and locking is what the
	# suite tests.
	echo 0 > /proc/sys/fs/leases-enable
	echo "$MC/export/nfs 127.0.0.1(rw,no_root_squash,insecure,fsid=0,no_subtree_check,sync)" > /etc/exports
	rpcbind -w || return 1
	rpc.mountd || return 1
	exportfs -ra || return 1
	rpc.nfsd 8 || return 1
	mc_wait_port 2049 300
}

mc_start_smb() {
	mkdir -p $MC/export/cifs /var/lib/samba/private /var/cache/samba \
		/run/samba $MC_SMB_LOGS /etc/samba
	mount -t tmpfs -o mode=755 tmpfs $MC/export/cifs || return 1
	cat > /etc/samba/smb.conf <<EOF
[global]
	server role = standalone server
	map to guest = Bad User
	disable netbios = yes
	smb ports = 445
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
	log file = $MC_SMB_LOGS/log.%m
	log level = 1
[share]
	path = $MC/export/cifs
	guest ok = yes
	read only = no
	force user = root
EOF
	smbd -D || return 1
	mc_wait_port 445 600
}

# Mount the lowers.  Each step retries a little: a fresh nfsd may still be
# in its grace period and smbd may be listening before it accepts sessions.
mc_retry() {
	local i=0
	while [ $i -lt 30 ]; do
		"$@" 2>/dev/null && return 0
		sleep 1
		i=$((i + 1))
	done
	"$@"
}

mc_mount_lowers() {
	mkdir -p $MC/lower/tmpfs $MC/lower/nfs $MC/lower/cifs \
		$MC/lower2/nfs $MC/lower2/cifs \
		$MC/upper/tmpfs $MC/upper/nfs $MC/upper/cifs
	mount -t tmpfs -o mode=755 tmpfs $MC/lower/tmpfs || return 1
	mc_retry mount -t nfs4 -o vers=4.2 127.0.0.1:/ $MC/lower/nfs || return 1
	mc_retry mount -t nfs4 -o vers=4.2,nosharecache 127.0.0.1:/ $MC/lower2/nfs || return 1
	mc_retry mount -t cifs //127.0.0.1/share $MC/lower/cifs -o guest,vers=3.1.1 || return 1
	mc_retry mount -t cifs //127.0.0.1/share $MC/lower2/cifs -o guest,vers=3.1.1,nosharesock || return 1
}

# The whole set-up: loopback, both servers, the lower mounts.
mc_setup() {
	ip link set lo up
	hostname mcguest 2>/dev/null
	mc_stage boot
	mc_start_nfs || { mc_log "nfsd failed to start"; return 1; }
	mc_start_smb || { mc_log "smbd failed to start"; return 1; }
	mc_stage servers
	mc_mount_lowers || { mc_log "mounting the lowers failed"; return 1; }
	mc_stage lowers
}

# Per-lower paths, for the test runner.
# mc_rtt RTT: add RTT of round-trip delay to every packet between the
# guest's clients and its servers (netem on loopback, half of RTT each way:
# the servers run in the guest and are reached on 127.0.0.1, so every
# request and every reply crosses lo once).  RTT: <n>ms or <n>us, e.g. 2ms,
# 500us.  "" or 0 removes it.  Prints the delay applied.
mc_rtt() {
	local us
	case "${1:-}" in
	""|0) tc qdisc del dev lo root 2>/dev/null; return 0 ;;
	*[0-9]ms) us=$(( ${1%ms} * 1000 )) ;;
	*[0-9]us) us=${1%us} ;;
	*) mc_log "bad RTT '$1': want <n>ms or <n>us"; return 1 ;;
	esac
	case "$us" in ''|*[!0-9]*) mc_log "bad RTT '$1'"; return 1 ;; esac
	[ "$us" -ge 2 ] && [ "$us" -le 1000000 ] ||
		{ mc_log "RTT '$1' out of range (2us-1000ms)"; return 1; }
	modprobe sch_netem 2>/dev/null
	# A deep queue: netem's default of 1000 packets drops under bulk I/O.
	tc qdisc replace dev lo root netem delay "$((us / 2))us" limit 1000000 ||
		{ mc_log "tc netem on lo failed"; return 1; }
	echo "rtt: netem delay $((us / 2))us each way on lo ($us us round trip)"
}

mc_lower()  { echo "$MC/lower/$1"; }
mc_upper()  { echo "$MC/upper/$1"; }
mc_lower2() { [ "$1" = tmpfs ] && echo "$MC/lower/tmpfs" || echo "$MC/lower2/$1"; }
mc_server() { [ "$1" = tmpfs ] && echo "$MC/lower/tmpfs" || echo "$MC/export/$1"; }

# Save the kernel log and a few facts at the end of a run.
mc_collect() {
	dmesg > "$MC_RESULTS/dmesg.txt" 2>&1
	cat /proc/mounts > "$MC_RESULTS/mounts.txt" 2>&1
	if ls $MC_SMB_LOGS/log.* > /dev/null 2>&1; then
		mkdir -p "$MC_RESULTS/samba" &&
			cp $MC_SMB_LOGS/log.* "$MC_RESULTS/samba/"
	fi
	if [ -r /sys/kernel/debug/kmemleak ]; then
		echo scan > /sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak > "$MC_RESULTS/kmemleak.txt"
	fi
}
