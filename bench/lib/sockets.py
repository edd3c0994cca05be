"""A process's TCP sockets by role: what its open descriptors are.

sockets_by_peer(pid, listen_port) reads /proc/PID/fd (socket inodes) and /proc/PID/net/tcp and
tcp6 (the kernel's table, seen from the process's network namespace) and counts the process's
TCP sockets: "listening", "clients" (accepted on listen_port), "to :PORT" for each remote port
it connected to, each by TCP state where it is not ESTABLISHED. Non-TCP descriptors (files,
eventfds, pipes, UNIX sockets) are "other". Linux only; a measurement helper for bench/streams.
"""
import collections
import os

# include/net/tcp_states.h
STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
          6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING"}


def _tcp_table(pid):
    """inode -> (local port, remote port, state) for every TCP socket the namespace has."""
    table = {}
    for name in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{name}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    local_port = int(fields[1].rsplit(":", 1)[1], 16)
                    remote_port = int(fields[2].rsplit(":", 1)[1], 16)
                    table[int(fields[9])] = (local_port, remote_port, STATES.get(int(fields[3], 16), fields[3]))
        except FileNotFoundError:
            pass
    return table


def sockets_by_peer(pid, listen_port):
    table = _tcp_table(pid)
    counts = collections.Counter()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue  # closed meanwhile
        entry = table.get(int(target[8:-1])) if target.startswith("socket:[") else None
        if entry is None:
            counts["other"] += 1
            continue
        local_port, remote_port, state = entry
        if state == "LISTEN":
            kind = "listening"
        elif local_port == listen_port:
            kind = "clients"
        else:
            kind = f"to :{remote_port}"
        counts[kind if state == "ESTABLISHED" or state == "LISTEN" else f"{kind} {state}"] += 1
    return counts


def describe(counts):
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda item: -item[1]))
