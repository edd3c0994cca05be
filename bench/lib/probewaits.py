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
import time

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
        # Back once perf has written its file and had a moment to enable its events on every
        # core (about 0.2 s here): the probe's first requests would otherwise go unrecorded.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and self.process.poll() is None:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                break
            time.sleep(0.02)
        time.sleep(0.3)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        self.process.wait()


def _inside(intervals, begin, end):
    """The ms of (start, stop) intervals that fall inside (begin, end)."""
    return sum(max(0.0, min(stop, end) - max(go, begin)) for go, stop in intervals if stop > begin and go < end)


def request_waits(data, gateway_pid, started_s, latencies_ms, path=None):
    """For each request (its start in seconds, its latency in ms): (latency, the gateway thread's
    wait inside it in ms, {what ran on its core meanwhile: ms}, the ms it ran inside it, {the
    request's other hops: ms they waited for a core inside it}), as recorded in `data`; None for
    a request the record does not cover from start to end (perf starts a little after the hold).
    The other hops are the processes of `path` ({name: pid}: the probe, its provider), the
    gateway's other threads (a charged answer waits for the storage thread's commit) and the
    kernel's softirq threads (ksoftirqd/N, which deliver loopback packets when the sender's core
    defers that work): a slow request with neither much wait nor much run had the gateway's
    thread asleep, waiting for one of them."""
    segments, ends, waits, info, _ = read_timehist(data)
    own = sorted(waits.get(gateway_pid, []), key=lambda w: w[1])
    runs = [(start, end) for slices in segments.values() for start, end, tid, _, _ in slices if tid == gateway_pid]
    first = max((slices[0][0] for slices in segments.values()), default=0.0)
    last = min((slices[-1][1] for slices in segments.values()), default=0.0)
    hops = collections.defaultdict(list)   # name -> [(ready, ran)]
    names = {pid: name for name, pid in (path or {}).items()}
    for tid, thread_waits in waits.items():
        pid, name = info.get(tid, (tid, ""))
        own_thread = pid == gateway_pid and tid != gateway_pid   # the storage threads
        hop = names.get(pid) or (f"gateway: {name}" if own_thread else None) \
            or (name if name.startswith("ksoftirqd/") else None)
        if hop:
            hops[hop].extend((ready, ran) for _, ready, ran in thread_waits)
    result = []
    for start_s, latency in zip(started_s, latencies_ms):
        begin, end = start_s * 1e3, start_s * 1e3 + latency
        if begin < first or end > last:
            result.append(None)
            continue
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
        others = {hop: ms for hop, intervals in hops.items() if (ms := _inside(intervals, begin, end)) > 0.05}
        result.append((latency, waited, dict(behind), _inside(runs, begin, end), others))
    return result
