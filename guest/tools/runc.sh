#!/bin/sh
# runc.sh: rootless runc run of a busybox bundle (oci.sh).
. ./lib.sh
. ./oci.sh
oci_test runc
