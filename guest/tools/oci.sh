# shellcheck shell=sh
# oci.sh: sourced by crun.sh and runc.sh.  oci_test RUNTIME: a rootless
# 'RUNTIME run' of a busybox bundle (the image's /opt/bundle/rootfs) as
# alice, from the spec 'runc spec --rootless' writes, with two-extent
# uidMappings and gidMappings (alice as root, her subordinate range
# above: the runtime writes them through newuidmap and newgidmap), a
# cgroup namespace, and an ext4 directory bound at /mnt/data.  Checks the
# ids the process reports, the maps, and the owners of the files it
# creates as the initial namespace sees them.
# oci_config HOSTNAME DATA-DIR MAPPINGS: config.json on stdout; MAPPINGS is
# the JSON of the uidMappings (and gidMappings) array's elements.
oci_config() {
	cat <<JSON
{
	"ociVersion": "1.0.2-dev",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "/guest/tools/inside.sh", "touch:/mnt/data/f0", "touch:/mnt/data/f1",
			"chown:1000:/mnt/data/f1", "stat:/mnt/data/f1", "stat:/mnt/data/rootfile" ],
		"env": [ "PATH=/bin" ],
		"cwd": "/",
		"capabilities": {
			"bounding": [ "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL" ],
			"effective": [ "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL" ],
			"permitted": [ "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL" ]
		},
		"rlimits": [ { "type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024 } ],
		"noNewPrivileges": true
	},
	"root": { "path": "/opt/bundle/rootfs", "readonly": true },
	"hostname": "$1",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		{ "destination": "/dev/pts", "type": "devpts", "source": "devpts",
		  "options": [ "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620" ] },
		{ "destination": "/dev/shm", "type": "tmpfs", "source": "shm",
		  "options": [ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" ] },
		{ "destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
		  "options": [ "nosuid", "noexec", "nodev" ] },
		{ "destination": "/sys", "type": "none", "source": "/sys",
		  "options": [ "rbind", "nosuid", "noexec", "nodev", "ro" ] },
		{ "destination": "/guest/tools", "type": "none", "source": "/guest/tools",
		  "options": [ "rbind", "ro" ] },
		{ "destination": "/mnt/data", "type": "none", "source": "$2",
		  "options": [ "rbind", "rw" ] }
	],
	"linux": {
		"uidMappings": [ $3 ],
		"gidMappings": [ $3 ],
		"namespaces": [ { "type": "pid" }, { "type": "ipc" }, { "type": "uts" },
				{ "type": "mount" }, { "type": "cgroup" }, { "type": "user" } ],
		"maskedPaths": [ "/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware" ],
		"readonlyPaths": [ "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger" ]
	}
}
JSON
}

oci_test() {
	rt=$1
	plan 8
	d=/mnt/ext4/$rt
	b=/tmp/$rt-bundle
	mkdir -p "$d" "$b" && chown alice:alice "$d" && touch "$d/rootfile" || exit 1
	oci_config "$rt" "$d" '{ "containerID": 0, "hostID": 1000, "size": 1 },
		{ "containerID": 1, "hostID": 100000, "size": 65536 }' >"$b/config.json" &&
		chown -R alice:alice "$b" || exit 1
	out=$(as_user alice "cd $b && $rt run --bundle $b c-$rt" 2>&1)
	rc=$?
	show "$out"
	check "${rt}_run_exit_status" 0 "$rc"
	check ids_in_container "0 0" "$(field "$out" uid) $(field "$out" gid)"
	check uid_map_written "2: 0 1000 1 / 1 100000 65536" \
		"$(field "$out" uid_map.lines): $(field "$out" uid_map.first) / $(field "$out" uid_map.last)"
	check gid_map_written "2: 0 1000 1 / 1 100000 65536" \
		"$(field "$out" gid_map.lines): $(field "$out" gid_map.first) / $(field "$out" gid_map.last)"
	check root_creates_as_alice "1000 1000" "$(owner "$d/f0" 2>&1)"
	check chown_1000_is_100999 "100999 100999 / 1000 1000" \
		"$(owner "$d/f1" 2>&1) / $(field "$out" "stat:/mnt/data/f1")"
	check unmapped_owner_is_overflow "65534 65534" "$(field "$out" "stat:/mnt/data/rootfile")"
	ran ran_without_errors "$out"
}
