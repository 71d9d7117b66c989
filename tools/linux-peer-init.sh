#!/sbin/busybox sh
# shellcheck shell=sh
# /init of tools/linux-peer's initramfs: the Linux side of a side-by-side
# run.  Busybox sh and applets only (busybox-static is the whole userland).
#
# Kernel command line: peer.bus=nvme|sata peer.pc=N peer.vmra=default|on|off
# [peer.data=SERIAL: an NVMe data disk with that serial; the swap disk is
# then the other one, and /dev/peer-data links to the data disk]
# [peer.dataparts=N: its N partitions, linked as /dev/peer-datap1 ...]
# [peer.vm=NAME:VALUE,...: vm sysctls (swappiness, dirty_ratio,
# dirty_background_ratio, dirty_expire_centisecs) set before any step].
# The initramfs also holds (written by mmtools/linuxpeer.py):
#   /etc/modules.BUS   module names in load order, /lib/modules/NAME.ko each
#                      (modprobe --show-depends resolved them on the host)
#   /etc/peer-steps    the plan: one `step LABEL PROG...` line per step,
#                      each word quoted for sh
#   /bin/PROG          the workload programs
# Output on the console, one JSON record a line: linux_boot, linux_meminfo
# (start), linux_result per step, linux_meminfo (end), linux_done; or
# linux_error with the reason.  Then poweroff -f.
/sbin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1
/sbin/busybox mount -t proc proc /proc
/sbin/busybox mount -t sysfs sysfs /sys
/sbin/busybox --install -s /sbin
export PATH=/sbin
# Workloads run as /bin/NAME; keep busybox's own applets (touch!) off /bin.

fail() {
	echo "linux-peer: $*"
	echo "linux-peer: last kernel messages:"
	dmesg | tail -n 25 | sed 's/^/linux-peer:   /'
	echo "{\"type\":\"linux_error\",\"msg\":\"$*\"}"
	poweroff -f
	sleep 10
}

BUS=nvme
PC=3
VMRA=default
DATA=
DATAPARTS=0
VM=
# The command line is words by definition: split it on blanks.
# shellcheck disable=SC2013
for w in $(cat /proc/cmdline); do
	case "$w" in
	peer.bus=*) BUS=${w#peer.bus=} ;;
	peer.pc=*) PC=${w#peer.pc=} ;;
	peer.vmra=*) VMRA=${w#peer.vmra=} ;;
	peer.data=*) DATA=${w#peer.data=} ;;
	peer.dataparts=*) DATAPARTS=${w#peer.dataparts=} ;;
	peer.vm=*) VM=${w#peer.vm=} ;;
	esac
done
case $BUS in
nvme) DEV=nvme0n1 ;;
sata) DEV=sda ;;
*) fail "peer.bus=$BUS: expected nvme or sata" ;;
esac

MODS=$(cat "/etc/modules.$BUS") || fail "/etc/modules.$BUS missing"
for m in $MODS; do
	# A softdep (crc32c-intel...) may refuse this CPU; what matters is
	# whether the swap disk shows up below, which names the modules.
	insmod "/lib/modules/$m.ko" || echo "linux-peer: insmod $m.ko failed; going on"
done
# nvme_serial SERIAL: the namespace of the controller with that serial.
nvme_serial() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(sed 's/ *$//' "$c/serial" 2>/dev/null)" = "$1" ] || continue
		for n in "$c"/nvme*n1; do
			[ -b "/dev/${n##*/}" ] && echo "${n##*/}" && return
		done
	done
}

i=0
if [ -n "$DATA" ]; then
	[ "$BUS" = nvme ] || fail "peer.data needs peer.bus=nvme"
	# Linux may number the two controllers either way round: go by serial.
	while :; do
		DATADEV=$(nvme_serial "$DATA")
		DEV=$(for n in /sys/block/nvme*n1; do [ "${n##*/}" != "$DATADEV" ] && echo "${n##*/}"; done | head -n 1)
		[ -n "$DATADEV" ] && [ -n "$DEV" ] && [ -b "/dev/$DEV" ] && break
		i=$((i + 1))
		[ $i -gt 600 ] && fail "no data disk (serial $DATA) and swap disk 60 s after loading $(echo "$MODS" | tr '\n' ' ')"
		usleep 100000
	done
	ln -s "/dev/$DATADEV" /dev/peer-data || fail "cannot link /dev/peer-data to /dev/$DATADEV"
	k=1
	while [ "$k" -le "$DATAPARTS" ]; do
		while [ ! -b "/dev/${DATADEV}p$k" ]; do
			i=$((i + 1))
			[ $i -gt 600 ] && fail "no /dev/${DATADEV}p$k 60 s after loading $(echo "$MODS" | tr '\n' ' ')"
			usleep 100000
		done
		ln -s "/dev/${DATADEV}p$k" "/dev/peer-datap$k" || fail "cannot link /dev/peer-datap$k"
		k=$((k + 1))
	done
fi
while [ ! -b "/dev/$DEV" ]; do
	i=$((i + 1))
	[ $i -gt 600 ] && fail "no /dev/$DEV 60 s after loading $(echo "$MODS" | tr '\n' ' ')"
	usleep 100000
done
mkswap "/dev/$DEV" >/dev/null || fail "mkswap /dev/$DEV failed"
swapon "/dev/$DEV" || fail "swapon /dev/$DEV failed"
echo "$PC" >/proc/sys/vm/page-cluster || fail "cannot set vm.page-cluster to $PC"
VMRA_FILE=/sys/kernel/mm/swap/vma_ra_enabled
case $VMRA in
on) echo true >$VMRA_FILE || fail "cannot set vma_ra_enabled" ;;
off) echo false >$VMRA_FILE || fail "cannot set vma_ra_enabled" ;;
esac
for kv in $(echo "$VM" | tr ',' ' '); do
	name=${kv%%:*}
	case "$name" in
	swappiness | dirty_ratio | dirty_background_ratio | dirty_expire_centisecs | overcommit_memory | overcommit_ratio | overcommit_kbytes) ;;
	*) fail "peer.vm: $name is not a sysctl linux-peer sets" ;;
	esac
	echo "${kv#*:}" >"/proc/sys/vm/$name" || fail "cannot set vm.$name to ${kv#*:}"
done
vmjson() {
	sep=""
	for n in swappiness dirty_ratio dirty_background_ratio dirty_expire_centisecs overcommit_memory overcommit_ratio overcommit_kbytes; do
		printf '%s"%s":%s' "$sep" "$n" "$(cat "/proc/sys/vm/$n")"
		sep=,
	done
}
dmesg -n 1 # from here on the console carries only our lines

# Kernels before 4.14 have no vma_ra_enabled, old ones no THP: "n/a".
sysval() {
	if [ -r "$1" ]; then cat "$1"; else echo n/a; fi
}

echo "{\"type\":\"linux_boot\",\"kernel\":\"$(uname -r)\",\"version\":\"$(cat /proc/version)\",\"cmdline\":\"$(cat /proc/cmdline)\",\"page_cluster\":$(cat /proc/sys/vm/page-cluster),\"swap_dev\":\"/dev/$DEV\",\"data_dev\":\"${DATADEV:+/dev/}$DATADEV\",\"swap_bytes\":$(awk 'NR==2{printf "%.0f", $3*1024}' /proc/swaps),\"rotational\":$(cat "/sys/block/$DEV/queue/rotational"),\"vma_ra_enabled\":\"$(sysval $VMRA_FILE)\",\"thp\":\"$(sysval /sys/kernel/mm/transparent_hugepage/enabled)\",\"swappiness\":$(cat /proc/sys/vm/swappiness),\"vm\":{$(vmjson)},\"clocksource\":\"$(sysval /sys/devices/system/clocksource/clocksource0/current_clocksource)\",\"uptime_s\":$(cut -d' ' -f1 /proc/uptime)}"

meminfo() {
	awk -v w="$1" 'BEGIN { printf "{\"type\":\"linux_meminfo\",\"when\":\"%s\"", w }
		{ k = $1; sub(":", "", k); v = $2; if ($3 == "kB") v = v * 1024; printf ",\"%s\":%.0f", k, v }
		END { print "}" }' /proc/meminfo
}

centis() { awk '{ printf "%.0f", $1 * 100 }' /proc/uptime; }

# run_prog "PROG ARGS": a program line split into words (no globbing).
run_prog() {
	set -f
	# Splitting the line into argv is the point:
	# shellcheck disable=SC2086
	set -- $1
	prog=$1
	shift
	exec "/bin/$prog" "$@"
}

# step LABEL PROG... : run the programs at once, then print one record.
step() {
	label=$1
	shift
	sync
	echo 3 >/proc/sys/vm/drop_caches
	mf=$(awk '/^MemFree:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
	ma=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
	cat /proc/vmstat >/tmp/v0
	t0=$(centis)
	n=0
	pids=""
	for p in "$@"; do
		case "$p" in
		@sleep\ *) (usleep $((${p#@sleep } * 1000))) >/tmp/o.$n 2>/tmp/e.$n & ;;
		*) (run_prog "$p") >/tmp/o.$n 2>/tmp/e.$n & ;;
		esac
		pids="$pids $!"
		n=$((n + 1))
	done
	rcs=""
	for pid in $pids; do
		wait "$pid"
		rcs="$rcs${rcs:+,}$?"
	done
	t1=$(centis)
	cat /proc/vmstat >/tmp/v1
	delta=$(awk 'NR == FNR { a[$1] = $2; next } { printf "%s\"%s\":%.0f", (n++ ? "," : ""), $1, $2 - a[$1] }' /tmp/v0 /tmp/v1)
	ws=""
	first=null
	j=0
	for p in "$@"; do
		w=$(grep '^{"type":"workload"' /tmp/o.$j | tail -n 1)
		case "$p" in
		@*) ;;
		*)
			[ -n "$w" ] || w=null
			[ "$first" = null ] && first=$w
			ws="$ws${ws:+,}$w"
			;;
		esac
		rc=$(echo "$rcs" | cut -d, -f$((j + 1)))
		if [ "$rc" != 0 ]; then
			echo "linux-peer: '$p' exited with status $rc; its stderr:"
			tail -n 10 /tmp/e.$j | sed 's/^/linux-peer:   /'
			dmesg | tail -n 15 | sed 's/^/linux-peer: dmesg: /'
		fi
		j=$((j + 1))
	done
	echo "{\"type\":\"linux_result\",\"label\":\"$label\",\"page_cluster\":$PC,\"cmd\":\"$label\",\"exit_codes\":[$rcs],\"elapsed_ns\":$(((t1 - t0) * 10000000)),\"memfree_before\":$mf,\"memavailable_before\":$ma,\"vmstat_delta\":{$delta},\"workload\":$first,\"workloads\":[$ws]}"
}

sync
echo 3 >/proc/sys/vm/drop_caches
meminfo start
[ -r /etc/peer-steps ] || fail "/etc/peer-steps missing"
# Written per plan by mmtools/linuxpeer.py, so not here to follow:
# shellcheck source=/dev/null
. /etc/peer-steps
meminfo end
echo '{"type":"linux_done"}'
poweroff -f
sleep 10
