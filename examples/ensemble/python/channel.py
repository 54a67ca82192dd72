"""The one-way channel from the model processes to the voter: one datagram per vote.

Addresses are `unix:/path/to/socket` (processes on one node: a Unix datagram socket never drops
a message, a full queue makes the sender wait) or `udp:host:port` (pods that reach the voter
through a Service). A vote is one line of ASCII: `vote <model> <frame> <class> <latency_ns>`;
a model that stops sends `end <model> <served> <skipped>`.
"""

import os
import socket


def parse(address):
    kind, _, rest = address.partition(":")
    if kind == "unix" and rest:
        return socket.AF_UNIX, rest
    if kind == "udp" and rest:
        host, _, port = rest.rpartition(":")
        if host and port.isdigit():
            return socket.AF_INET, (host, int(port))
    raise ValueError(
        "channel address must be unix:/path or udp:host:port, got " + repr(address))


def listen(address):
    family, target = parse(address)
    s = socket.socket(family, socket.SOCK_DGRAM)
    if family == socket.AF_UNIX:
        if os.path.exists(target):
            os.unlink(target)
    else:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(target)
    return s


class Sender:
    def __init__(self, address):
        family, self.target = parse(address)
        self.sock = socket.socket(family, socket.SOCK_DGRAM)

    def send(self, line):
        self.sock.sendto(line.encode("ascii"), self.target)

    def close(self):
        self.sock.close()


def vote_line(model, frame, vote, latency_ns):
    return "vote %s %d %d %d" % (model, frame, vote, latency_ns)


def end_line(model, served, skipped):
    return "end %s %d %d" % (model, served, skipped)


def decode(data):
    """('vote', model, frame, class, latency_ns) or ('end', model, served, skipped); ValueError if bad."""
    parts = data.decode("ascii", errors="replace").split()
    if len(parts) == 5 and parts[0] == "vote":
        return ("vote", parts[1], int(parts[2]), int(parts[3]), int(parts[4]))
    if len(parts) == 4 and parts[0] == "end":
        return ("end", parts[1], int(parts[2]), int(parts[3]))
    raise ValueError("not a vote or end message: %r" % data[:80])
