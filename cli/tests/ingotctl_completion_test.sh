#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Drives the completion scripts as the shells do: bash sources `ingotctl completion bash`, the test
# sets COMP_WORDS / COMP_CWORD, calls the completion function and reads COMPREPLY. zsh loads
# `ingotctl completion zsh` (bashcompinit) and runs the same function the way compgen -F does.
# usage: ingotctl_completion_test.sh PATH-TO-INGOTCTL EXAMPLES-DIR
set -u
ingotctl=$1
examples=$2
fail=0
pass=0

# shellcheck disable=SC1090
source <("$ingotctl" completion bash) || { echo "FAIL: the bash script does not load"; exit 1; }

# check DESC WANT WORD...: completes the last WORD and compares the sorted COMPREPLY with WANT.
check() {
  local desc=$1 want=$2
  shift 2
  COMP_WORDS=("$ingotctl" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _ingotctl
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
  if [ "$got" != "$want" ]; then
    echo "FAIL: $desc: got [$got], want [$want]"; fail=$((fail + 1))
  else
    echo "ok: $desc"; pass=$((pass + 1))
  fi
}

check "commands" "plan " pl
check "flags of a command" "--output " plan --ou
check "choices" "json table " plan --output ""
# bash splits --output=j into --output, =, j (COMP_WORDBREAKS).
check "--flag=value, split at '='" "json " plan --output = j
check "--flag=, split at '='" "json table " plan --output =
check "Services of the -f files" "web/api web/frontend web/gateway " explain -f "$examples" web/
check "after the kind word" "web/frontend " explain -f "$examples" service web/f
check "Nodes of the -f files" "node1 node2 " render -f "$examples" --node ""
check "NODE= for --interfaces" "node1= node2= " plan -f "$examples" --interfaces node
check "files after -f" "$examples " plan -f "${examples%/}"
check "the shells" "bash zsh " completion ""

if complete -p ingotctl 2>/dev/null | grep -q -- '-F _ingotctl'; then
  echo "ok: registered for ingotctl"; pass=$((pass + 1))
else
  echo "FAIL: complete -p ingotctl does not name _ingotctl"; fail=$((fail + 1))
fi

if command -v zsh >/dev/null 2>&1; then
  script=$(mktemp)
  "$ingotctl" completion zsh >"$script"
  if zsh -n "$script"; then
    echo "ok: zsh -n"; pass=$((pass + 1))
  else
    echo "FAIL: zsh -n rejects the zsh script"; fail=$((fail + 1))
  fi
  # As zsh's compgen -F runs the function: sh emulation, whole words (no split at '=').
  got=$(INGOTCTL="$ingotctl" EXAMPLES="$examples" SCRIPT="$script" zsh -f -c '
    autoload -U compinit && compinit -u -D
    source "$SCRIPT"
    emulate -L sh
    setopt kshglob noshglob braceexpand
    COMP_WORDS=("$INGOTCTL" render -f "$EXAMPLES" --node=node)
    COMP_CWORD=4
    COMPREPLY=()
    _ingotctl
    printf "%s " "${COMPREPLY[@]}"' 2>&1)
  if [ "$got" = "--node=node1 --node=node2 " ]; then
    echo "ok: zsh runs the function"; pass=$((pass + 1))
  else
    echo "FAIL: zsh: got [$got], want [--node=node1 --node=node2 ]"; fail=$((fail + 1))
  fi
  rm -f "$script"
else
  echo "skip: zsh is not installed (scripts/setup installs it)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
