#!/usr/bin/env bash
# A self-hosted, multi-service Temporal cluster for Arbor on one host: Temporal server built from the Go module
# proxy, PostgreSQL (SQL persistence and SQL visibility, schema postgres12), four services (frontend, history,
# matching, worker) as separate processes on loopback ports, the namespace and Arbor's search attributes.
# Read deploy/cluster/README.md first. Each step is idempotent; `up` runs them all.
#
#   deploy/cluster/arbor-cluster.sh up        # build (minutes, once), postgres, schema, config, start, register
#   TEMPORAL_ADDRESS=127.0.0.1:7233 npx arbor worker     # as many workers as you like, on any host that reaches it
#   deploy/cluster/arbor-cluster.sh restart history      # one service (or all, with no name)
#   deploy/cluster/arbor-cluster.sh down
set -euo pipefail

VERSION="${TEMPORAL_SERVER_VERSION:-v1.32.2}"
DIR="${ARBOR_CLUSTER_DIR:-$PWD/.arbor-cluster}"
BIN="${ARBOR_CLUSTER_BIN:-$HOME/.cache/arbor/cluster/$VERSION/bin}"
BASE="${ARBOR_CLUSTER_PORT_BASE:-7233}"
NAMESPACE="${ARBOR_CLUSTER_NAMESPACE:-default}"
SHARDS="${ARBOR_CLUSTER_HISTORY_SHARDS:-4}"
# An external PostgreSQL when POSTGRES_HOST is set; else a private one in $DIR/postgres on loopback.
PG_HOST="${POSTGRES_HOST:-127.0.0.1}"
PG_PORT="${POSTGRES_PORT:-$((BASE + 20))}"
PG_USER="${POSTGRES_USER:-temporal}"
PG_PASSWORD="${POSTGRES_PASSWORD:-temporal}"
TEMPORAL_CLI="${TEMPORAL_CLI:-temporal}"
SERVICES=(history matching frontend worker)

# gRPC and membership ports of each service, from the base (the frontend's gRPC port is the base itself).
grpc_port() { case "$1" in frontend) echo "$BASE" ;; history) echo $((BASE + 1)) ;; matching) echo $((BASE + 2)) ;; worker) echo $((BASE + 6)) ;; esac; }
membership_port() { echo $(($(grpc_port "$1") + 100)); }

log() { printf '[arbor-cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

schema_dir() {
  if [ -n "${ARBOR_CLUSTER_SCHEMA_DIR:-}" ]; then echo "$ARBOR_CLUSTER_SCHEMA_DIR"; return; fi
  echo "$(GOTOOLCHAIN=auto go env GOMODCACHE)/go.temporal.io/server@$VERSION/schema/postgresql/v12"
}

cmd_build() {
  if [ -x "$BIN/temporal-server" ] && [ -x "$BIN/temporal-sql-tool" ] && [ -d "$(schema_dir)" ]; then
    log "temporal-server and temporal-sql-tool $VERSION found in $BIN"
    return
  fi
  command -v go >/dev/null || die "go is not on PATH (any Go 1.21+; GOTOOLCHAIN=auto fetches the version the server asks for)"
  mkdir -p "$BIN"
  log "building temporal-server and temporal-sql-tool $VERSION with go install (about 9 minutes on two cores, once)"
  # The server module asks for a newer Go than many machines have: GOTOOLCHAIN=auto fetches it.
  (cd "$BIN" && GOTOOLCHAIN=auto GOBIN="$BIN" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -ldflags='-s -w' "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION")
  mv -f "$BIN/server" "$BIN/temporal-server"
  mv -f "$BIN/sql" "$BIN/temporal-sql-tool"
}

pg_bin() {
  local version
  version="$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)"
  if [ -z "$version" ]; then
    log "installing PostgreSQL from the system's packages (apt-get install postgresql)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    version="$(ls /usr/lib/postgresql | sort -n | tail -1)"
  fi
  echo "/usr/lib/postgresql/$version/bin"
}

# initdb and postgres refuse to run as root: as root, the system's postgres user runs them.
as_pg_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

cmd_postgres() {
  [ -n "${POSTGRES_HOST:-}" ] && { log "using the PostgreSQL at $PG_HOST:$PG_PORT"; return; }
  local bin data="$DIR/postgres/data"
  bin="$(pg_bin)"
  mkdir -p "$DIR/postgres"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$DIR/postgres"
    chmod a+x "$DIR" # the postgres user must reach its folder inside
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    local pwfile="$DIR/postgres/pw"
    printf '%s\n' "$PG_PASSWORD" >"$pwfile"
    [ "$(id -u)" = 0 ] && chown postgres "$pwfile"
    as_pg_owner "$bin/initdb" -D "$data" -U "$PG_USER" --pwfile="$pwfile" -A scram-sha-256 >/dev/null
    rm -f "$pwfile"
  fi
  if as_pg_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    log "PostgreSQL already running on 127.0.0.1:$PG_PORT"
    return
  fi
  as_pg_owner "$bin/pg_ctl" -D "$data" -w -l "$DIR/postgres/log" \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $DIR/postgres -c max_connections=200" start >/dev/null
  log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running on 127.0.0.1:$PG_PORT (data $data)"
}

sql_tool() { SQL_PASSWORD="$PG_PASSWORD" "$BIN/temporal-sql-tool" --plugin postgres12 --ep "$PG_HOST" -p "$PG_PORT" -u "$PG_USER" "$@"; }

cmd_schema() {
  local schemas db sub
  schemas="$(schema_dir)"
  [ -d "$schemas" ] || die "no schema folder at $schemas (run build, or set ARBOR_CLUSTER_SCHEMA_DIR)"
  for db in temporal temporal_visibility; do
    if [ "$db" = temporal ]; then sub=temporal; else sub=visibility; fi
    sql_tool --db "$db" create >/dev/null 2>&1 || true # exists already
    # setup-schema -v 0.0 only creates the version table; update-schema applies every versioned step.
    sql_tool --db "$db" setup-schema -v 0.0 >/dev/null 2>&1 || true
    sql_tool --db "$db" update-schema -d "$schemas/$sub/versioned" >/dev/null
    log "schema of $db is up to date ($schemas/$sub)"
  done
}

datastore() {
  cat <<YAML
      sql:
        pluginName: postgres12
        databaseName: $1
        connectAddr: "$PG_HOST:$PG_PORT"
        connectProtocol: tcp
        user: "$PG_USER"
        password: "$PG_PASSWORD"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: 1h
YAML
}

cmd_config() {
  mkdir -p "$DIR/logs"
  {
    cat <<YAML
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  # Fixed for the life of the cluster: choose it for the largest load you expect (production: 512 and up).
  numHistoryShards: $SHARDS
  datastores:
    postgres-default:
$(datastore temporal 20)
    postgres-visibility:
$(datastore temporal_visibility 10)
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
YAML
    for service in "${SERVICES[@]}"; do
      printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnLocalHost: true\n' \
        "$service" "$(grpc_port "$service")" "$(membership_port "$service")"
      [ "$service" = frontend ] && printf '      httpPort: %s\n' $((BASE + 10))
    done
    cat <<YAML
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:$BASE"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$DIR/dynamicconfig.yaml"
  pollInterval: 10s
YAML
  } >"$DIR/temporal.yaml"
  cat >"$DIR/dynamicconfig.yaml" <<'YAML'
limit.maxIDLength:
  - value: 255
# A parent starting hundreds of sub-agents at once writes their start events in one batch; past the default 512 KiB
# events cache the server reads that batch back for every child it starts (bench/RESULTS.md, B4).
history.eventsCacheMaxSizeBytes:
  - value: 67108864
YAML
  log "wrote $DIR/temporal.yaml and $DIR/dynamicconfig.yaml"
}

pid_of() { local file="$DIR/$1.pid"; [ -f "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null && cat "$file"; }

wait_port() {
  local port="$1" tries=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -ge 120 ] && return 1
    sleep 0.5
  done
}

start_service() {
  local service="$1"
  nohup "$BIN/temporal-server" --config-file "$DIR/temporal.yaml" --allow-no-auth start --service "$service" \
    >>"$DIR/logs/$service.log" 2>&1 &
  echo $! >"$DIR/$service.pid"
}

# Waits for a started service's port. On a fresh database the services race to write the cluster's metadata record, and
# a loser exits ("SaveClusterMetadata encountered version mismatch"); the record exists by then, so it is started again
# once.
wait_service() {
  local service="$1"
  wait_port "$(grpc_port "$service")" && return
  if ! pid_of "$service" >/dev/null; then
    log "$service exited before opening its port; starting it again"
    start_service "$service"
    wait_port "$(grpc_port "$service")" && return
  fi
  die "$service did not open port $(grpc_port "$service"); see $DIR/logs/$service.log"
}

cmd_start() {
  [ -f "$DIR/temporal.yaml" ] || die "no $DIR/temporal.yaml: run config first"
  local services=("$@") service started=()
  [ ${#services[@]} -eq 0 ] && services=("${SERVICES[@]}")
  for service in "${services[@]}"; do
    if pid_of "$service" >/dev/null; then log "$service already running (pid $(pid_of "$service"))"; continue; fi
    start_service "$service"
    started+=("$service")
    # The first service started writes the cluster's metadata on a fresh database before the others look for it.
    [ ${#started[@]} -eq 1 ] && wait_service "$service"
  done
  for service in "${started[@]}"; do
    wait_service "$service"
    log "$service running (pid $(cat "$DIR/$service.pid"), gRPC 127.0.0.1:$(grpc_port "$service"))"
  done
  # An open port is not a served request: wait until the frontend answers for the whole cluster.
  if command -v "$TEMPORAL_CLI" >/dev/null; then wait_healthy; fi
}

wait_healthy() {
  local tries=0
  until temporal_cli operator cluster health >/dev/null 2>&1 &&
    temporal_cli workflow list --namespace "$NAMESPACE" --limit 1 >/dev/null 2>&1; do
    tries=$((tries + 1))
    # The namespace does not exist before the first `register`: health alone is enough then.
    if [ "$tries" -ge 10 ] && temporal_cli operator cluster health >/dev/null 2>&1 &&
      ! temporal_cli operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then return; fi
    [ "$tries" -ge 180 ] && die "the cluster did not become healthy; see $DIR/logs"
    sleep 1
  done
}

cmd_stop() {
  local services=("$@") service pid
  [ ${#services[@]} -eq 0 ] && services=(frontend worker matching history)
  for service in "${services[@]}"; do
    pid="$(pid_of "$service" || true)"
    [ -z "$pid" ] && continue
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$DIR/$service.pid"
    log "$service stopped"
  done
}

cmd_restart() { cmd_stop "$@"; cmd_start "$@"; }

temporal_cli() { "$TEMPORAL_CLI" --address "127.0.0.1:$BASE" "$@"; }

cmd_register() {
  command -v "$TEMPORAL_CLI" >/dev/null || die "the Temporal CLI ($TEMPORAL_CLI) is not on PATH: set TEMPORAL_CLI"
  local tries=0
  until temporal_cli operator cluster health >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -ge 120 ] && die "the cluster did not become healthy; see $DIR/logs"
    sleep 1
  done
  temporal_cli operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1 ||
    temporal_cli operator namespace create --namespace "$NAMESPACE" --retention 72h >/dev/null
  # A namespace just created can take a moment to reach every frontend cache.
  tries=0
  until temporal_cli workflow list --namespace "$NAMESPACE" --limit 1 >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -ge 60 ] && die "namespace $NAMESPACE is not usable; see $DIR/logs/frontend.log"
    sleep 1
  done
  # Arbor's search attributes (src/shared/search-attributes.ts), one per call.
  local attribute existing
  existing="$(temporal_cli operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null || true)"
  for attribute in ArborRootSessionId:Keyword ArborParentSessionId:Keyword ArborStatus:Keyword ArborTitle:Text ArborTotalTokens:Int ArborCostUsd:Double ArborForkedFrom:Keyword; do
    grep -q "${attribute%%:*}" <<<"$existing" && continue
    temporal_cli operator search-attribute create --namespace "$NAMESPACE" --name "${attribute%%:*}" --type "${attribute##*:}" >/dev/null
  done
  # Frontends cache a namespace's search attributes: wait until a query naming them is accepted.
  tries=0
  until temporal_cli workflow list --namespace "$NAMESPACE" --limit 1 \
    --query "ArborRootSessionId = 'x' AND ArborParentSessionId IS NULL AND ArborStatus = 'idle'" >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -ge 120 ] && die "the search attributes are not usable; see $DIR/logs/frontend.log"
    sleep 1
  done
  log "namespace $NAMESPACE and Arbor's search attributes are ready at 127.0.0.1:$BASE"
}

cmd_up() { cmd_build; cmd_postgres; cmd_schema; cmd_config; cmd_start; cmd_register; }

cmd_down() {
  cmd_stop
  [ -n "${POSTGRES_HOST:-}" ] && return
  if [ -f "$DIR/postgres/data/PG_VERSION" ]; then
    as_pg_owner "$(pg_bin)/pg_ctl" -D "$DIR/postgres/data" -m fast stop >/dev/null 2>&1 || true
    log "PostgreSQL stopped"
  fi
}

cmd_status() {
  local service
  for service in "${SERVICES[@]}"; do
    if pid_of "$service" >/dev/null; then echo "$service running pid $(pid_of "$service") port $(grpc_port "$service")"
    else echo "$service stopped"; fi
  done
}

command="${1:-}"
shift || true
case "$command" in
  build | postgres | schema | config | start | stop | restart | register | up | down | status) "cmd_$command" "$@" ;;
  *) die "usage: $0 up|down|build|postgres|schema|config|start [service...]|stop [service...]|restart [service...]|register|status" ;;
esac
