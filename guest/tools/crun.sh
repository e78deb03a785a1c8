#!/bin/sh
# crun.sh: rootless crun run of a busybox bundle (oci.sh).
. ./lib.sh
. ./oci.sh
oci_test crun
