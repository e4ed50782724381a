"""A config backup worker: the Blackboard Python SDK's example.

Serves the function block configBackup@1.0.0: fetch a device's running configuration (faked here by a
short sleep where a Netmiko or NAPALM session would block) and store it under BACKUP_DIR. ROLLBACK
removes the backup the job's host got last.

    python3 sdk/python/examples/config_backup.py          # BLACKBOARD_URL defaults to http://localhost:8080

Environment: the SDK's BLACKBOARD_* variables (README), plus BACKUP_DIR (default: a folder in the
temporary directory), BACKUP_SESSION_MS (how long the fake device session takes, default 1000) and
LOG_LEVEL (default INFO). SIGTERM or Ctrl-C stops it gracefully; a second one forces.
"""

import datetime
import hashlib
import logging
import os
import sys
import tempfile
from pathlib import Path

try:
    from blackboard_worker import Failure, JobCancelled, JobContext, Worker, function_block
except ImportError:  # run from a checkout without installing: use the source tree beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from blackboard_worker import Failure, JobCancelled, JobContext, Worker, function_block

BACKUP_DIR = Path(os.environ.get("BACKUP_DIR") or Path(tempfile.gettempdir()) / "blackboard-backups")
SESSION_SECONDS = int(os.environ.get("BACKUP_SESSION_MS", "1000")) / 1000.0

PARAMS_SCHEMA = {
    "type": "object",
    "required": ["host"],
    "properties": {
        "host": {"type": "string", "minLength": 1, "maxLength": 255},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        "platform": {"enum": ["cisco_ios", "juniper_junos", "arista_eos"]},
    },
    "additionalProperties": False,
}

RESULT_SCHEMA = {
    "type": "object",
    "required": ["host", "lines", "sha256", "path"],
    "properties": {
        "host": {"type": "string"},
        "lines": {"type": "integer", "minimum": 0},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "path": {"type": "string"},
    },
}


@function_block("configBackup", "1.0.0", idempotent=True, params_schema=PARAMS_SCHEMA,
                result_schema=RESULT_SCHEMA)
class ConfigBackup:
    """Fetches a device's running configuration and stores it."""

    def run(self, ctx: JobContext, params: dict) -> dict:
        host = params["host"]
        config = self.fetch_running_config(ctx, host, params.get("platform", "cisco_ios"))
        BACKUP_DIR.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        path = BACKUP_DIR / f"{_safe(host)}-{stamp}.cfg"
        path.write_text(config, encoding="utf-8")
        ctx.logger.info("stored %d lines of %s in %s", config.count("\n"), host, path)
        return {"host": host, "lines": config.count("\n"), "sha256": hashlib.sha256(config.encode()).hexdigest(),
                "path": str(path)}

    def rollback(self, ctx: JobContext, params: dict):
        backups = sorted(BACKUP_DIR.glob(f"{_safe(params['host'])}-*.cfg"))
        if not backups:
            return Failure(f"no backup of {params['host']} to remove", type="NothingToRollBack")
        backups[-1].unlink()
        return {"removed": str(backups[-1])}

    @staticmethod
    def fetch_running_config(ctx: JobContext, host: str, platform: str) -> str:
        """Stands in for ConnectHandler(...).send_command("show running-config")."""
        ctx.logger.info("connecting to %s (%s)", host, platform)
        if host.endswith(".unreachable"):
            raise TimeoutError(f"TCP connection to {host}:22 timed out")
        if ctx.sleep(SESSION_SECONDS):  # a real session would be closed here
            raise JobCancelled()
        lines = [f"hostname {host.split('.')[0]}", "service timestamps log datetime msec", "!"]
        lines += [f"interface GigabitEthernet0/{n}\n description uplink {n}\n no shutdown\n!" for n in range(4)]
        return "\n".join(lines + ["end"]) + "\n"


def _safe(host: str) -> str:
    return "".join(c if c.isalnum() or c in ".-_" else "_" for c in host)


def main() -> int:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker = Worker.from_env(name="config-backup-worker", concurrency=2, labels={"role": "backup"})
    return worker.run()


if __name__ == "__main__":
    sys.exit(main())
