#!/usr/bin/env bash
# The Blackboard benchmark (GitHub issue 7): starts the real server jar on a fresh database,
# drives simulated workers and an engine over HTTP (bench/Bench.java, JDK only), measures the
# raw-SQL ceiling on the same database with pgbench, and prints one table. See BENCHMARKS.md, "How to run it".
#
#   bench/run.sh            full run (about 25 minutes; the drift phase alone is 15)
#   bench/run.sh --quick    every phase for seconds (about 4 minutes)
#   bench/run.sh --quick --phases warmup,e2e,sdk    the SDK line beside the raw driver
#   options: --jfr FILE (record the server with JDK Flight Recorder), --keep-db, --out FILE,
#            --phases a,b,c and --set e2eSec=60,... (see java bench/Bench.java --help),
#            --heap 256m (server -Xmx), --jvm "OPTIONS" (the server's other JVM options; default
#            those of the Dockerfile), --retention 1m (BLACKBOARD_JOB_RETENTION: PUSHED jobs leave
#            the table after this, so the drift phase sees the steady state a deployment at this
#            rate would configure), --jar FILE (another build of the server, for A/B runs),
#            --no-vacuum (do not stand in for autovacuum when the cluster runs without it)
# Environment: JAVA_HOME (JDK >= 22: the driver is a multi-file source program),
# PGHOST/PGPORT/PGUSER/PGPASSWORD (a superuser role; without PGHOST and PGUSER, as root: the
# machine's own cluster, installed and started if need be, as role blackboard_bench; otherwise
# 127.0.0.1, 5432, postgres), BENCH_TOKEN, BENCH_DRIVER_OPTS (the
# driver's extra JVM options, e.g. -Dbench.slowPings=FILE appends each slow ping's due time, in
# epoch ms, and latency to FILE, to line up with the server's and PostgreSQL's logs),
# BENCH_PYTHON (the sdk phase's Python, default /usr/bin/python3, 3.9 or newer).
# The sdk phase runs the Java SDK's jar, built here when it is missing or older than its sources.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full jfr="" keep_db=0 no_vacuum=0 phases="" settings="" out="" heap=256m jar=""
retention=1m
jvm_opts=${BLACKBOARD_JVM_OPTS:-"-XX:+UseSerialGC -XX:MetaspaceSize=128m -XX:MaxMetaspaceSize=192m -XX:TrimNativeHeapInterval=5000 -XX:+ExitOnOutOfMemoryError"}
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --jfr) jfr="$(realpath -m "$2")"; shift ;;
    --keep-db) keep_db=1 ;;
    --no-vacuum) no_vacuum=1 ;;
    --phases) phases="$2"; shift ;;
    --set) settings="$2"; shift ;;
    --out) out="$(realpath -m "$2")"; shift ;;
    --heap) heap="$2"; shift ;;
    --jvm) jvm_opts="$2"; shift ;;
    --retention) retention="$2"; shift ;;
    --jar) jar="$(realpath "$2")"; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {print}' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

java_major() { "$1/bin/java" -version 2>&1 | sed -nE 's/.*version "([0-9]+).*/\1/p' | head -1; }
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_major "$JAVA_HOME")" -lt 22 ]; then
  for home in /usr/lib/jvm/*; do
    major=$(java_major "$home" 2>/dev/null || true)
    if [ -n "$major" ] && [ "$major" -ge 22 ]; then export JAVA_HOME="$home"; fi
  done
fi
java="$JAVA_HOME/bin/java"

# Without PGHOST/PGUSER, the machine's own cluster: as root, make sure it is installed and
# running (as .ci/run does) and benchmark as a superuser role with a password, which works
# with both trust and scram rules in pg_hba.conf. Otherwise the given cluster, as it is.
if [ -z "${PGHOST:-}${PGUSER:-}" ] && [ "$(id -u)" = 0 ]; then
  log() { printf '== %s\n' "$*"; }
  . .ci/postgres.sh
  ensure_postgres
  as_postgres psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -d postgres <<SQL
do \$\$ begin
  if not exists (select from pg_roles where rolname = 'blackboard_bench') then
    create role blackboard_bench login superuser password 'blackboard_bench';
  end if;
end \$\$;
SQL
  export PGUSER=blackboard_bench PGPASSWORD=blackboard_bench
fi
pg_host=${PGHOST:-127.0.0.1} pg_port=${PGPORT:-5432} pg_user=${PGUSER:-postgres}
token=${BENCH_TOKEN:-bench-token}
jar=${jar:-server/target/blackboard-0.1.0-SNAPSHOT.jar}

if [ ! -f "$jar" ]; then
  echo "== building $jar"
  ./mvnw -B -q package -DskipTests -pl server -am
fi

# The sdk phase's Java SDK jar: built alone from its own pom (it has no parent), without its tests.
sdk_jar=sdk/java/target/blackboard-sdk-0.1.0-SNAPSHOT.jar
if [ -z "$phases" ] || [[ ",$phases," == *,sdk,* ]]; then
  if [ ! -f "$sdk_jar" ] || [ -n "$(find sdk/java/pom.xml sdk/java/src/main -newer "$sdk_jar" -type f -print -quit)" ]; then
    echo "== building $sdk_jar"
    ./mvnw -B -q -f sdk/java/pom.xml package -Dmaven.test.skip=true \
      || echo "== the Java SDK did not build: the sdk phase uses the jar there is, if any"
  fi
fi

free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if [ -z "$(ss -Htln "sport = :$port")" ]; then echo "$port"; return; fi
  done
  echo "no free port" >&2; exit 1
}

db="bench_$(date +%Y%m%d_%H%M%S)_$$"
port=$(free_port)
work="target/bench"
mkdir -p "$work"
log="$work/$db.server.log"
psql_admin() { psql -X -q -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres "$@"; }

server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 45); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$server_pid" 2>/dev/null || true
  fi
  rm -f "$server_jar"
  [ -z "${app:-}" ] || rm -rf "$app"
  if [ "$keep_db" = 0 ]; then
    psql_admin -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  else
    echo "== kept database $db"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql_admin -c "create database $db"

jfr_opts=()
if [ -n "$jfr" ]; then
  # whole stacks (the request's filters alone pass the default 64 frames), sampled every 2 ms
  jfr_opts=("-XX:FlightRecorderOptions:stackdepth=256"
    "-XX:StartFlightRecording=filename=$jfr,settings=profile,jdk.ExecutionSample#period=2ms,dumponexit=true")
fi

# under a name of its own, so nobody's "pkill -f blackboard" elsewhere on the machine stops it
server_jar="$work/$db.server.jar"
ln -sf "$(realpath "$jar")" "$server_jar"

# The server, started with "$@" after the JVM options; answers when it is ready (readiness UP),
# with the milliseconds from launch to readiness in $started_ms.
start_server() {
  echo "== server: $jar on port $port, database $db, -Xmx$heap $jvm_opts $*, job retention $retention, log $log"
  local begin
  begin=$(date +%s%N)
  # shellcheck disable=SC2086
  BLACKBOARD_WORKER_TOKENS="$token" BLACKBOARD_ENGINE_TOKENS="$token" BLACKBOARD_OPERATOR_TOKENS="$token" \
  SPRING_DATASOURCE_URL="jdbc:postgresql://$pg_host:$pg_port/$db" \
  SPRING_DATASOURCE_USERNAME="$pg_user" SPRING_DATASOURCE_PASSWORD="${PGPASSWORD:-}" SERVER_PORT="$port" \
  BLACKBOARD_JOB_RETENTION="$retention" MALLOC_ARENA_MAX=2 "$java" "-Xmx$heap" $jvm_opts "${jfr_opts[@]}" "$@" >"$log" 2>&1 &
  server_pid=$!
  for i in $(seq 1 2400); do
    if curl -sf "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null 2>&1; then
      started_ms=$(( ($(date +%s%N) - begin) / 1000000 ))
      echo "== ready in $started_ms ms"
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      if grep -q "already in use" "$log"; then return 2; fi  # someone took the port meanwhile
      echo "server died:" >&2; tail -40 "$log" >&2; exit 1
    fi
    sleep 0.05
  done
  echo "server did not start in 120 s" >&2; tail -40 "$log" >&2; exit 1
}

start_on_a_free_port() {
  for attempt in 1 2 3 4 5; do
    rc=0; start_server "$@" || rc=$?
    [ "$rc" = 0 ] && return 0
    [ "$attempt" = 5 ] && { echo "no free port after 5 attempts" >&2; exit 1; }
    port=$(free_port)
  done
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  for _ in $(seq 1 45); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
  kill -9 "$server_pid" 2>/dev/null || true
  server_pid=""
}

# Start-up (issue 27), on the idle machine before any load: the plain jar, then the ahead-of-time
# start of docs/operations.md (the jar extracted, a training run's JVM cache, the context's
# ahead-of-time beans), which then serves the whole run, as a deployment would run it. A jar
# built before the ahead-of-time processing (--jar, A/B runs) runs plainly.
start_on_a_free_port -jar "$server_jar"
startup_plain_ms=$started_ms
stop_server
startup_aot_ms=""
if unzip -Z1 "$jar" 'BOOT-INF/classes/io/blackboard/BlackboardApplication__ApplicationContextInitializer.class' \
    >/dev/null 2>&1; then
  app="$work/$db.app"
  "$java" -Djarmode=tools -jar "$(realpath "$jar")" extract --destination "$app" >/dev/null
  app_jar="$app/$(basename "$(realpath "$jar")")"
  # shellcheck disable=SC2086
  SPRING_DATASOURCE_URL=jdbc:postgresql://127.0.0.1:1/none SERVER_PORT=0 "$java" "-Xmx$heap" $jvm_opts \
    -XX:AOTCacheOutput="$app/blackboard.aot" -Dspring.aot.enabled=true -Dspring.context.exit=onRefresh \
    -jar "$app_jar" >"$work/$db.training.log" 2>&1 || { tail -40 "$work/$db.training.log" >&2; exit 1; }
  start_on_a_free_port -XX:AOTCache="$app/blackboard.aot" -Dspring.aot.enabled=true -jar "$app_jar"
  startup_aot_ms=$started_ms
  # The restart phase's second replica, started the same way under the driver's load: prints the
  # milliseconds from launch to readiness UP, then stops it.
  replica_script="$work/$db.replica.sh"
  {
    echo '#!/bin/bash'
    declare -f free_port
    echo "port=\$(free_port)"
    echo 'begin=$(date +%s%N)'
    printf 'BLACKBOARD_WORKER_TOKENS=%q BLACKBOARD_ENGINE_TOKENS=%q BLACKBOARD_OPERATOR_TOKENS=%q ' "$token" "$token" "$token"
    printf 'SPRING_DATASOURCE_URL=%q SPRING_DATASOURCE_USERNAME=%q SPRING_DATASOURCE_PASSWORD=%q ' \
      "jdbc:postgresql://$pg_host:$pg_port/$db" "$pg_user" "${PGPASSWORD:-}"
    printf 'SERVER_PORT="$port" BLACKBOARD_JOB_RETENTION=%q MALLOC_ARENA_MAX=2 %q %q ' "$retention" "$java" "-Xmx$heap"
    # shellcheck disable=SC2086
    printf '%q ' $jvm_opts -XX:AOTCache="$app/blackboard.aot" -Dspring.aot.enabled=true -jar "$app_jar"
    printf '>%q 2>&1 &\n' "$work/$db.replica.log"
    cat <<'SCRIPT'
pid=$!
for _ in $(seq 1 2400); do
  if curl -sf "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null 2>&1; then
    echo $(( ($(date +%s%N) - begin) / 1000000 ))
    kill "$pid"; wait "$pid" 2>/dev/null; exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { echo "the replica died"; exit 1; }
  sleep 0.05
done
kill -9 "$pid"; echo "not ready in 120 s"; exit 1
SCRIPT
  } >"$replica_script"
else
  echo "== $jar has no ahead-of-time code: the run uses the plain jar"
  start_on_a_free_port -jar "$server_jar"
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
pg_version=$(psql -X -At -h "$pg_host" -p "$pg_port" -U "$pg_user" -d "$db" -c "show server_version")
autovacuum=$(psql -X -At -h "$pg_host" -p "$pg_port" -U "$pg_user" -d "$db" -c "show autovacuum")
echo "== machine: $(nproc) cores ($cpu), $mem; PostgreSQL $pg_version (autovacuum $autovacuum);" \
  "$("$java" -version 2>&1 | head -1)"

args=(--startup-plain-ms "$startup_plain_ms" --startup-aot-ms "${startup_aot_ms:-NaN}" ${replica_script:+--replica-script "$replica_script"} --mode "$mode" --url "http://127.0.0.1:$port" --token "$token" --db "$db" --server-pid "$server_pid"
      --pg-host "$pg_host" --pg-port "$pg_port" --pg-user "$pg_user" --bench-dir bench
      --out "${out:-$work/$db.md}" --log-dir "$work" --sdk-jar "$sdk_jar" --python "${BENCH_PYTHON:-/usr/bin/python3}")
if [ -n "$phases" ]; then args+=(--phases "$phases"); fi
if [ -n "$settings" ]; then args+=(--set "$settings"); fi
if [ "$no_vacuum" = 1 ]; then args+=(--no-vacuum); fi
# bounded: the driver stops itself; this is the last resort
timeout --kill-after=30 $([ "$mode" = full ] && echo 3000 || echo 900) \
  "$java" -Xmx1g ${BENCH_DRIVER_OPTS:-} bench/Bench.java "${args[@]}"
echo "== table written to ${out:-$work/$db.md}"
