#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Entry point of the test Kubernetes API server (test infrastructure only): `server.py --help`.

The server itself is the `kubeapi` package next to this file. Running this file puts its folder
on sys.path, so the package imports without installation; Python code with this folder on
sys.path may also `from server import KubeApiServer` (the benchmarks do)."""

import sys

from kubeapi import KubeApiServer, generate_certs, main

__all__ = ["KubeApiServer", "generate_certs", "main"]

if __name__ == "__main__":
    sys.exit(main())
