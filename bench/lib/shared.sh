# bench/lib/shared.sh — a throw-away PostgreSQL and Redis for --shared-store: the single gateway
# and the pair on one port then run on the shared store (docs/scale-out.md), the way several
# instances of a team run, instead of each on its own SQLite file.
# Sourced by bench/run (not run on its own): uses RUN_DIR, the pinning and processes.sh.
# shellcheck shell=bash

readonly PG_BIN_DIR=/usr/lib/postgresql/15/bin
readonly PG_USER=switchyard
PG_PORT=""
REDIS_PORT=""

# as_server_user COMMAND...: PostgreSQL refuses to run as root; under root it runs as nobody
# (setpriv execs, so $! stays the server itself).
as_server_user() {
    if ((EUID == 0)); then
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
    else
        "$@"
    fi
}

check_shared_tools() {
    local missing=()
    [[ -x "${PG_BIN_DIR}/initdb" && -x "${PG_BIN_DIR}/postgres" ]] || missing+=(postgresql)
    command -v redis-server >/dev/null || missing+=(redis-server)
    if ((${#missing[@]})); then
        echo "bench/run: --shared-store needs ${missing[*]}. On Debian install with:" >&2
        echo "  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
}

start_shared_store() {
    local dir="${RUN_DIR}/pg" password="bench-${RANDOM}${RANDOM}" i
    chmod 711 "${RUN_DIR}"
    mkdir -p "${dir}"
    printf '%s' "${password}" >"${dir}/password"
    ((EUID == 0)) && chown -R nobody:nogroup "${dir}"
    as_server_user "${PG_BIN_DIR}/initdb" -D "${dir}/data" -U "${PG_USER}" --pwfile="${dir}/password" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --no-locale --no-sync \
        >"${RUN_DIR}/initdb.log" 2>&1 || { tail -n 20 "${RUN_DIR}/initdb.log" >&2; die "initdb failed"; }
    PG_PORT="$(free_port)"
    # fsync off: a throw-away server; the figures are the gateways', not the disk's.
    as_server_user "${CLIENT_PIN[@]}" "${PG_BIN_DIR}/postgres" -D "${dir}/data" -p "${PG_PORT}" -k "${dir}" \
        -c listen_addresses="${HOST}" -c fsync=off -c synchronous_commit=off -c max_connections=100 \
        >"${RUN_DIR}/postgres.log" 2>&1 &
    STARTED_PIDS+=("$!")
    for ((i = 0; i < 100; i++)); do
        "${PG_BIN_DIR}/pg_isready" -q -h "${HOST}" -p "${PG_PORT}" && break
        sleep 0.1
    done
    "${PG_BIN_DIR}/pg_isready" -q -h "${HOST}" -p "${PG_PORT}" \
        || { tail -n 20 "${RUN_DIR}/postgres.log" >&2; die "PostgreSQL did not start"; }
    REDIS_PORT="$(free_port)"
    "${CLIENT_PIN[@]}" redis-server --port "${REDIS_PORT}" --bind "${HOST}" --dir "${RUN_DIR}" --save '' \
        --appendonly no --daemonize no >"${RUN_DIR}/redis.log" 2>&1 &
    STARTED_PIDS+=("$!")
    for ((i = 0; i < 100; i++)); do
        [[ "$(redis-cli -h "${HOST}" -p "${REDIS_PORT}" ping 2>/dev/null)" == PONG ]] && break
        sleep 0.1
    done
    [[ "$(redis-cli -h "${HOST}" -p "${REDIS_PORT}" ping 2>/dev/null)" == PONG ]] \
        || { tail -n 20 "${RUN_DIR}/redis.log" >&2; die "Redis did not start"; }
    SHARED_DATABASE="postgres://${PG_USER}:${password}@${HOST}:${PG_PORT}/postgres"
    note "shared store: PostgreSQL on ${HOST}:${PG_PORT}, Redis on ${HOST}:${REDIS_PORT}"
}

# The lines a gateway on the shared store adds to its configuration.
shared_store_config() {
    printf 'redis: redis://%s:%s/0\n' "${HOST}" "${REDIS_PORT}"
}

# One gateway on the shared store (core 0, like the single gateway): what the pair is held to.
start_gateway_shared() {
    local config="${RUN_DIR}/shared.yaml" log="${RUN_DIR}/shared.log"
    SHARED_PORT="$(free_port)"
    write_config "${config}" "${SHARED_PORT}" "${SHARED_DATABASE}"
    { shared_store_config; printf 'instance_name: shared-single\n'; } >>"${config}"
    clean_env "${SERVER_PIN[@]}" "${GATEWAY_BIN}" --config "${config}" --listen "${HOST}:${SHARED_PORT}" >"${log}" 2>&1 &
    SHARED_PID=$!
    STARTED_PIDS+=("${SHARED_PID}")
    wait_for_server "switchyard-gateway (shared store)" "${SHARED_PID}" "${SHARED_PORT}" "${log}"
    note "switchyard-gateway on the shared store on ${HOST}:${SHARED_PORT}"
}
