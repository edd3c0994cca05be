# bench/lib/gateway.sh — switchyard-gateway (one instance, or two on one port) and the desktop
# app, on a throw-away configuration, database and XDG directories.
# Sourced by bench/run (not run on its own): uses the options, RUN_DIR, the pinning, processes.sh and targets.sh's requests.
# shellcheck shell=bash

# leaves nothing behind; proxy variables are removed so its libcurl can only reach loopback.
# write_config FILE PORT DATABASE: the gateway configuration both programs run.
write_config() {
    cat >"$1" <<EOF
listen: ${HOST}:$2
admin_token: bench-admin-${RANDOM}${RANDOM}
database: $3
balance: 1000000            # admission needs a positive balance; every answer is charged (a ledger entry)
channels:
  - id: bench
    provider: bench
    base_url: http://${HOST}:${UPSTREAM_PORT}/v1
    format: openai
    credentials: [bench]
    models:
      - id: bench/model
        upstream: bench-model
        price: {prompt: 0.1, completion: 0.1}
  - id: bench-stream          # the same upstream's server-sent-events answer (--stream)
    provider: bench
    base_url: http://${HOST}:${UPSTREAM_PORT}/stream/v1
    format: openai
    credentials: [bench]
    models:
      - id: bench/stream
        upstream: bench-model
        price: {prompt: 0.1, completion: 0.1}
  - id: bench-anthropic       # the same upstream's Anthropic Messages answer (--anthropic)
    provider: bench-anthropic
    base_url: http://${HOST}:${UPSTREAM_PORT}/anthropic/v1
    format: anthropic
    credentials: [bench]
    models:
      - id: bench/anthropic
        upstream: bench-model
        price: {prompt: 0.1, completion: 0.1}
  - id: bench-gemini          # the same upstream's Gemini generateContent answer (--formats)
    provider: bench-gemini
    base_url: http://${HOST}:${UPSTREAM_PORT}/v1beta
    format: gemini
    credentials: [bench]
    models:
      - id: bench/gemini
        upstream: bench-gemini
        price: {prompt: 0.1, completion: 0.1}
  - id: bench-embed           # the same upstream's embeddings answer (--embeddings)
    provider: bench
    base_url: http://${HOST}:${UPSTREAM_PORT}/embed/v1
    format: openai
    credentials: [bench]
    models:
      - id: bench/embed
        upstream: bench-embed
        price: {prompt: 0.1, completion: 0.1}
models:
  - id: bench/model
  - id: bench/stream
  - id: bench/anthropic
  - id: bench/gemini
  - id: bench/embed
    capabilities: [embeddings]
keys:
  - name: bench
    secret: sk-bench
EOF
}

# The environment both programs run in: proxies removed, throw-away XDG directories. Start it in
# the background (`clean_env CMD... &`): it execs, so $! is the program itself (its memory is read
# from /proc/$!).
clean_env() {
    # No session bus and SWITCHYARD_CREDENTIALS=database: the bench credential never reaches
    # the user's OS keychain.
    exec env -u http_proxy -u https_proxy -u all_proxy -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY \
        -u DBUS_SESSION_BUS_ADDRESS NO_PROXY='*' no_proxy='*' SWITCHYARD_CREDENTIALS=database \
        XDG_RUNTIME_DIR="${RUN_DIR}/xdg/runtime" \
        XDG_DATA_HOME="${RUN_DIR}/xdg/data" XDG_CONFIG_HOME="${RUN_DIR}/xdg/config" \
        XDG_CACHE_HOME="${RUN_DIR}/xdg/cache" "$@"
}

# wait_for_server NAME PID PORT LOG: /health first (bounded), then real requests: a
# 401/402/502 shows here, not as errors in the middle of the load.
wait_for_server() {
    local name="$1" pid="$2" port="$3" log="$4" deadline
    deadline=$((SECONDS + 60))
    until lcurl -o /dev/null "http://${HOST}:${port}/health" 2>/dev/null; do
        kill -0 "${pid}" 2>/dev/null || { tail -n 20 "${log}" >&2; die "${name} exited during start-up"; }
        ((SECONDS < deadline)) || { tail -n 20 "${log}" >&2; die "${name}: no /health answer within 60 s"; }
        sleep 0.2
    done
    wait_for_chat "${name}" "${pid}" "http://${HOST}:${port}" /v1/chat/completions "${REQUEST_JSON}" "${log}" 10
    if ((STREAM)); then
        wait_for_chat "${name} (stream)" "${pid}" "http://${HOST}:${port}" /v1/chat/completions \
            "${REQUEST_SSE}" "${log}" 10
    fi
    if ((EMBEDDINGS)); then
        wait_for_chat "${name} (embeddings)" "${pid}" "http://${HOST}:${port}" /v1/embeddings \
            "${REQUEST_EMBEDDINGS}" "${log}" 10
    fi
    if ((FORMATS)); then
        wait_for_chat "${name} (responses → openai)" "${pid}" "http://${HOST}:${port}" /v1/responses \
            "${REQUEST_RESPONSES}" "${log}" 10
        wait_for_chat "${name} (gemini → openai)" "${pid}" "http://${HOST}:${port}" "${GEMINI_PATH}" \
            "${REQUEST_GEMINI}" "${log}" 10
        wait_for_chat "${name} (gemini, same format)" "${pid}" "http://${HOST}:${port}" "${GEMINI_SAME_PATH}" \
            "${REQUEST_GEMINI}" "${log}" 10
    fi
    if ((ANTHROPIC)); then
        wait_for_chat "${name} (anthropic)" "${pid}" "http://${HOST}:${port}" /v1/messages \
            "${REQUEST_ANTHROPIC}" "${log}" 10
        wait_for_chat "${name} (anthropic → openai)" "${pid}" "http://${HOST}:${port}" /v1/messages \
            "${REQUEST_ANTHROPIC_TO_OPENAI}" "${log}" 10
        wait_for_chat "${name} (openai → anthropic)" "${pid}" "http://${HOST}:${port}" /v1/chat/completions \
            "${REQUEST_OPENAI_TO_ANTHROPIC}" "${log}" 10
    fi
}

start_gateway() {
    local config="${RUN_DIR}/gateway.yaml" log="${RUN_DIR}/gateway.log" pid
    GATEWAY_PORT="$(free_port)"
    mkdir -p "${RUN_DIR}/xdg/data" "${RUN_DIR}/xdg/config" "${RUN_DIR}/xdg/cache" "${RUN_DIR}/xdg/runtime"
    chmod 700 "${RUN_DIR}/xdg/runtime"
    write_config "${config}" "${GATEWAY_PORT}" "${RUN_DIR}/switchyard.db"
    clean_env "${SERVER_PIN[@]}" "${GATEWAY_BIN}" --config "${config}" >"${log}" 2>&1 &
    pid=$!
    STARTED_PIDS+=("${pid}")
    GATEWAY_PID="${pid}"
    wait_for_server switchyard-gateway "${pid}" "${GATEWAY_PORT}" "${log}"
    note "switchyard-gateway on ${HOST}:${GATEWAY_PORT}"
}

# Two instances on one port (listen_reuse_port): the kernel spreads wrk's connections among them.
# With --shared-store they share the PostgreSQL database and Redis of bench/lib/shared.sh.
start_gateway_pair() {
    local i config log pin
    PAIR_PORT="$(free_port)"
    PAIR_PIDS=""
    for i in 1 2; do
        config="${RUN_DIR}/pair-${i}.yaml" log="${RUN_DIR}/pair-${i}.log"
        # With --shared-store both run on the one PostgreSQL and Redis, else each on its own file.
        write_config "${config}" "${PAIR_PORT}" "${SHARED_DATABASE:-${RUN_DIR}/pair-${i}.db}"
        printf 'listen_reuse_port: true\ninstance_name: pair-%s\n' "${i}" >>"${config}"
        if [[ -n "${SHARED_DATABASE}" ]]; then shared_store_config >>"${config}"; fi
        pin=()
        if ((i == 1)); then
            pin=("${SERVER_PIN[@]}")
        elif ((${#SERVER_PIN[@]})) && (($(nproc) > 2)); then
            pin=(taskset -c 2)
        fi
        # --listen: on the shared store the stored configuration's `listen` is the first gateway's.
        clean_env "${pin[@]}" "${GATEWAY_BIN}" --config "${config}" --listen "${HOST}:${PAIR_PORT}" >"${log}" 2>&1 &
        STARTED_PIDS+=("$!")
        PAIR_PIDS+="${PAIR_PIDS:+ }$!"
        wait_for_server "switchyard-gateway (pair ${i})" "$!" "${PAIR_PORT}" "${log}"
    done
    note "two switchyard-gateway instances on ${HOST}:${PAIR_PORT} (SO_REUSEPORT)"
}

# The desktop app on the same configuration (its own port and database), its window open on the
# Overview page (tiles and live charts) on a private virtual display. The app, its UI thread and
# its software rendering included, gets core 0 like the headless gateway; Xvfb runs on the
# client core.
start_app() {
    local config="${RUN_DIR}/app.yaml" log="${RUN_DIR}/app.log" display pid i
    APP_PORT="$(free_port)"
    write_config "${config}" "${APP_PORT}" "${RUN_DIR}/app.db"
    for ((display = 90; display < 190; display++)); do
        [[ -e "/tmp/.X11-unix/X${display}" || -e "/tmp/.X${display}-lock" ]] || break
    done
    ((display < 190)) || die "no free X display number between :90 and :189"
    "${CLIENT_PIN[@]}" Xvfb ":${display}" -screen 0 1280x800x24 -nolisten tcp >"${RUN_DIR}/xvfb.log" 2>&1 &
    STARTED_PIDS+=("$!")
    for ((i = 0; i < 50; i++)); do [[ -e "/tmp/.X11-unix/X${display}" ]] && break; sleep 0.1; done
    [[ -e "/tmp/.X11-unix/X${display}" ]] || die "Xvfb did not start on :${display} (see --keep)"
    DISPLAY=":${display}" QT_QPA_PLATFORM=xcb clean_env "${SERVER_PIN[@]}" "${APP_BIN}" --config "${config}" \
        --port "${APP_PORT}" >"${log}" 2>&1 &
    pid=$!
    STARTED_PIDS+=("${pid}")
    APP_PID="${pid}"
    wait_for_server "switchyard (desktop app)" "${pid}" "${APP_PORT}" "${log}"
    note "switchyard desktop app on ${HOST}:${APP_PORT}, dashboard open on display :${display}"
}
