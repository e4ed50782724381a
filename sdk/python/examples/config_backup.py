"""A config backup worker: the Blackboard Python SDK's example.

Serves the function block configBackup@1.0.0, which saves a network device's running configuration.
The device session is faked (a short wait where a Netmiko or NAPALM session would block, and a generated
configuration); the rest is real: params and result checked by their JSON schemas on the server, the
file written under BACKUP_DIR, a device that does not answer reported as a FAILURE, a cancel honoured,
ACQUIRE naming the device it locks, ROLLBACK forgetting the files it wrote. Its contract is the Java
SDK example's, to the byte: workers of both SDKs can serve the same block.

    python3 sdk/python/examples/config_backup.py          # BLACKBOARD_URL defaults to http://localhost:8080

Environment: the SDK's BLACKBOARD_* variables (see the README), BACKUP_DIR (default: the temporary
directory's blackboard-backups), BACKUP_SESSION_MS (the fake session's length; default 200 to 800 ms)
and LOG_LEVEL (INFO). SIGTERM or Ctrl-C stops it gracefully; a second one forces.
"""

import datetime
import hashlib
import logging
import os
import random
import re
import sys
import tempfile
from pathlib import Path

try:
    from blackboard_worker import JobCancelled, JobContext, Result, Worker, function_block
except ImportError:  # run from a checkout without installing: use the source tree beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from blackboard_worker import JobCancelled, JobContext, Result, Worker, function_block

BACKUP_DIR = Path(os.environ.get("BACKUP_DIR") or Path(tempfile.gettempdir()) / "blackboard-backups")

PARAMS_SCHEMA = {
    "type": "object", "required": ["host"], "additionalProperties": False,
    "properties": {
        "host": {"type": "string", "minLength": 1, "maxLength": 253},
        "vendor": {"enum": ["cisco", "juniper", "arista"]},
        "timeoutMs": {"type": "integer", "minimum": 100, "maximum": 600000},
    },
}

RESULT_SCHEMA = {
    "type": "object", "required": ["host", "lines", "sha256", "path"],
    "properties": {
        "host": {"type": "string"}, "vendor": {"type": "string"},
        "lines": {"type": "integer", "minimum": 0}, "bytes": {"type": "integer", "minimum": 0},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}, "path": {"type": "string"},
        "savedAt": {"type": "string"},
    },
}


class DeviceUnreachable(Exception):
    """The device did not answer: pushed as a FAILURE with this type and message."""


@function_block("configBackup", "1.0.0", idempotent=True,  # saving the same configuration twice is harmless
                params_schema=PARAMS_SCHEMA, result_schema=RESULT_SCHEMA,
                description="Saves a network device's running configuration")
class ConfigBackup:
    """One instance per job; each method gets the job's context and its params."""

    def run(self, ctx: JobContext, params: dict) -> dict:
        host, vendor = params["host"], params.get("vendor", "cisco")
        config = fetch_running_config(ctx, host, vendor, params.get("timeoutMs", 10_000))
        BACKUP_DIR.mkdir(parents=True, exist_ok=True)
        path = BACKUP_DIR / f"{_safe(host)}-{ctx.job_id}.cfg"
        data = config.encode("utf-8")
        path.write_bytes(data)
        ctx.logger.info("saved %d lines of %s to %s", config.count("\n"), host, path)
        return {"host": host, "vendor": vendor, "lines": config.count("\n"), "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "path": str(path),
                "savedAt": datetime.datetime.now(datetime.timezone.utc).isoformat()}

    def acquire(self, ctx: JobContext, params: dict) -> Result:
        """Locks the device for the workflow: the engine learns what this job holds."""
        return Result(acquires=[{"resource": f"device:{params['host']}", "mode": "read"}])

    def rollback(self, ctx: JobContext, params: dict) -> dict:
        """A backup changes nothing on the device; undoing it means forgetting the files it wrote."""
        removed = 0
        for path in BACKUP_DIR.glob(f"{_safe(params['host'])}-*.cfg"):
            path.unlink(missing_ok=True)
            removed += 1
        return {"rolledBack": True, "filesRemoved": removed}


def fetch_running_config(ctx: JobContext, host: str, vendor: str, timeout_ms: int) -> str:
    """Stands in for ConnectHandler(...).send_command("show running-config"): it blocks, so the SDK runs
    it on a worker thread. A host named unreachable... never answers, as real ones sometimes do."""
    ctx.logger.info("connecting to %s (%s)", host, vendor)
    if host.startswith("unreachable"):
        wait = min(timeout_ms, 2000) / 1000.0
        if ctx.sleep(wait):
            raise JobCancelled()
        raise DeviceUnreachable(f"{host} did not answer on port 22 within {int(wait * 1000)} ms")
    session = int(os.environ["BACKUP_SESSION_MS"]) / 1000.0 if os.environ.get("BACKUP_SESSION_MS") \
        else random.uniform(0.2, 0.8)
    if ctx.sleep(session):  # a real session would be closed here
        raise JobCancelled()
    lines = [f"! {vendor} running configuration of {host}", f"hostname {host}"]
    for i in range(1, 25):
        lines += [f"interface GigabitEthernet0/{i}", f" description uplink-{i}", " no shutdown", "!"]
    return "\n".join(lines + ["end"]) + "\n"


def _safe(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", host)


def main() -> int:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker = Worker.from_env(name="config-backup-worker", concurrency=4)  # BLACKBOARD_* override these
    return worker.run()  # until SIGTERM/SIGINT (a second one forces) or a TERMINATE directive


if __name__ == "__main__":
    sys.exit(main())
