# bench/lib/targets.sh — what the clients send, and the measured targets: name → label, URL,
# path, body and the pids of the server(s) behind it.
# Sourced by bench/run (not run on its own): uses the options.
# shellcheck shell=bash

# What the clients send (the probe before loading and every wrk request).
readonly REQUEST_JSON='{"model":"bench/model","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}'
readonly REQUEST_ANTHROPIC='{"model":"bench/anthropic","max_tokens":16,"messages":[{"role":"user","content":"Say hello."}]}'
readonly REQUEST_ANTHROPIC_TO_OPENAI='{"model":"bench/model","max_tokens":16,"messages":[{"role":"user","content":"Say hello."}]}'
# The OpenAI Responses and Gemini ingress routes, both served by the openai-format channel, and
# the Gemini route on the gemini-format channel (--formats). Responses has no same-format
# channel: openai channels serve it through Chat Completions (docs/formats-responses.md).
readonly REQUEST_RESPONSES='{"model":"bench/model","input":"Say hello.","max_output_tokens":16}'
readonly GEMINI_PATH='/v1beta/models/bench/model:generateContent'
readonly GEMINI_SAME_PATH='/v1beta/models/bench/gemini:generateContent'
readonly REQUEST_GEMINI='{"contents":[{"role":"user","parts":[{"text":"Say hello."}]}],"generationConfig":{"maxOutputTokens":16}}'
readonly REQUEST_OPENAI_TO_ANTHROPIC='{"model":"bench/anthropic","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}'
readonly REQUEST_EMBEDDINGS='{"model":"bench/embed","input":["Say hello.","Say goodbye."],"dimensions":8}'
readonly REQUEST_SSE='{"model":"bench/stream","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16,"stream":true}'

# Targets: name → label, URL, path, body, server pid (set once the servers run).
declare -A LABEL URL PATH_OF BODY PID_OF
TARGETS=()
add_target() {
    TARGETS+=("$1")
    LABEL[$1]="$2" URL[$1]="$3" PATH_OF[$1]="$4" BODY[$1]="$5" PID_OF[$1]="$6"
}

# The targets of the route options (--formats, --anthropic, --embeddings, --stream), once the
# servers run: nginx proxy_pass beside the gateway where an nginx target exists.
add_route_targets() {
    if ((FORMATS)); then
        [[ "${ONLY}" != switchyard ]] && add_target nginx-gemini "nginx proxy_pass, gemini" \
            "http://${HOST}:${PROXY_PORT}" "${UPSTREAM_GEMINI_PATH}" "${REQUEST_GEMINI}" "${PROXY_PID}"
        if [[ "${ONLY}" != nginx ]]; then
            add_target switchyard-responses "switchyard, responses→openai" \
                "http://${HOST}:${GATEWAY_PORT}" /v1/responses "${REQUEST_RESPONSES}" "${GATEWAY_PID}"
            add_target switchyard-gemini "switchyard, gemini→openai" \
                "http://${HOST}:${GATEWAY_PORT}" "${GEMINI_PATH}" "${REQUEST_GEMINI}" "${GATEWAY_PID}"
            add_target switchyard-gemini-same "switchyard, gemini→gemini" \
                "http://${HOST}:${GATEWAY_PORT}" "${GEMINI_SAME_PATH}" "${REQUEST_GEMINI}" "${GATEWAY_PID}"
        fi
    fi
    if ((ANTHROPIC)); then
        [[ "${ONLY}" != switchyard ]] && add_target nginx-anthropic "nginx proxy_pass, anthropic" \
            "http://${HOST}:${PROXY_PORT}" /anthropic/v1/messages "${REQUEST_ANTHROPIC}" "${PROXY_PID}"
        if [[ "${ONLY}" != nginx ]]; then
            add_target switchyard-anthropic "switchyard, /v1/messages" \
                "http://${HOST}:${GATEWAY_PORT}" /v1/messages "${REQUEST_ANTHROPIC}" "${GATEWAY_PID}"
            add_target switchyard-anthropic-x "switchyard, messages→openai" \
                "http://${HOST}:${GATEWAY_PORT}" /v1/messages "${REQUEST_ANTHROPIC_TO_OPENAI}" "${GATEWAY_PID}"
            add_target switchyard-openai-x "switchyard, chat→anthropic" \
                "http://${HOST}:${GATEWAY_PORT}" /v1/chat/completions "${REQUEST_OPENAI_TO_ANTHROPIC}" "${GATEWAY_PID}"
        fi
    fi
    if ((EMBEDDINGS)); then
        [[ "${ONLY}" != switchyard ]] && add_target nginx-embeddings "nginx proxy_pass, embeddings" \
            "http://${HOST}:${PROXY_PORT}" /embed/v1/embeddings "${REQUEST_EMBEDDINGS}" "${PROXY_PID}"
        [[ "${ONLY}" != nginx ]] && add_target switchyard-embeddings "switchyard, /v1/embeddings" \
            "http://${HOST}:${GATEWAY_PORT}" /v1/embeddings "${REQUEST_EMBEDDINGS}" "${GATEWAY_PID}"
    fi
    if ((STREAM)); then
        [[ "${ONLY}" != switchyard ]] && add_target nginx-stream "nginx proxy_pass, stream" \
            "http://${HOST}:${PROXY_PORT}" /stream/v1/chat/completions "${REQUEST_SSE}" "${PROXY_PID}"
        [[ "${ONLY}" != nginx ]] && add_target switchyard-stream "switchyard-gateway, stream" \
            "http://${HOST}:${GATEWAY_PORT}" /v1/chat/completions "${REQUEST_SSE}" "${GATEWAY_PID}"
    fi
    return 0   # a skipped `[[ … ]] && add_target` is no failure of the function
}
