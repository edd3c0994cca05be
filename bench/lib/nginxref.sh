# bench/lib/nginxref.sh — nginx proxy_pass as the reference proxy beside the gateway in
# bench/routing: the same forwarding job (HTTP/1.1, kept-alive upstream connections) on the same
# core, probed at the same rate, so a tail that any proxy on that core shows is told apart from
# the gateway's own. Private configuration and logs in the run directory; one worker, no daemon.
# Sourced (not run on its own).
# shellcheck shell=bash

# start_nginx_reference DIR UPSTREAM_HOST:PORT [PIN PREFIX...]: starts nginx forwarding every path
# to the upstream and prints its URL (http://127.0.0.1:PORT) once it answers; its pid is in
# DIR/nginxref.pid. Returns non-zero when nginx is missing or does not come up in 5 s.
start_nginx_reference() {
  local dir="$1/nginxref" upstream="$2" port nginx
  shift 2
  nginx="$(command -v nginx || echo /usr/sbin/nginx)"
  [ -x "$nginx" ] || { echo "nginx is not installed (Debian: nginx-light)" >&2; return 1; }
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  mkdir -p "$dir/tmp"
  cat > "$dir/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 100000000;
  upstream provider { server $upstream; keepalive 64; }
  server {
    listen 127.0.0.1:$port;
    location / {
      proxy_pass http://provider;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
    }
  }
}
CONF
  "$@" "$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" > "$dir/out.log" 2>&1 &
  echo $! > "$dir/nginxref.pid"
  for _ in $(seq 1 50); do
    curl -s -o /dev/null --noproxy '*' "http://127.0.0.1:$port/" && { echo "http://127.0.0.1:$port"; return 0; }
    sleep 0.1
  done
  echo "the reference nginx did not come up: $(cat "$dir/error.log" "$dir/out.log" 2>/dev/null)" >&2
  return 1
}
