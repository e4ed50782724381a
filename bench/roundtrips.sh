#!/usr/bin/env bash
# What one operation costs PostgreSQL, counted rather than timed (timings on a shared 2-core
# machine are too noisy to show a one-round-trip change), per poll + push, per push + next (one
# job's claim and push in one request), per idle ping and per single-job create:
# - round trips: the answers PostgreSQL sends (its backends' sendto calls, counted with strace);
# - WAL bytes written, and row versions written (inserted, updated, of which HOT) per table.
# A job's life is a create plus a push + next.
#   bench/roundtrips.sh [JAR] [N]     (default: the built jar, 100 of each; needs strace, curl, jq)
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(realpath "${1:-server/target/blackboard-0.1.0-SNAPSHOT.jar}") n=${2:-100}
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
pg=(-X -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}")
db=bench_rt_$(date +%H%M%S)_$$ port=$((30000 + RANDOM % 20000)) token=${BENCH_TOKEN:-bench-token}
psql "${pg[@]}" -d postgres -c "create database $db"
mkdir -p target/bench
BLACKBOARD_WORKER_TOKENS=$token BLACKBOARD_ENGINE_TOKENS=$token BLACKBOARD_OPERATOR_TOKENS=$token \
SPRING_DATASOURCE_URL="jdbc:postgresql://${PGHOST:-127.0.0.1}:${PGPORT:-5432}/$db" SERVER_PORT=$port \
  "$java" -Xmx256m -jar "$jar" > "target/bench/$db.server.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null; sleep 3; psql "${pg[@]}" -d postgres -c "drop database if exists $db with (force)"' EXIT
for _ in $(seq 1 90); do curl -sf "localhost:$port/actuator/health" >/dev/null && break; sleep 1; done
post() { curl -sf -X POST "localhost:$port$1" -H 'Content-Type: application/json' -H "Authorization: Bearer $token" -d "$2"; }
W=$(post /workers/register '{"name":"roundtrips","concurrency":10}' | jq -r .id)
FB=$(post /function-blocks/register "{\"workerId\":\"$W\",\"functionBlocks\":[{\"name\":\"rt\",\"version\":\"1\"}]}" | jq -r '.[0].id')
create() { post /blackboard/jobs "{\"functionBlockId\":\"$FB\",\"type\":\"EXECUTE\"}" >/dev/null; }
cycle() {
  local r; r=$(post /blackboard/job "{\"workerId\":\"$W\"}")
  post /blackboard/job/result "{\"jobId\":\"$(jq -r '.[0].id' <<<"$r")\",\"workerId\":\"$W\",\"attempt\":$(jq -r '.[0].attempt' <<<"$r"),\"status\":\"SUCCESS\"}" >/dev/null
}
held=""  # the job the push + next cycle holds: each pushes it and claims the next
next() {
  local r; r=$(post /blackboard/job/next "{\"workerId\":\"$W\",\"limit\":1,\"results\":[{\"jobId\":\"$held\",\"workerId\":\"$W\",\"attempt\":1,\"status\":\"SUCCESS\"}]}")
  held=$(jq -r '.jobs[0].id' <<<"$r")
}
ping() { post "/workers/$W/ping" '{"activeJobIds":[]}' >/dev/null; }
for _ in $(seq 1 $((4 * n + 60))); do create; done
for _ in $(seq 1 20); do cycle; ping; done   # warm: prepared statements, pool
held=$(post /blackboard/job "{\"workerId\":\"$W\"}" | jq -r '.[0].id')
for _ in $(seq 1 20); do next; done
count() {  # sendto calls of this database's backends while "$@" runs
  local out=target/bench/$db.strace pids
  pids=$(pgrep -f "postgres $db " | sed 's/^/-p /' | tr '\n' ' ')
  # shellcheck disable=SC2086
  timeout 600 strace -f -e trace=sendto -c $pids -o "$out" 2>/dev/null & local st=$!
  sleep 1; "$@"; sleep 1
  kill -INT $st; wait $st 2>/dev/null || true
  awk '$NF == "sendto" {print $4}' "$out"; rm -f "$out"
}
repeat() { for _ in $(seq 1 "$n"); do "$1"; done; }
per() { echo "scale=2; ${1:-0} / $n" | bc; }
sql() { psql "${pg[@]}" -d "$db" -Atc "$1"; }
# row versions written per table, as the statistics collector has them once every backend flushed
# (an idle backend flushes within 10 s)
rows() { sleep 11; sql "select string_agg(relname || ' ' || n_tup_ins || ' ' || n_tup_upd || ' ' || n_tup_hot_upd, ',' order by relname)
                        from pg_stat_user_tables where relname in ('job', 'job_event', 'worker')"; }
written() {  # WAL bytes and row versions per operation while "$@" runs
  local before after lsn
  before=$(rows); lsn=$(sql "select pg_current_wal_insert_lsn()")
  "$@"
  local wal; wal=$(sql "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn')")
  after=$(rows)
  echo -n "WAL $(per "$wal") bytes; rows"
  paste -d' ' <(tr ',' '\n' <<<"$before") <(tr ',' '\n' <<<"$after") |
    awk -v n="$n" '{printf " %s +%.2f ~%.2f (HOT %.2f)", $1, ($6-$2)/n, ($7-$3)/n, ($8-$4)/n}'
  echo
}
echo "$(basename "$jar"): PostgreSQL answers per poll+push $(per "$(count repeat cycle)"), per push+next" \
  "$(per "$(count repeat next)"), per idle ping $(per "$(count repeat ping)"), per single-job create" \
  "$(per "$(count repeat create)")"
echo "written per poll+push: $(written repeat cycle)"
echo "written per push+next: $(written repeat next)"
echo "written per idle ping: $(written repeat ping)"
echo "written per single-job create: $(written repeat create)"
echo "(rows: table +inserted ~updated (HOT updated), per operation)"
