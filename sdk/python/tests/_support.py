"""Puts the package's source tree first on sys.path: the tests test this checkout, installed or not."""

import logging
import os
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

# Quiet by default; BLACKBOARD_TEST_LOG=DEBUG shows what the worker does.
logging.basicConfig(level=os.environ.get("BLACKBOARD_TEST_LOG", "CRITICAL"),
                    format="%(relativeCreated)6d %(threadName)s %(name)s %(levelname)s: %(message)s")
