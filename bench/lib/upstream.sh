# bench/lib/upstream.sh — the nginx instances: the fixed upstream and the nginx proxy_pass
# reference, their configuration and the answers the upstream gives.
# Sourced by bench/run (not run on its own): uses HOST, CONNECTIONS, RUN_DIR, the pinning and processes.sh.
# shellcheck shell=bash

# The upstream's answers, written into nginx.conf inside single quotes: they must contain
# neither ' nor $ (nginx variables); nginx turns the \n escapes into newlines.
readonly UPSTREAM_JSON='{"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I help you today?"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":9,"total_tokens":19}}'
readonly CHUNK_HEAD='data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench-model","choices":[{"index":0,'
readonly UPSTREAM_SSE="${CHUNK_HEAD}\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\\n\\n\
${CHUNK_HEAD}\"delta\":{\"content\":\"Hello!\"},\"finish_reason\":null}]}\\n\\n\
${CHUNK_HEAD}\"delta\":{\"content\":\" How can I help you today?\"},\"finish_reason\":null}]}\\n\\n\
${CHUNK_HEAD}\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":9,\"total_tokens\":19}}\\n\\n\
data: [DONE]\\n\\n"

# The same answer as Anthropic's Messages API gives it (--anthropic).
readonly UPSTREAM_ANTHROPIC='{"id":"msg_bench","type":"message","role":"assistant","model":"bench-model","content":[{"type":"text","text":"Hello! How can I help you today?"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":9}}'

# The same answer as Gemini's generateContent gives it (--formats), at the path a gemini-format
# channel whose base_url ends in /v1beta sends model bench-gemini to.
readonly UPSTREAM_GEMINI='{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello! How can I help you today?"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":9,"totalTokenCount":19},"modelVersion":"bench-gemini"}'
readonly UPSTREAM_GEMINI_PATH='/v1beta/models/bench-gemini:generateContent'

# A small embeddings answer (--embeddings): two vectors of eight values, as OpenAI gives them.
readonly UPSTREAM_EMBEDDINGS='{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2,0.3,-0.4,0.5,-0.6,0.7,-0.8]},{"object":"embedding","index":1,"embedding":[0.8,-0.7,0.6,-0.5,0.4,-0.3,0.2,-0.1]}],"model":"bench-embed","usage":{"prompt_tokens":6,"total_tokens":6}}'

# nginx settings shared by both instances: private paths only (never the system configuration),
# one worker, no access log, request bodies kept in memory (when started as root, the worker
# runs as nobody and could not write into our private directory anyway), and keep-alive that
# outlasts any benchmark.
nginx_conf_head() {
    local name="$1"
    cat <<EOF
worker_processes 1;
daemon off;
pid ${RUN_DIR}/${name}.pid;
error_log ${RUN_DIR}/${name}.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    server_tokens off;
    client_body_temp_path ${RUN_DIR}/${name}-tmp/body;
    proxy_temp_path ${RUN_DIR}/${name}-tmp/proxy;
    fastcgi_temp_path ${RUN_DIR}/${name}-tmp/fastcgi;
    uwsgi_temp_path ${RUN_DIR}/${name}-tmp/uwsgi;
    scgi_temp_path ${RUN_DIR}/${name}-tmp/scgi;
    client_body_buffer_size 64k;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
EOF
}

# start_nginx NAME PORT SERVER_BLOCKS [PIN PREFIX...]: sets STARTED_NGINX_PID.
start_nginx() {
    local name="$1" port="$2" blocks="$3" pid
    shift 3
    { nginx_conf_head "${name}"; echo "${blocks}"; echo "}"; } >"${RUN_DIR}/${name}.conf"
    mkdir -p "${RUN_DIR}/${name}-tmp"
    "${NGINX}" -t -q -p "${RUN_DIR}" -e "${RUN_DIR}/${name}.log" -c "${RUN_DIR}/${name}.conf" \
        || die "nginx rejected ${RUN_DIR}/${name}.conf"
    "$@" "${NGINX}" -p "${RUN_DIR}" -e "${RUN_DIR}/${name}.log" -c "${RUN_DIR}/${name}.conf" \
        >"${RUN_DIR}/${name}.out" 2>&1 &
    pid=$!
    STARTED_PIDS+=("${pid}")
    STARTED_NGINX_PID="${pid}"
    wait_for_chat "nginx ${name}" "${pid}" "http://${HOST}:${port}" /v1/chat/completions \
        "${REQUEST_JSON}" "${RUN_DIR}/${name}.log" 10
}

# The fixed fast upstream. `return` answers before reading the request body; nginx then reads
# and discards the body itself and keeps the connection alive (checked: under wrk's POST load
# there are no socket errors and only one accepted connection per wrk connection).
start_upstream() {
    UPSTREAM_PORT="$(free_port)"
    start_nginx upstream "${UPSTREAM_PORT}" "
    server {
        listen ${HOST}:${UPSTREAM_PORT} backlog=4096;
        location = /v1/chat/completions {
            if (\$request_method != POST) { return 405; }
            default_type application/json;
            return 200 '${UPSTREAM_JSON}';
        }
        location = /anthropic/v1/messages {
            if (\$request_method != POST) { return 405; }
            default_type application/json;
            return 200 '${UPSTREAM_ANTHROPIC}';
        }
        location = ${UPSTREAM_GEMINI_PATH} {
            if (\$request_method != POST) { return 405; }
            default_type application/json;
            return 200 '${UPSTREAM_GEMINI}';
        }
        location = /embed/v1/embeddings {
            if (\$request_method != POST) { return 405; }
            default_type application/json;
            return 200 '${UPSTREAM_EMBEDDINGS}';
        }
        location = /stream/v1/chat/completions {
            if (\$request_method != POST) { return 405; }
            default_type text/event-stream;
            return 200 '${UPSTREAM_SSE}';
        }
        location / { return 404; }
    }" "${CLIENT_PIN[@]}"
    note "upstream: nginx on ${HOST}:${UPSTREAM_PORT} (fixed chat.completion; SSE under /stream)"
}

# The reference: nginx doing a gateway's forwarding job, HTTP/1.1 with pooled upstream connections.
start_nginx_proxy() {
    PROXY_PORT="$(free_port)"
    start_nginx proxy "${PROXY_PORT}" "
    upstream bench_upstream {
        server ${HOST}:${UPSTREAM_PORT};
        keepalive $((CONNECTIONS > 64 ? CONNECTIONS : 64));
        keepalive_requests 100000000;
        keepalive_timeout 300s;
    }
    server {
        listen ${HOST}:${PROXY_PORT} backlog=4096;
        location / {
            proxy_pass http://bench_upstream;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_max_temp_file_size 0;
        }
    }" "${SERVER_PIN[@]}"
    PROXY_PID="${STARTED_NGINX_PID}"
    note "nginx proxy_pass on ${HOST}:${PROXY_PORT}"
}
