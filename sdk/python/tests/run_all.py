"""Runs every test of the Python SDK and ends with one plain line for CI: 'python-sdk: N passed, N failed, N skipped'.

    python3 sdk/python/tests/run_all.py        # from anywhere; exit status 1 when a test failed
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    suite = unittest.defaultTestLoader.discover(HERE, top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=int(os.environ.get("BLACKBOARD_TEST_VERBOSITY", "1"))).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"python-sdk: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
