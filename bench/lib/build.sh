# bench/lib/build.sh — the tools bench/run needs, and the Release build it measures.
# Sourced by bench/run (not run on its own): uses its options and RUN_DIR.
# shellcheck shell=bash

check_tools() {
    local missing=()
    NGINX="$(command -v nginx || true)"
    [[ -n "${NGINX}" ]] || { [[ -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx; } || true   # often not in a user's PATH
    [[ -n "${NGINX}" ]] || missing+=(nginx-light)
    command -v wrk >/dev/null || missing+=(wrk)
    command -v curl >/dev/null || missing+=(curl)
    if ((DASHBOARD)); then command -v Xvfb >/dev/null || missing+=(xvfb); fi
    if ((${#missing[@]})); then
        echo "bench/run: missing ${missing[*]}. On Debian/Ubuntu install with:" >&2
        echo "  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
}

build_gateway() {
    [[ "${ONLY}" == nginx ]] && return 0
    local targets=(switchyard-gateway) app=OFF configure=0
    if ((DASHBOARD)); then targets+=(switchyard); app=ON; fi
    if ((BUILD)); then
        # The desktop app only when --dashboard asks for it (it needs Qt Quick, Charts, Widgets);
        # once configured with it, the build directory keeps it.
        [[ -f "${BUILD_DIR}/build.ninja" ]] || configure=1
        if ((DASHBOARD)) && ! grep -q '^SWITCHYARD_BUILD_APP:BOOL=ON' "${BUILD_DIR}/CMakeCache.txt" 2>/dev/null; then
            configure=1
        fi
        if ((configure)); then
            note "configuring ${BUILD_DIR#"${REPO_DIR}/"} (Release, no tests, desktop app ${app})"
            cmake -S "${REPO_DIR}" -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=Release \
                -DSWITCHYARD_BUILD_TESTS=OFF -DSWITCHYARD_BUILD_APP="${app}" >"${RUN_DIR}/configure.log" 2>&1 \
                || { tail -n 30 "${RUN_DIR}/configure.log" >&2; die "cmake configure failed"; }
        fi
        # Always ask the build tool: a no-op when up to date, and never a stale binary measured.
        note "building ${targets[*]} (Release)"
        cmake --build "${BUILD_DIR}" --parallel "${JOBS}" --target "${targets[@]}" >"${RUN_DIR}/build.log" 2>&1 \
            || { tail -n 30 "${RUN_DIR}/build.log" >&2; die "build failed (--no-build measures the existing binary)"; }
    fi
    [[ -x "${GATEWAY_BIN}" ]] || die "${GATEWAY_BIN#"${REPO_DIR}/"} not found (drop --no-build to build it)"
    if ((DASHBOARD)); then
        [[ -x "${APP_BIN}" ]] || die "${APP_BIN#"${REPO_DIR}/"} not found (drop --no-build to build it)"
    fi
}
