"""`python -m tests.benchmarks`: see tests/benchmarks/run.py and docs/benchmarks.md."""

import sys

from .run import main

sys.exit(main())
