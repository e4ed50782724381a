"""The examples' handlers, run with the test helper (no server)."""

import importlib.util
import os
import tempfile
import unittest

import _support  # noqa: F401

from blackboard_worker import default_registry
from blackboard_worker.testing import run_job

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ConfigBackupExample(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.example = load("config_backup")
        cls.addClassCleanup(default_registry.remove, "configBackup", "1.0.0")

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.example.BACKUP_DIR = self.example.Path(folder.name)
        os.environ["BACKUP_SESSION_MS"] = "10"
        self.addCleanup(os.environ.pop, "BACKUP_SESSION_MS")

    def test_execute_saves_the_configuration_and_answers_what_the_result_schema_requires(self):
        outcome = run_job(self.example.ConfigBackup, {"host": "r1.site-a", "vendor": "arista"})
        self.assertEqual("SUCCESS", outcome.status, outcome.error)
        result = outcome.result
        self.assertTrue(set(self.example.RESULT_SCHEMA["required"]) <= set(result))
        self.assertRegex(result["sha256"], "^[0-9a-f]{64}$")
        with open(result["path"], encoding="utf-8") as f:
            self.assertEqual(result["lines"], f.read().count("\n"))

    def test_an_unreachable_device_is_a_failure_and_a_cancel_ends_the_session(self):
        failed = run_job(self.example.ConfigBackup, {"host": "unreachable-1", "timeoutMs": 100})
        self.assertEqual(("FAILURE", "example_config_backup.DeviceUnreachable"), (failed.status, failed.error["type"]))
        self.assertTrue(run_job(self.example.ConfigBackup, {"host": "unreachable-2"}, cancel_after=0.05).cancelled)

    def test_acquire_names_the_device_and_rollback_forgets_the_files(self):
        acquired = run_job(self.example.ConfigBackup, {"host": "r2"}, type="ACQUIRE")
        self.assertEqual([{"resource": "device:r2", "mode": "read"}], acquired.acquires)
        run_job(self.example.ConfigBackup, {"host": "r2"})
        rolled_back = run_job(self.example.ConfigBackup, {"host": "r2"}, type="ROLLBACK")
        self.assertEqual({"rolledBack": True, "filesRemoved": 1}, rolled_back.result)

    def test_the_block_is_declared_in_the_default_registry(self):
        block = default_registry.get("configBackup", "1.0.0")
        self.assertTrue(block.idempotent)
        self.assertEqual(["host"], block.spec()["paramsJsonSchema"]["required"])


if __name__ == "__main__":
    unittest.main()
