#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every binary answers --version with its name, the project version and the git commit of the
# source tree it was built from ("unknown" only when git cannot tell).
# usage: binaries_version_test.sh SOURCE-DIR PROJECT-VERSION BINARY...
set -u
source_dir=$1 project_version=$2
shift 2
expected=unknown
if command -v git >/dev/null 2>&1 &&
  top=$(git -C "$source_dir" rev-parse --show-toplevel 2>/dev/null) &&
  [ "$(realpath "$top")" = "$(realpath "$source_dir")" ]; then
  expected=$(git -C "$source_dir" rev-parse --verify HEAD)
fi
fail=0
for binary in "$@"; do
  [ -n "$binary" ] || continue  # a binary this tree does not build
  name=$(basename "$binary")
  out=$("$binary" --version 2>&1); rc=$?
  # The tree may have been edited since the build: "-dirty" is not checked, the commit is.
  if [ "$rc" -ne 0 ] ||
    ! printf '%s\n' "$out" | grep -Eqx "$name version $project_version \\(revision $expected(-dirty)?\\)"; then
    echo "FAIL: $name --version: rc=$rc, want revision $expected, got:"; printf '%s\n' "$out"
    fail=1
  else
    echo "ok: $out"
  fi
done
exit "$fail"
