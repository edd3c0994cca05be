"""The reference beside the gateway in bench/streams: nginx proxying plain requests on the same core.

A plain HTTP reverse proxy (`proxy_pass`, kept-alive connections to the provider) in front of the
probe's fast provider, pinned to the gateway's core. The probe sends each round's request through
it too: its latency is what any proxy on that core took at that moment, without the gateway's
10,000 streams to relay. On a shared virtual machine the machine's other work on that core
(processes not ours, kernel threads: bench/streams' "other work on core 0") delays both, so the
gateway's latency beside this one's is nearer the gateway's own part of the tail.

    process, port = start(run_dir, fast_sim_port, core=0)
    ... http://127.0.0.1:{port}/fast/v1/chat/completions ...

From a shell (bench/routing, the same reference beside the gateway at 1k req/s):

    python3 bench/lib/proxyref.py RUN_DIR UPSTREAM_PORT [--core N] [--keepalive N]

starts it, prints "PORT PID" once it answers and exits, leaving nginx running.
"""
import argparse
import os
import sys

import nginxproc
from nginxproc import HOST


def start(run_dir, upstream_port, core=None, keepalive=16):
    """nginx on its own port in run_dir/proxyref, forwarding to upstream_port with up to
    `keepalive` idle connections kept; pinned to `core` (a CPU number) when given. Returns
    (process, port)."""
    folder = os.path.join(run_dir, "proxyref")
    os.makedirs(folder, exist_ok=True)
    port = nginxproc.free_port()
    text = nginxproc.config(folder, 1024, f"""  upstream provider {{ server {HOST}:{upstream_port}; keepalive {keepalive}; }}
  server {{
    listen {HOST}:{port};
    location / {{
      proxy_pass http://provider;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
    }}
  }}
""")
    pin = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    return nginxproc.start(folder, text, port, "the reference proxy", preexec_fn=pin), port


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="start the reference nginx and leave it running")
    parser.add_argument("run_dir")
    parser.add_argument("upstream_port", type=int)
    parser.add_argument("--core", type=int)
    parser.add_argument("--keepalive", type=int, default=16)
    args = parser.parse_args()
    try:
        started, listening = start(args.run_dir, args.upstream_port, args.core, args.keepalive)
    except RuntimeError as error:
        sys.exit(str(error))
    print(listening, started.pid)
