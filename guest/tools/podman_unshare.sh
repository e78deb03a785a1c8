#!/bin/sh
# podman_unshare.sh: podman unshare with 1002-extent maps (containers.sh).
. ./lib.sh
. ./containers.sh
unshare_test podman
