-- wrk script for bench/run: every request is the same small OpenAI chat completion POST.
-- bench/run passes the path and the JSON body through the environment (BENCH_PATH, BENCH_BODY) so
-- the probe it sends before loading and the load itself are byte-for-byte the same request.
-- nginx ignores the headers and the body; the gateway needs the key and the JSON content type.
--
-- done() prints one machine-readable line that bench/run parses; wrk's own report (--latency)
-- is kept next to it for reading.

wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH") or "/v1/chat/completions"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer sk-bench"
wrk.body = os.getenv("BENCH_BODY")
   or '{"model":"bench/model","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}'

-- No response() callback: wrk stays on its fast path (no Lua call per response), and answers
-- outside 2xx/3xx are still counted in summary.errors.status.
function done(summary, latency, requests)
   local seconds = summary.duration / 1e6
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d seconds=%.3f rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
      "status=%d connect=%d read=%d write=%d timeout=%d\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      e.status, e.connect, e.read, e.write, e.timeout))
end
