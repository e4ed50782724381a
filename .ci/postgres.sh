# Shell functions for the machine's local PostgreSQL, sourced by .ci/run and bench/run.sh (as
# root): as_postgres runs a command as the postgres OS user (peer authentication on the
# socket), ensure_postgres installs PostgreSQL with apt when it is missing, creates the main
# cluster when there is none, starts it, and waits until it answers on 127.0.0.1:5432.
# The sourcing script defines log.

as_postgres() { runuser -u postgres -- "$@"; }

ensure_postgres() {
  if ! command -v pg_lsclusters >/dev/null 2>&1; then
    log "PostgreSQL is not installed; installing it with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq postgresql
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -1)
  if [ -z "$version" ]; then
    log "No PostgreSQL cluster; creating one"
    version=$(ls /usr/lib/postgresql | sort -V | tail -1)
    pg_createcluster "$version" main
  fi
  if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    log "Starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 -p 5432 && return 0
    sleep 1
  done
  echo "PostgreSQL did not become ready" >&2
  exit 1
}

