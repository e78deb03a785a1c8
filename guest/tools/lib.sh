# shellcheck shell=sh
# lib.sh: sourced by the tool tests.  KTAP output, checks that print what
# they wanted and what they got, and running a command as a tool user with
# that user's subordinate ranges (/etc/tools-subid/USER bound over
# /etc/subuid and /etc/subgid in a private mount namespace).
# USERNS_IDMAP_ENGINE says which kernel this is: "stock" or "patched".
# shellcheck disable=SC2034  # the tests read it
engine=${USERNS_IDMAP_ENGINE:-patched}
ktap_n=0

plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

pass() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1"
}

fail() {
	ktap_n=$((ktap_n + 1))
	echo "not ok $ktap_n $1"
	shift
	for l in "$@"; do
		echo "# $l"
	done
}

skip() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP $2"
}

# check NAME WANT GOT: ok when GOT is WANT.
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "wanted: $2" "got:    $3"
	fi
}

# ran NAME OUT: ok when inside.sh ran to its end (done=1) and reported no
# error.
ran() {
	check "$1" "done=1 error=" "done=$(field "$2" "done") error=$(field "$2" error)"
}

# field OUT KEY: the value of the line "KEY=value" in OUT.
field() {
	printf '%s\n' "$1" | awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }'
}

# as_user USER CMD: CMD (a shell command) as USER, with HOME and
# XDG_RUNTIME_DIR set, and USER's subordinate ranges in /etc/subuid and
# /etc/subgid for the setuid helpers.  Output and exit status are CMD's.
as_user() {
	_u=$1
	_uid=$(id -u "$_u")
	# shellcheck disable=SC2016  # expanded by the inner shell
	unshare -m sh -c '
		sub=/etc/tools-subid/$1
		if [ -f "$sub" ]; then
			mount --bind "$sub" /etc/subuid && mount --bind "$sub" /etc/subgid || exit 99
		fi
		# unshare -m made every mount private; podman wants / shared
		mount --make-rshared / || exit 99
		exec su -s /bin/sh "$1" -c "export HOME=/home/$1 XDG_RUNTIME_DIR=/run/user/$2; cd; $3"' \
		as_user "$_u" "$_uid" "$2"
}

# show TEXT [PREFIX]: TEXT as KTAP comments, each line cut at 300 characters
# (podman quotes its whole newuidmap command line).
show() {
	printf '%s\n' "$1" | awk -v p="# $2" '{ if (length($0) > 300) $0 = substr($0, 1, 300) " [...]"; print p $0 }'
}

# limit TOOL FACT...: one measured fact of the README's table of what each
# tool passes on to the kernel, "# limit: TOOL FACT...".  make check and
# make clients keep these lines of both kernels in
# docs/results/BASE/tools.txt, and make docs writes the table from them.
limit() {
	_t=$1
	shift
	echo "# limit: $_t $*"
}

# owner PATH: "uid gid" of PATH as this (initial) namespace sees it.
owner() {
	stat -c '%u %g' "$1"
}

# map_text FILE: an id map with its columns single-spaced, one extent a line.
map_text() {
	awk '{ print $1, $2, $3 }' "$1"
}
