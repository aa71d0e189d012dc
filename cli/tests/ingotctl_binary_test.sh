#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Drives the ingotctl binary itself: stdin input, exit codes and the exact line format.
# usage: ingotctl_binary_test.sh PATH-TO-INGOTCTL
set -u
ingotctl=$1
fail=0
pass=0
check() {  # check DESC WANT-RC WANT-REGEX RC OUTPUT
  if [ "$4" -ne "$2" ] || ! printf '%s\n' "$5" | grep -Eq "$3"; then
    echo "FAIL: $1: rc=$4 (want $2), output:"; printf '%s\n' "$5"; fail=$((fail + 1))
  else
    echo "ok: $1"; pass=$((pass + 1))
  fi
}

out=$(printf 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: p}\nspec:\n  addresses: [10.0.0.0/24]\n' \
  | "$ingotctl" validate -f - 2>&1); rc=$?
check "valid stdin" 0 '^valid: 1 objects$' "$rc" "$out"

out=$(printf 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: p}\nspec:\n  addresses: [10.0.0.1]\n' \
  | "$ingotctl" validate -f - 2>&1); rc=$?
check "invalid stdin" 1 '^<stdin>:[0-9]+: IPAddressPool metallb-system/p: spec\.addresses\[0\]: ' "$rc" "$out"

out=$("$ingotctl" frobnicate 2>&1); rc=$?
check "unknown command" 2 'unknown command' "$rc" "$out"

out=$("$ingotctl" validate 2>&1); rc=$?
check "no input" 2 'no input' "$rc" "$out"

out=$(printf 'kind: [' | "$ingotctl" plan -f - 2>&1); rc=$?
check "plan of broken input" 1 '^<stdin>:1' "$rc" "$out"

out=$("$ingotctl" --help 2>&1); rc=$?
check "--help" 0 '^  support-bundle  ' "$rc" "$out"

for cmd in validate plan render explain support-bundle frr-k8s completion version help; do
  out=$("$ingotctl" "$cmd" --help 2>&1); rc=$?
  check "$cmd --help" 0 "^usage: ingotctl $cmd" "$rc" "$out"
  out=$("$ingotctl" "$cmd" -h 2>&1); rc=$?
  check "$cmd -h" 0 "^  -h, --help  +show this help$" "$rc" "$out"
  out=$("$ingotctl" help "$cmd" 2>&1); rc=$?
  check "help $cmd" 0 "^usage: ingotctl $cmd" "$rc" "$out"
done

out=$("$ingotctl" render --node -h 2>&1); rc=$?
check "-h as a flag's value is not help" 2 'give --node NODE and -f PATH' "$rc" "$out"

out=$("$ingotctl" completion bash 2>&1); rc=$?
check "completion bash" 0 '^complete -F _ingotctl ingotctl$' "$rc" "$out"

out=$("$ingotctl" __complete plan --output "" 2>&1); rc=$?
check "__complete" 0 '^table$' "$rc" "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
