#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for an interactive vtysh fed through stdin, as FRR 8.4's prints it when stdin is not
a terminal: a banner, then a prompt before each line is read, the echoed line and the reply. Lines
starting with "bogus" or "ingot-sync-" get "% Unknown command: <line>"; "show running-config"
prints the file named by $FAKE_VTYSH_RUNNING (or nothing); "sleep" stops answering. The process
writes its PID to $FAKE_VTYSH_PIDFILE when set and exits when stdin closes."""

import os
import sys
import time

if os.environ.get("FAKE_VTYSH_PIDFILE"):
    with open(os.environ["FAKE_VTYSH_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))
sys.stdout.write("\nHello, this is FRRouting (version 8.4.4).\n\n")
sys.stderr.write("% Can't open configuration file /etc/frr/vtysh.conf due to 'No such file'.\n")
mode = ""
# Like vtysh, the prompt goes out as soon as the previous reply is complete, before the next line
# is read; the line itself is echoed when it arrives.
sys.stdout.write("vm# ")
sys.stdout.flush()
for raw in sys.stdin:
    line = raw.rstrip("\n")
    sys.stdout.write(f"{line}\n")
    if line == "configure terminal":
        mode = "(config)"
    elif line == "end":
        mode = ""
    elif line.startswith("bogus") or line.startswith("ingot-sync-"):
        sys.stdout.write(f"% Unknown command: {line}\n")
    elif line == "show running-config" and os.environ.get("FAKE_VTYSH_RUNNING"):
        with open(os.environ["FAKE_VTYSH_RUNNING"]) as f:
            sys.stdout.write(f.read())
    elif line == "sleep":
        sys.stdout.flush()
        time.sleep(3600)
    sys.stdout.write(f"vm{mode}# ")
    sys.stdout.flush()
