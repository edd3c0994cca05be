"""bench/streams --sched: each probe request against what the gateway's thread did meanwhile.

A `perf sched record` of every core runs through a hold, on the same clock as the probe's start
times (CLOCK_MONOTONIC). For each request through the gateway the report sums the time the
gateway's main thread spent waiting for its core inside the request (runnable: woken or
preempted, not running) and names what ran on that core during those waits. The latency less
that wait is what the gateway itself took: the machine's other work on a shared core (processes
not ours, kernel threads) is out of it. Needs perf and the right to trace the scheduler (root, or
kernel.perf_event_paranoid at -1).
"""
import collections
import os
import shutil
import signal
import subprocess

from schedshare import overlapping, read_timehist


def available():
    """Whether perf may record the scheduler here; a short trial record."""
    if not shutil.which("perf"):
        return False
    trial = subprocess.run(["perf", "sched", "record", "-a", "-o", os.devnull, "--", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return trial.returncode == 0


class Recorder:
    """`perf sched record` of every core into `path` until stop()."""
    def __init__(self, path):
        self.path = path
        self.process = subprocess.Popen(["perf", "sched", "record", "-k", "CLOCK_MONOTONIC", "-a", "-o", path],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        self.process.wait()


def request_waits(data, gateway_pid, started_s, latencies_ms):
    """For each request (its start in seconds, its latency in ms): (latency, the gateway thread's
    wait inside it in ms, {what ran on its core meanwhile: ms}, the ms it ran inside it), as
    recorded in `data`. A slow request with neither much wait nor much run had the gateway's
    thread asleep: waiting for the provider or the client."""
    segments, ends, waits, info, _ = read_timehist(data)
    own = sorted(waits.get(gateway_pid, []), key=lambda w: w[1])
    runs = [(start, end) for slices in segments.values() for start, end, tid, _, _ in slices if tid == gateway_pid]
    result = []
    for start_s, latency in zip(started_s, latencies_ms):
        begin, end = start_s * 1e3, start_s * 1e3 + latency
        waited, behind = 0.0, collections.defaultdict(float)
        for cpu, ready, ran in own:
            if ran <= begin or ready >= end:
                continue
            lo, hi = max(ready, begin), min(ran, end)
            waited += hi - lo
            for seg_start, seg_end, seg_tid, seg_pid, seg_name in overlapping(segments, ends, cpu, lo, hi):
                part = min(seg_end, hi) - max(seg_start, lo)
                if part > 0 and seg_tid != gateway_pid:
                    who = f"gateway: {seg_name}" if seg_pid == gateway_pid else seg_name
                    behind[who] += part
        ran = sum(max(0.0, min(stop, end) - max(go, begin)) for go, stop in runs if stop > begin and go < end)
        result.append((latency, waited, dict(behind), ran))
    return result
