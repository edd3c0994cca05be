"""The plain-request probe of bench/streams, in a process of its own.

Run as `python3 plainprobe.py HOST PORT SECRET MODEL [DIRECT_PORT DIRECT_PATH DIRECT_MODEL
[REFERENCE_PORT]]`; each line "SECONDS" on stdin starts one probe of that length, answered by one
JSON line on stdout: {"latencies_ms": [...], "started_s": [...], "failures": N, "direct_ms": [...],
"direct_failures": N, "reference_ms": [...], "reference_failures": N} (started_s: each answered
request's start, time.monotonic(), beside its latency). With a direct target, each round sends the
same request straight to the provider (its path and upstream model) right after the one through
the gateway: the same moment's latency without the gateway, so the machine's share of a slow round
shows beside the gateway's. With a reference port, the round sends that request through the
reference proxy there too (bench/lib/proxyref.py: nginx on the gateway's core), between the two.
An empty line or end of input ends it.

Why a process of its own: in the stream clients' asyncio loop the probe's latency included the
time the loop took to come back to it between thousands of stream reads (the client's tail, not
the gateway's). Here a blocking socket waits in the kernel and nothing else runs in the process;
bench/streams starts it before it lowers its own priority, so the probe keeps the normal one
while the stream readers yield the CPU to it.
"""
import json
import socket
import sys
import time


def request_bytes(host, secret, model, path="/v1/chat/completions"):
    body = json.dumps({"model": model, "stream": False, "max_tokens": 1000,
                       "messages": [{"role": "user", "content": "stream please"}]}).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {secret}\r\n"
            f"Connection: close\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode() + body


def one_request(host, port, request):
    """One plain request on a fresh connection; True when it answered 200."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(request)
        data = b""
        while True:  # Connection: close, so the answer ends with the connection
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return b" 200 " in data.split(b"\r\n", 1)[0]


def timed(host, port, request, latencies, starts=None):
    """One request; its latency (and to `starts` its start) appended when it answered 200. False
    when it failed."""
    start = time.monotonic()
    try:
        if one_request(host, port, request):
            latencies.append((time.monotonic() - start) * 1000)
            if starts is not None:
                starts.append(start)
            return True
    except OSError:
        pass
    return False


def probe(host, port, request, seconds, direct=None, reference_port=None, interval=0.05):
    """Plain requests one after another, one round every `interval` s: latencies in ms and
    failures, through the gateway, through the reference proxy (`reference_port`, with the
    direct request) and (with `direct`, a (port, request) pair) straight."""
    result = {"latencies_ms": [], "started_s": [], "failures": 0, "direct_ms": [], "direct_failures": 0,
              "reference_ms": [], "reference_failures": 0}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        start = time.monotonic()
        if not timed(host, port, request, result["latencies_ms"], result["started_s"]):
            result["failures"] += 1
        if direct and reference_port and not timed(host, reference_port, direct[1], result["reference_ms"]):
            result["reference_failures"] += 1
        if direct and not timed(host, direct[0], direct[1], result["direct_ms"]):
            result["direct_failures"] += 1
        time.sleep(max(0.0, interval - (time.monotonic() - start)))
    return result


def main():
    host, port, secret, model = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    request = request_bytes(host, secret, model)
    direct = None
    if len(sys.argv) > 7:
        direct = (int(sys.argv[5]), request_bytes(host, secret, sys.argv[7], sys.argv[6]))
    reference_port = int(sys.argv[8]) if len(sys.argv) > 8 else None
    for line in sys.stdin:
        if not line.strip():
            break
        print(json.dumps(probe(host, port, request, float(line), direct, reference_port)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
