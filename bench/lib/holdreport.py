"""One hold of bench/streams: what the processes and the machine did during it, and its report.

`Hold(watched, pinned)` takes the counters at the start (per process: CPU, time waiting for a CPU;
the machine: time stolen per core, each core's time without tasks, connections accepted);
`finish(probe_result)` takes them again and keeps the figures. The readers are /proc's: a
process's threads' CPU and schedstat, /proc/stat's "steal" and idle columns, /proc/net/snmp's Tcp
PassiveOpens.
"""
import os
import time


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def stat_fields(pid):
    """/proc/PID/stat from its third field (the state) on: the name before it may hold spaces."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far."""
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def major_faults(pid):
    """Page faults of a process so far that had to wait for the disk (a page not in memory)."""
    return int(stat_fields(pid)[9])


def stolen_seconds():
    """Seconds the hypervisor has taken from each core so far (/proc/stat "steal")."""
    with open("/proc/stat") as f:
        rows = [line.split() for line in f if line.startswith("cpu") and line[3].isdigit()]
    return [int(row[8]) / os.sysconf("SC_CLK_TCK") for row in rows]


def core_free_seconds():
    """Seconds each core has not run tasks so far: idle and iowait (measured, not sampled by the
    tick, on a tickless kernel) and time stolen (/proc/stat). Not the interrupt columns: without
    CONFIG_IRQ_TIME_ACCOUNTING (Debian's default) that time is in the interrupted task's own too."""
    with open("/proc/stat") as f:
        rows = [line.split() for line in f if line.startswith("cpu") and line[3].isdigit()]
    return [(int(row[4]) + int(row[5]) + int(row[8])) / os.sysconf("SC_CLK_TCK") for row in rows]


def tcp_passive_opens():
    """Connections this machine has accepted so far (/proc/net/snmp, Tcp PassiveOpens)."""
    with open("/proc/net/snmp") as f:
        names, values = [line.split() for line in f if line.startswith("Tcp:")][:2]
    return int(values[names.index("PassiveOpens")])


def schedstat_seconds(pid, field):
    """A /proc/PID/task/*/schedstat field summed over the process's threads, in seconds: 0 the
    time run, 1 the time runnable but waiting for a CPU (nanoseconds, measured)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[field])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def runqueue_wait_seconds(pid):
    """Seconds the process's threads spent runnable but waiting for a CPU."""
    return schedstat_seconds(pid, 1)


def run_seconds(pid):
    """Seconds the process's threads ran, as the scheduler measured it."""
    return schedstat_seconds(pid, 0)


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


class Hold:
    def __init__(self, watched, pinned=None):
        self.watched = watched   # name -> pid
        # (core, names): the watched processes that are alone on that core (bench/streams --pin).
        # Whatever else ran there is the machine's other work: processes not ours, kernel threads.
        self.pinned = pinned
        self.started = time.monotonic()
        self._cpu = {name: cpu_seconds(pid) for name, pid in watched.items()}
        self._wait = {name: runqueue_wait_seconds(pid) for name, pid in watched.items()}
        self._faults = {name: major_faults(pid) for name, pid in watched.items()}
        self._stolen = stolen_seconds()
        self._free = core_free_seconds()
        self._run = {name: run_seconds(watched[name]) for name in (pinned[1] if pinned else [])}
        self._opens = tcp_passive_opens()
        self.waits = []          # with --sched: bench/lib/probewaits.py's request_waits()
        self.logged = []         # the probe's requests as the gateway logged them (requestlog.py), ms

    def finish(self, probed):
        """Keeps the figures of the hold that ends now; `probed` is the probe's JSON report."""
        self.probed = probed
        self.opened = tcp_passive_opens() - self._opens
        self.stolen = [after - before for before, after in zip(self._stolen, stolen_seconds())]
        free = [after - before for before, after in zip(self._free, core_free_seconds())]
        self.elapsed = time.monotonic() - self.started
        self.cpu = {name: (cpu_seconds(pid) - self._cpu[name]) / self.elapsed for name, pid in self.watched.items()}
        self.others = None
        if self.pinned:
            core, names = self.pinned
            ours = sum(run_seconds(self.watched[name]) - self._run[name] for name in names)
            self.others = max(0.0, self.elapsed - free[core] - ours)
        self.starved = {name: (runqueue_wait_seconds(pid) - self._wait[name]) / self.elapsed
                        for name, pid in self.watched.items()}
        self.faults = {name: major_faults(pid) - self._faults[name] for name, pid in self.watched.items()}
        return self

    def own_latencies(self):
        """Each request's latency less the gateway thread's wait for its core inside it."""
        return [latency - waited for latency, waited, *_ in self.covered()]

    def covered(self):
        """The requests the scheduler record covers from start to end (request_waits' None: not)."""
        return [w for w in self.waits if w is not None]

    def disturbed(self):
        """Seconds the machine's other work took: stolen on every core, and others on the pinned one."""
        return sum(self.stolen) + (self.others or 0.0)

    def others_text(self):
        return f"other work on core {self.pinned[0]} {self.others * 1000:.0f} ms; " if self.pinned else ""

    def rounds(self):
        return len(self.probed["latencies_ms"]) + self.probed["failures"]

    def connections_per_round(self):
        return self.opened / max(1, self.rounds())

    def shares(self):
        """The gateway's share at p50, p90, p99: through the gateway minus straight, same rounds."""
        return [percentile(self.probed["latencies_ms"], q) - percentile(self.probed["direct_ms"], q) for q in (50, 90, 99)]

    def beside_reference(self):
        """The gateway's latency less the reference proxy's on its core at p50, p90, p99, same rounds."""
        return [percentile(self.probed["latencies_ms"], q) - percentile(self.probed["reference_ms"], q) for q in (50, 90, 99)]

    def summary(self, index):
        """One line: the hold's stolen time, the probe through the gateway and straight."""
        through, direct = self.probed["latencies_ms"], self.probed["direct_ms"]
        return (f"hold {index}: stolen {', '.join(f'{s * 1000:.0f}' for s in self.stolen)} ms; {self.others_text()}"
                f"through the gateway p50 {percentile(through, 50):.2f} p90 {percentile(through, 90):.2f} "
                f"p99 {percentile(through, 99):.2f} ms; straight p99 {percentile(direct, 99):.2f} ms; "
                f"gateway's share p99 {self.shares()[2]:.2f} ms; "
                + (f"nginx on core 0 p99 {percentile(self.probed['reference_ms'], 99):.2f} ms, the gateway beside it "
                   f"{self.beside_reference()[2]:.2f} ms; " if self.probed.get("reference_ms") else "")
                + f"{self.connections_per_round():.2f} connections per round; "
                f"major faults {sum(self.faults.values())}"
                + (f"; in the gateway (its log) p99 {percentile(self.logged, 99):.0f} ms" if self.logged else "")
                + (f"; less the gateway's wait for its core p99 {percentile(self.own_latencies(), 99):.2f} ms"
                   if self.waits else ""))

    def print_machine(self):
        print("CPU during the hold       " + ", ".join(f"{name} {share * 100:.0f} %" for name, share in self.cpu.items())
              + f" (of one core; load average {os.getloadavg()[0]:.1f})")
        print("waiting for a CPU         " + ", ".join(f"{name} {share * 100:.0f} %" for name, share in self.starved.items())
              + " of the hold (runnable, not running: the machine's other work)")
        print("major page faults         " + ", ".join(f"{name} {n}" for name, n in self.faults.items())
              + " during the hold (each waited for the disk: code or data the kernel had dropped from memory)")
        print("stolen by the hypervisor  " + ", ".join(f"core {i} {s * 1000:.0f} ms" for i, s in enumerate(self.stolen))
              + f" of the {self.elapsed:.0f} s hold (a run with much stolen says little about the tail)")
        if self.pinned:
            core, names = self.pinned
            print(f"other work on core {core}      {self.others * 1000:.0f} ms of the hold ran there besides the "
                  f"{' and '.join(names)} (processes not ours, kernel threads: while one runs, the gateway waits)")

    def print_probe(self, reference):
        def line(label, run, key, failures):
            values = run[key]
            print(f"{label:<28}p50 {percentile(values, 50):.2f} ms  p90 {percentile(values, 90):.2f} ms  "
                  f"p99 {percentile(values, 99):.2f} ms  ({len(values)} ok, {run[failures]} failed)")
        line("plain request, reference", reference, "latencies_ms", "failures")
        line("  straight to the provider", reference, "direct_ms", "direct_failures")
        if reference.get("reference_ms") or reference.get("reference_failures"):
            line("  through nginx on core 0", reference, "reference_ms", "reference_failures")
        line("plain request, meanwhile", self.probed, "latencies_ms", "failures")
        line("  straight to the provider", self.probed, "direct_ms", "direct_failures")
        if self.probed.get("reference_ms") or self.probed.get("reference_failures"):
            line("  through nginx on core 0", self.probed, "reference_ms", "reference_failures")
        own = "3 are the probe's own: to the gateway, through nginx and straight" if self.probed.get("reference_ms") \
            else "2 are the probe's own: to the gateway and straight"
        print(f"connections opened        {self.connections_per_round():.2f} per probe round during the hold "
              f"({own}; one more is the gateway connecting to the provider)")
        if self.logged:
            print(f"  inside the gateway        p50 {percentile(self.logged, 50):.0f} ms  p90 {percentile(self.logged, 90):.0f} ms  "
                  f"p99 {percentile(self.logged, 99):.0f} ms  max {max(self.logged):.0f} ms  ({len(self.logged)} requests: its request "
                  "log's timings_ms.total, from the request read to the answer, truncated to whole ms: 3 is 3.0-3.99)")
        if self.waits:
            own = self.own_latencies()
            print(f"  less the gateway's wait   p50 {percentile(own, 50):.2f} ms  p90 {percentile(own, 90):.2f} ms  "
                  f"p99 {percentile(own, 99):.2f} ms  (each request less the time the gateway's thread waited "
                  "for its core inside it: perf sched)")
            if len(own) < len(self.waits):
                print(f"    ({len(self.waits) - len(own)} of {len(self.waits)} requests not wholly in the record, left out)")
            for latency, waited, behind, ran, hops in sorted(self.covered(), key=lambda w: -w[0])[:5]:
                held = ", ".join(f"{name} {ms:.1f}" for name, ms in sorted(behind.items(), key=lambda kv: -kv[1])[:3])
                others = ", ".join(f"{name} {ms:.1f}" for name, ms in sorted(hops.items(), key=lambda kv: -kv[1]))
                print(f"    {latency:6.2f} ms: the gateway's thread ran {ran:.1f} ms, waited {waited:.1f} ms, "
                      f"slept {max(0.0, latency - ran - waited):.1f} ms"
                      + (f" while its core ran {held} ms" if held else "")
                      + (f"; waited for a core: {others} ms" if others else ""))
        shares = self.shares()
        print(f"gateway's share meanwhile   p50 {shares[0]:.2f} ms  p90 {shares[1]:.2f} ms  p99 {shares[2]:.2f} ms "
              "(through the gateway minus straight, same rounds)")
