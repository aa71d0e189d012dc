# SPDX-License-Identifier: Apache-2.0
"""`python3 -m netlab …` (from e2e/) is the same as `e2e/lab …`; see cli.py."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
