# bench/lib/report.sh — the table and the ratio lines bench/run prints at the end.
# Sourced by bench/run (not run on its own): uses the options, targets.sh and measure.sh's RESULT.
# shellcheck shell=bash

ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }

declare -A CHOSEN   # CHOSEN[target] = the round reported

print_row() {
    local t="$1" r="${CHOSEN[$1]}" sockets per_cpu
    local k="${t}.${r}"
    sockets=$((RESULT[${k}.connect] + RESULT[${k}.read] + RESULT[${k}.write] + RESULT[${k}.timeout]))
    per_cpu="$(awk -v rps="${RESULT[${k}.rps]}" -v cpu="${RESULT[${k}.cpu]}" \
        'BEGIN { if (cpu > 0) printf "%.0f", rps * 100 / cpu; else print "?" }')"
    printf '%-30s %9s %9s %9s %8s %7s %6s%% %10s\n' "${LABEL[${t}]}" "${RESULT[${k}.rps]}" \
        "$(ms "${RESULT[${k}.p50_us]}")" "$(ms "${RESULT[${k}.p99_us]}")" \
        "${RESULT[${k}.status]}" "${sockets}" "${RESULT[${k}.cpu]}" "${per_cpu}"
}

# ratio_line GATEWAY_TARGET NGINX_TARGET WHAT
ratio_line() {
    local g="$1.${CHOSEN[$1]}" n="$2.${CHOSEN[$2]}" ratio cpu_ratio verdict
    ratio="$(awk -v a="${RESULT[${g}.rps]}" -v b="${RESULT[${n}.rps]}" 'BEGIN { printf "%.2f", a / b }')"
    cpu_ratio="$(awk -v a="${RESULT[${g}.rps]}" -v ac="${RESULT[${g}.cpu]}" -v b="${RESULT[${n}.rps]}" \
        -v bc="${RESULT[${n}.cpu]}" 'BEGIN { if (ac > 0 && bc > 0) printf "%.2f", (a / ac) / (b / bc); else print "?" }')"
    if awk -v r="${ratio}" -v t="${TARGET_RATIO}" 'BEGIN { exit !(r >= t) }'; then
        verdict="meets the target"
    else
        verdict="BELOW the target"
    fi
    echo "ratio switchyard/nginx req/s, $3: ${ratio} — target ≥ ${TARGET_RATIO} of nginx proxy_pass: ${verdict}" \
        "(per CPU-second: ${cpu_ratio})"
}

# route_line TARGET TEXT MIN: a route's req/CPU-s beside the OpenAI path's (and the target share, if any).
route_line() {
    local r="$1.${CHOSEN[$1]}" o="switchyard.${CHOSEN[switchyard]}" share verdict=""
    share="$(awk -v a="${RESULT[${r}.rps]}" -v ac="${RESULT[${r}.cpu]}" -v b="${RESULT[${o}.rps]}" \
        -v bc="${RESULT[${o}.cpu]}" 'BEGIN { if (ac > 0 && bc > 0) printf "%.2f", (a / ac) / (b / bc); else print "?" }')"
    if [[ -n "$3" ]]; then
        if awk -v r="${share}" -v t="$3" 'BEGIN { exit !(r >= t) }'; then verdict=" — target ≥ $3: meets the target"
        else verdict=" — target ≥ $3: BELOW the target"; fi
    fi
    echo "$2 / OpenAI path, req/CPU-s: ${share}${verdict}"
}

# The desktop app against the headless gateway.
dashboard_line() {
    local g="switchyard.${CHOSEN[switchyard]}" a="switchyard-app.${CHOSEN[switchyard-app]}" ratio verdict
    ratio="$(awk -v a="${RESULT[${a}.rps]}" -v b="${RESULT[${g}.rps]}" 'BEGIN { printf "%.2f", a / b }')"
    if awk -v r="${ratio}" -v t="${DASHBOARD_RATIO}" 'BEGIN { exit !(r >= t) }'; then
        verdict="meets the target"
    else
        verdict="BELOW the target"
    fi
    echo "ratio desktop app (dashboard open)/headless gateway req/s: ${ratio} — target ≥ ${DASHBOARD_RATIO}: ${verdict}"
}

# Two instances on one port against the single instance.
reuse_line() {
    local g="switchyard.${CHOSEN[switchyard]}" p="switchyard-pair.${CHOSEN[switchyard-pair]}" ratio
    ratio="$(awk -v a="${RESULT[${p}.rps]}" -v b="${RESULT[${g}.rps]}" 'BEGIN { printf "%.2f", a / b }')"
    echo "ratio two instances on one port (SO_REUSEPORT)/one instance req/s: ${ratio}" \
        "(the pair's proxy CPU is the sum of both instances, in % of one core)"
    if ((SHARED)); then
        local s="switchyard-shared.${CHOSEN[switchyard-shared]}"
        ratio="$(awk -v a="${RESULT[${p}.rps]}" -v b="${RESULT[${s}.rps]}" 'BEGIN { printf "%.2f", a / b }')"
        echo "ratio two instances on the shared store/one instance on the shared store req/s: ${ratio}"
    fi
}

report() {
    local t starved=()
    echo
    echo "Switchyard benchmark — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average before: ${LOAD_BEFORE}"
    echo "CPU placement: ${PLACEMENT}"
    echo "POST /v1/chat/completions through a proxy to a fixed nginx upstream; ${DURATION} s per target," \
        "${CONNECTIONS} connections, ${THREADS} wrk threads, ${WARMUP} s warm-up, median of ${ROUNDS} round(s)"
    echo
    printf '%-30s %9s %9s %9s %8s %7s %7s %10s\n' target 'req/s' p50 p99 'non-2xx' 'socket' 'proxy' 'req/CPU-s'
    printf '%-30s %9s %9s %9s %8s %7s %7s %10s\n' '' '' '' '' '' 'errors' 'CPU' ''
    for t in "${TARGETS[@]}"; do
        CHOSEN[${t}]="$(median_round "${t}")"
        print_row "${t}"
        ((RESULT[${t}.${CHOSEN[${t}]}.cpu] >= BUSY_CPU)) || starved+=("${LABEL[${t}]}")
    done
    echo
    if [[ "${ONLY}" == both ]]; then
        ratio_line switchyard nginx "non-streaming"
        ((STREAM)) && ratio_line switchyard-stream nginx-stream "streaming"
    fi
    if ((DASHBOARD)); then dashboard_line; fi
    if ((EMBEDDINGS)); then
        [[ "${ONLY}" == both ]] && ratio_line switchyard-embeddings nginx-embeddings "embeddings route"
        [[ "${ONLY}" != nginx ]] && route_line switchyard-embeddings "Embeddings route" ""
    fi
    if ((REUSE)); then reuse_line; fi
    if ((FORMATS)); then
        [[ "${ONLY}" == both ]] && ratio_line switchyard-gemini-same nginx-gemini "Gemini route, same format"
        if [[ "${ONLY}" != nginx ]]; then
            route_line switchyard-responses "Responses client → openai channel" ""
            route_line switchyard-gemini "Gemini client → openai channel" ""
            route_line switchyard-gemini-same "Gemini same-format" ""
            echo "note: the Responses route has no same-format target: openai channels serve it through" \
                "Chat Completions, by design (docs/formats-responses.md)"
        fi
    fi
    if ((ANTHROPIC)); then
        [[ "${ONLY}" == both ]] && ratio_line switchyard-anthropic nginx-anthropic "Anthropic route, same format"
        [[ "${ONLY}" != nginx ]] && route_line switchyard-anthropic "Anthropic same-format" 0.90
        [[ "${ONLY}" != nginx ]] && route_line switchyard-anthropic-x "Anthropic client → openai channel" ""
        [[ "${ONLY}" != nginx ]] && route_line switchyard-openai-x "OpenAI client → anthropic channel" ""
    fi
    if [[ "${ONLY}" != nginx ]]; then
        echo "switchyard-gateway memory: peak RSS (VmHWM) ${GATEWAY_HWM} MiB; RSS before load ${GATEWAY_IDLE_RSS} MiB"
    fi
    if ((DASHBOARD)); then echo "switchyard desktop app memory: peak RSS (VmHWM) ${APP_HWM} MiB"; fi
    if ((${#starved[@]})); then
        local list
        printf -v list '%s; ' "${starved[@]}"
        echo "note: below ${BUSY_CPU}% of its core: ${list%; }. Other work on the machine (or the client" \
            "core) was the limit, so req/s understates these proxies; req/CPU-s is steadier."
    fi
}
