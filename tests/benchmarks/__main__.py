"""`python -m tests.benchmarks`: see tests/benchmarks/run.py and the README's Benchmark section."""

import sys

from .run import main

sys.exit(main())
