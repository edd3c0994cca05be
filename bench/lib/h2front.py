"""An HTTPS + HTTP/2 front for a benchmark's simulated provider, as real providers serve.

nginx (Debian's nginx-light) with a throw-away CA and server certificate made with the openssl
tool, listening on 127.0.0.1 with TLS and HTTP/2 and proxying every request to the simulator over
HTTP/1.1, unbuffered (streams pass through as they come). The gateway's channel then points at
https://127.0.0.1:PORT/... with `tls: {ca_file: CA}` and multiplexes its requests over a few
HTTP/2 connections, as it does with a real provider; nginx holds one connection per request to the
simulator. One nginx process (`master_process off`): it runs as the invoking user and reads the
key in the run directory.

    front = start(run_dir, upstream_port, connections=20000)
    ... base_url = f"https://127.0.0.1:{front.port}/slow/v1", ca_file = front.ca_file ...
    front.process.terminate()
"""
import os
import subprocess
from dataclasses import dataclass

import nginxproc
from nginxproc import HOST


@dataclass
class Front:
    process: subprocess.Popen
    port: int
    ca_file: str


def _certificates(folder):
    """A CA and a server certificate for 127.0.0.1 signed by it; returns (ca, cert, key)."""
    ca_key, ca = os.path.join(folder, "ca.key"), os.path.join(folder, "ca.pem")
    key, csr, cert = (os.path.join(folder, name) for name in ("server.key", "server.csr", "server.pem"))
    ext = os.path.join(folder, "server.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
                    "-days", "2", "-subj", "/CN=switchyard bench CA"], **quiet)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", "/CN=127.0.0.1"], **quiet)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
                    "-out", cert, "-days", "2", "-extfile", ext], **quiet)
    return ca, cert, key


def start(run_dir, upstream_port, connections=20000, max_streams=128, limit_s=15, niceness=0):
    folder = os.path.join(run_dir, "h2front")
    os.makedirs(folder, exist_ok=True)
    nginxproc.binary()  # before the certificates: says at once when nginx is missing
    ca, cert, key = _certificates(folder)
    port = nginxproc.free_port()
    text = nginxproc.config(folder, connections, f"""  upstream sim {{ server {HOST}:{upstream_port}; keepalive 256; }}
  server {{
    listen {HOST}:{port} ssl http2;
    http2_max_concurrent_streams {max_streams};
    ssl_certificate {cert};
    ssl_certificate_key {key};
    location / {{
      proxy_pass http://sim;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 3600s;
    }}
  }}
""")
    process = nginxproc.start(folder, text, port, "the HTTPS/HTTP2 front", limit_s,
                              (lambda: os.nice(niceness)) if niceness else None)
    return Front(process, port, ca)
