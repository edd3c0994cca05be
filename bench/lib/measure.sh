# bench/lib/measure.sh — one wrk load against a target, the proxy's CPU and memory over it, and
# the median round.
# Sourced by bench/run (not run on its own): uses the options, RUN_DIR, the pinning and targets.sh.
# shellcheck shell=bash

# CPU time in clock ticks used so far by processes (all threads; $1: one pid or several, space
# separated) and their direct children.
cpu_ticks() {
    local total=0 p root
    for root in $1; do for p in "${root}" $(children_of "${root}"); do
        # /proc/PID/stat fields 14 and 15 (utime, stime), counted after the "(name)" field
        total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/${p}/stat" 2>/dev/null || echo 0)))
    done; done
    echo "${total}"
}

# A field of /proc/PID/status (VmRSS, VmHWM) in MiB.
mem_mib() { awk -v f="$1:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$2/status" 2>/dev/null || echo "?"; }

declare -A RESULT   # RESULT[<target>.<round>.<field>]: fields of chat.lua's BENCH line, plus cpu

# run_wrk TARGET ROUND: warm-up, then the measured load; the proxy's CPU use is measured over
# the same window.
run_wrk() {
    local target="$1" round="$2" report="${RUN_DIR}/wrk-$1-$2.txt" line kv ticks t0 t1 used
    local -a wrk_cmd=(env BENCH_PATH="${PATH_OF[${target}]}" BENCH_BODY="${BODY[${target}]}"
        "${CLIENT_PIN[@]}" wrk -t "${THREADS}" -c "${CONNECTIONS}" --timeout 5s -s "${WRK_SCRIPT}")
    if ((WARMUP > 0)); then
        in_background $((WARMUP + 30)) "${wrk_cmd[@]}" -d "${WARMUP}s" "${URL[${target}]}" >/dev/null 2>&1 || true
    fi
    note "round ${round}/${ROUNDS}: ${LABEL[${target}]}"
    ticks="$(cpu_ticks "${PID_OF[${target}]}")"
    t0="$(date +%s.%N)"
    in_background $((DURATION + 30)) "${wrk_cmd[@]}" -d "${DURATION}s" --latency "${URL[${target}]}" >"${report}" 2>&1 \
        || { cat "${report}" >&2; die "wrk failed against ${LABEL[${target}]}"; }
    t1="$(date +%s.%N)"
    used=$(($(cpu_ticks "${PID_OF[${target}]}") - ticks))
    local p
    for p in ${PID_OF[${target}]}; do
        kill -0 "${p}" 2>/dev/null || die "${LABEL[${target}]} died under load (logs: --keep)"
    done
    line="$(grep '^BENCH ' "${report}" | tail -n 1)"
    [[ -n "${line}" ]] || { cat "${report}" >&2; die "no BENCH line in wrk's report for ${LABEL[${target}]}"; }
    for kv in ${line#BENCH }; do RESULT["${target}.${round}.${kv%%=*}"]="${kv#*=}"; done
    RESULT["${target}.${round}.cpu"]="$(awk -v d="${used}" -v hz="$(getconf CLK_TCK)" -v t0="${t0}" -v t1="${t1}" \
        'BEGIN { printf "%.0f", 100 * d / hz / (t1 - t0) }')"
}

# The round with the median req/s of a target (the lower middle one for an even count).
median_round() {
    local target="$1" r
    for ((r = 1; r <= ROUNDS; r++)); do echo "${RESULT[${target}.${r}.rps]} ${r}"; done \
        | sort -n | awk -v n="${ROUNDS}" 'NR == int((n + 1) / 2) { print $2 }'
}
