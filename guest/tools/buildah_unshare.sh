#!/bin/sh
# buildah_unshare.sh: buildah unshare with 1002-extent maps (containers.sh).
. ./lib.sh
. ./containers.sh
unshare_test buildah
