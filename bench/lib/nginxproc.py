"""One nginx process for a benchmark: found, configured in a folder of its own, started, waited for.

Debian's nginx-light (scripts/packages.txt), run as the invoking user with `master_process off`
and one worker, so it reads keys and writes logs in the run directory. Used by h2front.py (the
HTTPS + HTTP/2 front of a simulated provider) and proxyref.py (the reference proxy beside the
gateway).
"""
import os
import shutil
import socket
import subprocess
import time

HOST = "127.0.0.1"


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def binary():
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"   # /usr/sbin is often not in a user's PATH
    if not os.path.exists(nginx):
        raise RuntimeError("nginx is not installed (Debian package nginx-light, in scripts/packages.txt)")
    return nginx


def config(folder, connections, http_block):
    """A whole nginx.conf: one process, its files in `folder`, and `http_block` inside http {}."""
    return f"""daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile {connections + 100};
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections {connections}; multi_accept on; }}
http {{
  access_log off;
  client_body_temp_path {folder}/client_body;
  proxy_temp_path {folder}/proxy;
  fastcgi_temp_path {folder}/fastcgi;
  uwsgi_temp_path {folder}/uwsgi;
  scgi_temp_path {folder}/scgi;
  keepalive_requests 1000000;
{http_block}}}
"""


def start(folder, text, port, what, limit_s=15, preexec_fn=None):
    """Writes `text` as folder/nginx.conf, starts nginx on it and waits until `port` accepts.
    Raises RuntimeError with the end of its error log when it does not start."""
    path = os.path.join(folder, "nginx.conf")
    with open(path, "w") as f:
        f.write(text)
    process = subprocess.Popen([binary(), "-p", folder, "-e", os.path.join(folder, "error.log"), "-c", path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, preexec_fn=preexec_fn)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with socket.create_connection((HOST, port), timeout=0.3):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    with open(os.path.join(folder, "error.log")) as f:
        raise RuntimeError(f"{what} did not start: {f.read()[-2000:]}")
