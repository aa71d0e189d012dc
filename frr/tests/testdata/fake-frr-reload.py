# SPDX-License-Identifier: Apache-2.0
"""A stand-in for FRR's frr-reload.py, for the FrrDriver unit tests (no FRR, no root).

Accepts exactly the argv the driver sends:
    fake-frr-reload.py --test|--reload --stdout --confdir W --rundir W [-N NS] W/frr.conf
(anything else: exit 2 with a usage message). It keeps a simulated running configuration in
W/fake-running and prints `--test` deltas in frr-reload.py's format (contexts repeated, one
indent level each, plus the `no hostname fakehost` noise line).

Behaviour is controlled by files in W:
    fake-fail-test     --test exits 1 like a vtysh syntax error when frr.conf contains the file's
                       stripped content (empty file: always)
    fake-fail-reload   --reload exits 1 when frr.conf contains the file's content, after applying
                       every other line (as FRR does: a rejected line does not stop the rest)
    fake-passes        N: a reload lands only on the Nth --reload of the same file (default 1)
    fake-reload-rc     exit status of a reload that did land (graceful-restart case: 1)
    fake-stuck         --reload never changes the running configuration (never converges)
    fake-sleep         seconds to sleep before doing anything (timeout tests)
State it writes:
    fake-calls         one line per run: the mode and the pathspace ("--test igbgp" / "--test -")
    fake-running       the simulated running configuration
    fake-pending       reloads of the current file that have not landed yet
"""

import os
import sys
import time


def usage(msg):
    sys.stderr.write("fake-frr-reload.py: " + msg + "\n")
    sys.exit(2)


def parse_argv(argv):
    if len(argv) not in (7, 9) or argv[0] not in ("--test", "--reload") or argv[1] != "--stdout":
        usage("unexpected argv %r" % (argv,))
    if argv[2] != "--confdir" or argv[4] != "--rundir" or argv[3] != argv[5]:
        usage("expected --confdir W --rundir W, got %r" % (argv,))
    workdir = argv[3]
    pathspace = "-"
    if len(argv) == 9:
        if argv[6] != "-N" or not argv[7]:
            usage("expected -N <pathspace>, got %r" % (argv,))
        pathspace = argv[7]
    if argv[-1] != os.path.join(workdir, "frr.conf"):
        usage("the input must be <confdir>/frr.conf, got %r" % argv[-1])
    return argv[0], workdir, pathspace


def read(workdir, name, default=None):
    path = os.path.join(workdir, name)
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return f.read()


def write(workdir, name, text):
    with open(os.path.join(workdir, name), "w") as f:
        f.write(text)


def commands(text):
    """The config's commands as tuples of (contexts..., line), in file order."""
    out, stack = [], []
    for raw in text.splitlines():
        line = raw.rstrip()
        body = line.strip()
        if not body or body.startswith("!") or body in ("exit", "exit-address-family"):
            continue
        depth = len(line) - len(line.lstrip(" "))
        stack = [(d, l) for d, l in stack if d < depth]
        out.append(tuple(l for _, l in stack) + (body,))
        stack.append((depth, body))
    return out


def print_command(cmd, negate):
    for depth, part in enumerate(cmd):
        last = depth == len(cmd) - 1
        print(" " * depth + ("no " + part if last and negate else part))


def matches(workdir, name, text):
    rule = read(workdir, name)
    return rule is not None and rule.strip() in text


def first_line_with(workdir, name, text):
    rule = read(workdir, name).strip()
    for number, line in enumerate(text.splitlines(), 1):
        if rule in line:
            return number, line
    return 1, text.splitlines()[0] if text else ""


def do_test(workdir, text):
    if matches(workdir, "fake-fail-test", text):
        number, line = first_line_with(workdir, "fake-fail-test", text)
        sys.stderr.write("2026-01-01 00:00:00,000  INFO: Loading Config object from file\n")
        sys.stderr.write("2026-01-01 00:00:00,001 \x1b[91m  ERROR\x1b[0m: vtysh failed to process "
                         "new configuration: vtysh (mark file) exited with status 2:\n")
        sys.stderr.write("b'line %d: %% Unknown command: %s\\n\\n'\n" % (number, line))
        print("\nLines To Delete\n===============\nno hostname fakehost\nno router bgp 1")
        return 1
    want, have = commands(text), commands(read(workdir, "fake-running", ""))
    print("\nLines To Delete\n===============\nno hostname fakehost")
    for cmd in have:
        if cmd not in want:
            print_command(cmd, True)
    adds = [cmd for cmd in want if cmd not in have]
    if adds:
        print("\nLines To Add\n============")
        for cmd in adds:
            print_command(cmd, False)
    return 0


def do_reload(workdir, text):
    sys.stderr.write("2026-01-01 00:00:00,000  INFO: reload-XYZ.txt content\n")
    sys.stderr.write("%r\n" % (text.splitlines(),))
    if matches(workdir, "fake-fail-reload", text):
        number, line = first_line_with(workdir, "fake-fail-reload", text)
        print("line %d: Failure to communicate[13] to bgpd, line: %s" % (number, line))
        rule = read(workdir, "fake-fail-reload").strip()
        kept = [l for l in text.splitlines() if rule not in l]
        write(workdir, "fake-running", "\n".join(kept) + "\n")
        sys.stderr.write("2026-01-01 00:00:00,002 \x1b[91mWARNING\x1b[0m: frr-reload.py failed "
                         "due to\nvtysh (exec file) exited with status 13\n")
        return 1
    if read(workdir, "fake-stuck") is not None:
        return 0
    pending = int(read(workdir, "fake-pending", "0")) + 1
    if pending < int(read(workdir, "fake-passes", "1")):
        write(workdir, "fake-pending", str(pending))
        return 0
    write(workdir, "fake-pending", "0")
    write(workdir, "fake-running", text)
    return int(read(workdir, "fake-reload-rc", "0"))


def main():
    mode, workdir, pathspace = parse_argv(sys.argv[1:])
    time.sleep(float(read(workdir, "fake-sleep", "0")))
    with open(os.path.join(workdir, "fake-calls"), "a") as f:
        f.write("%s %s\n" % (mode, pathspace))
    with open(os.path.join(workdir, "frr.conf")) as f:
        text = f.read()
    return do_test(workdir, text) if mode == "--test" else do_reload(workdir, text)


if __name__ == "__main__":
    sys.exit(main())
