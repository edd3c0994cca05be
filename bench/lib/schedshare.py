#!/usr/bin/env python3
"""bench/lib/schedshare.py PERF_DATA GATEWAY_PID — who held the cores the measured threads wanted.

Reads `perf sched timehist` of a `perf sched record` (all cores) taken during one run and prints,
for each thread of the gateway's process and each thread of the simulator and the probe
(switchyard-sim, switchyard-late...): its CPU time and slices, how often and how long it waited
between becoming runnable (woken or preempted) and running, and what ran on its core during those
waits: the gateway's own threads by name and tid, the measuring processes, other processes
together. Times in ms. Used by bench/routing --sched; its reader also by bench/lib/probewaits.py.
"""
import bisect
import collections
import re
import subprocess
import sys

LINE = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                  r"(?:\s+(\S+))?\s*$")
MEASURING = ("switchyard-sim", "switchyard-lat")


def read_timehist(data):
    """The slices and waits of a `perf sched record` (all cores), from `perf sched timehist`, in ms:
    segments per core [(start, end, tid, pid, name)] sorted by start, with their ends for bisect;
    waits per thread [(cpu, ready, start)] (runnable, woken or preempted, until it ran); each
    thread's (pid, name); and its CPU ms, slices and longest slice."""
    text = subprocess.run(["perf", "sched", "timehist", "--state", "-i", data],
                          capture_output=True, text=True, check=True).stdout
    preempted = set()                          # tids whose last slice ended runnable (state R)
    segments = collections.defaultdict(list)   # cpu -> [(start, end, tid, pid, name)]
    waits = collections.defaultdict(list)      # tid -> [(cpu, ready, start)]
    info = {}                                  # tid -> (pid, name)
    used = collections.defaultdict(lambda: [0.0, 0, 0.0])   # CPU ms, slices, longest slice
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        end = float(m.group(1)) * 1e3
        cpu = int(m.group(2))
        name, tid = m.group(3).strip(), int(m.group(4))
        pid = int(m.group(5)) if m.group(5) else tid
        if tid == 0:
            continue   # idle
        off_cpu, sch_delay, run = float(m.group(6)), float(m.group(7)), float(m.group(8))
        start = end - run
        segments[cpu].append((start, end, tid, pid, name))
        info[tid] = (pid, name)
        used[tid][0] += run
        used[tid][1] += 1
        used[tid][2] = max(used[tid][2], run)
        # Preempted (its last slice ended runnable): the whole time off the CPU was a wait,
        # reported as "wait time" with no scheduling delay. Woken: the delay after the wakeup.
        waited = off_cpu + sch_delay if tid in preempted else sch_delay
        if waited > 0:
            waits[tid].append((cpu, start - waited, start))
        if (m.group(9) or "").startswith("R"):
            preempted.add(tid)
        else:
            preempted.discard(tid)
    ends = {}
    for cpu in segments:
        segments[cpu].sort()
        ends[cpu] = [seg[1] for seg in segments[cpu]]   # slices of one core do not overlap
    return segments, ends, waits, info, used


def overlapping(segments, ends, cpu, ready, start):
    """The slices of `cpu` that overlap (ready, start)."""
    i = bisect.bisect_right(ends[cpu], ready)
    while i < len(segments[cpu]) and segments[cpu][i][0] < start:
        yield segments[cpu][i]
        i += 1


def main():
    data, gateway_pid = sys.argv[1], int(sys.argv[2])
    segments, ends, waits, info, used = read_timehist(data)

    def category(tid, pid, name):
        if pid == gateway_pid:
            return "gateway thread" if tid == gateway_pid else f"gateway: {name} ({tid})"
        if name.startswith(MEASURING):
            return f"{name} ({tid})"
        return "other processes"

    watched = [tid for tid, (pid, name) in info.items() if pid == gateway_pid or name.startswith(MEASURING)]
    watched.sort(key=lambda tid: (info[tid][0] != gateway_pid, tid != gateway_pid, -used[tid][0]))
    for tid in watched:
        pid, name = info[tid]
        own = waits[tid]
        total = sum(s - r for _, r, s in own)
        over = [(c, r, s) for c, r, s in own if s - r > 1.0]
        held = collections.defaultdict(float)
        for cpu, ready, start in over:
            for seg_start, seg_end, seg_tid, seg_pid, seg_name in overlapping(segments, ends, cpu, ready, start):
                overlap = min(seg_end, start) - max(seg_start, ready)
                if overlap > 0 and seg_tid != tid:
                    held[category(seg_tid, seg_pid, seg_name)] += overlap
        longest = max((s - r for _, r, s in own), default=0.0)
        # Each wait's part spent behind the gateway's own other threads.
        behind_own = []
        for cpu, ready, start in own:
            part = 0.0
            for seg_start, seg_end, seg_tid, seg_pid, _ in overlapping(segments, ends, cpu, ready, start):
                if seg_pid == gateway_pid and seg_tid != tid:
                    part += min(seg_end, start) - max(seg_start, ready)
            if part > 0:
                behind_own.append(part)
        print(f"{category(tid, pid, name)} [{name} {tid}]: CPU {used[tid][0]:.1f} ms in {used[tid][1]} slices "
              f"(longest {used[tid][2]:.2f} ms); "
              f"waited {total:.1f} ms over {len(own)} times, {len(over)} waits > 1 ms ({sum(s - r for _, r, s in over):.1f} ms), "
              f"longest {longest:.2f} ms")
        if pid == gateway_pid:
            print(f"    behind the gateway's other threads: {len(behind_own)} waits, {sum(behind_own):.1f} ms in all, "
                  f"{sum(1 for b in behind_own if b > 0.1)} of them > 0.1 ms, {sum(1 for b in behind_own if b > 0.5)} > 0.5 ms, "
                  f"longest {max(behind_own, default=0.0):.2f} ms")
        if held:
            print("    during the waits > 1 ms the core ran: "
                  + ", ".join(f"{k} {v:.1f} ms" for k, v in sorted(held.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
