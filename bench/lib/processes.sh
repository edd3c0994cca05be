# bench/lib/processes.sh — the processes bench/run starts (each recorded and stopped on exit,
# Ctrl-C included), CPU placement, ports and the probe every server must answer before the load.
# Sourced by bench/run (not run on its own): uses HOST, PIN, KEEP and RUN_DIR.
# shellcheck shell=bash

STARTED_PIDS=()
RUN_DIR=""

# Direct children of a process (the nginx worker under its master).
children_of() { cat /proc/"$1"/task/*/children 2>/dev/null || true; }

stop_pid() {
    local pid="$1" children i
    kill -0 "${pid}" 2>/dev/null || return 0
    children="$(children_of "${pid}")"
    kill -TERM "${pid}" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do                     # up to 5 s for a clean stop
        kill -0 "${pid}" 2>/dev/null || break
        sleep 0.1
    done
    # shellcheck disable=SC2086  # children: a list of pids
    kill -KILL "${pid}" ${children} 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
}

# in_background SECONDS COMMAND...: runs COMMAND with a time limit, as a recorded background job
# so that a signal to this script is handled at once (bash defers traps until a foreground
# command ends) and the job is stopped with the rest.
in_background() {
    local limit="$1" pid status=0 kept=() p
    shift
    timeout "${limit}" "$@" &
    pid=$!
    STARTED_PIDS+=("${pid}")
    wait "${pid}" || status=$?
    for p in "${STARTED_PIDS[@]}"; do [[ "${p}" == "${pid}" ]] || kept+=("${p}"); done
    STARTED_PIDS=("${kept[@]}")
    return "${status}"
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    local i
    # Newest first: a program goes before what it depends on (the desktop app before its display).
    for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${STARTED_PIDS[i]}"; done
    if [[ -n "${RUN_DIR}" && -d "${RUN_DIR}" ]]; then
        if ((KEEP)); then echo "-- kept ${RUN_DIR}"; else rm -rf "${RUN_DIR}"; fi
    fi
    exit "${status}"
}

# CPU placement: proxies under test on core 0, wrk and the upstream on core 1.
setup_pinning() {
    SERVER_PIN=()
    CLIENT_PIN=()
    PLACEMENT="not pinned"
    if ((PIN)) && command -v taskset >/dev/null && (($(nproc) >= 2)); then
        SERVER_PIN=(taskset -c 0)
        CLIENT_PIN=(taskset -c 1)
        PLACEMENT="proxy under test on core 0; wrk + upstream nginx on core 1"
    elif ((PIN)); then
        PLACEMENT="not pinned (needs taskset and ≥ 2 cores)"
    fi
}

# A port nobody listens on right now. The race until the server binds is caught at start-up.
# Below the kernel's ephemeral range (ip_local_port_range, 32768 and up by default): a port in it
# may be the local end of some connection, which no probe sees and which makes the bind fail.
USED_PORTS=" "
free_port() {
    local port i low=20000 high
    high="$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
    ((high > low + 1000)) || { low=10000; high=20000; }
    for ((i = 0; i < 200; i++)); do
        port=$((low + RANDOM % (high - low)))
        [[ "${USED_PORTS}" == *" ${port} "* ]] && continue
        if ! (exec 3<>"/dev/tcp/${HOST}/${port}") 2>/dev/null; then
            USED_PORTS+="${port} "
            echo "${port}"
            return 0
        fi
    done
    die "no free port found on ${HOST}"
}

# curl kept on loopback: proxies from the environment ignored, every call bounded.
lcurl() { curl --noproxy '*' --silent --show-error --max-time 5 "$@"; }

# One request: probe URL PATH BODY prints the answer's body and then " <http code>".
probe() {
    lcurl -o - -w ' %{http_code}' -X POST "$1$2" -H 'Content-Type: application/json' \
        -H 'Authorization: Bearer sk-bench' --data "$3" 2>&1 || true
}

# Waits (bounded) until URL PATH answers BODY with 200 and a chat completion, or PID dies.
wait_for_chat() {
    local name="$1" pid="$2" url="$3" path="$4" body="$5" log="$6" seconds="$7" deadline answer=""
    deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
        kill -0 "${pid}" 2>/dev/null || { tail -n 20 "${log}" >&2; die "${name} exited during start-up"; }
        answer="$(probe "${url}" "${path}" "${body}")"
        [[ "${answer}" == *' 200' && ( "${answer}" == *'"chat.completion'* || "${answer}" == *'"message"'* \
            || "${answer}" == *'"embedding"'* || "${answer}" == *'"candidates"'* ) ]] && return 0
        sleep 0.2
    done
    echo "last answer to POST ${path}: ${answer}" >&2
    tail -n 20 "${log}" >&2
    die "${name} did not answer a chat completion within ${seconds} s"
}
