"""The plain-request probe of bench/streams, in a process of its own.

Run as `python3 plainprobe.py HOST PORT SECRET MODEL`; each line "SECONDS" on stdin starts one
probe of that length, answered by one JSON line on stdout: {"latencies_ms": [...], "failures": N}.
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


def request_bytes(host, secret, model):
    body = json.dumps({"model": model, "stream": False, "max_tokens": 1000,
                       "messages": [{"role": "user", "content": "stream please"}]}).encode()
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {secret}\r\n"
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


def probe(host, port, request, seconds, interval=0.05):
    """Plain requests one after another, one every `interval` s; latencies in ms and failures."""
    latencies, failures = [], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        start = time.monotonic()
        try:
            if one_request(host, port, request):
                latencies.append((time.monotonic() - start) * 1000)
            else:
                failures += 1
        except OSError:
            failures += 1
        time.sleep(max(0.0, interval - (time.monotonic() - start)))
    return latencies, failures


def main():
    host, port, secret, model = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    request = request_bytes(host, secret, model)
    for line in sys.stdin:
        if not line.strip():
            break
        latencies, failures = probe(host, port, request, float(line))
        print(json.dumps({"latencies_ms": latencies, "failures": failures}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
