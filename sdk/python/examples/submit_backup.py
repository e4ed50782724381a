"""The engine's side, with the SDK's EngineClient: create configBackup jobs and read their results from the feed.

    python3 sdk/python/examples/submit_backup.py r1.site-a r2.site-a

Environment: BLACKBOARD_URL (default http://localhost:8080), BLACKBOARD_ENGINE_TOKEN (default
dev-engine-token). Prints one line per result as it lands in the feed.
"""

import json
import sys
import uuid
from pathlib import Path

try:
    from blackboard_worker import EngineClient, job
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from blackboard_worker import EngineClient, job


def main(hosts) -> int:
    with EngineClient.from_env() as engine:
        block = engine.function_block_id("configBackup", "1.0.0")
        run = uuid.uuid4().hex[:8]
        cursor = "0-0"
        while True:  # skip what is already in the feed: read on until a page comes back short
            page = engine.results(cursor, limit=1000)
            cursor = page.next
            if len(page.results) < 1000:
                break
        created = engine.create_jobs([job(block, payload={"host": h}, correlation_id=f"backup-{run}",
                                          idempotency_key=f"backup-{run}/{h}") for h in hosts])
        waiting = {j["id"] for j in created}
        for page in engine.follow_results(cursor, wait_ms=10000):
            for result in page.results:
                if result["id"] in waiting:
                    waiting.discard(result["id"])
                    print(json.dumps({"job": result["id"], "outcome": result["outcome"],
                                      "result": result.get("result"), "error": result.get("error")}))
            if not waiting:
                return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["r1.site-a"]))
