"""A TCP proxy that injects connection faults between widecol and a server
(the Bigtable emulator), for the reliability harness and the differential
tester.

It listens on a free loopback port and forwards each connection to the
server.  Faults, on demand or at random:
  sever()         closes every connection in flight (both sides), as a
                  server that dies or a network that drops does;
  refuse(seconds) closes each new connection at once for that long, as a
                  server that is restarting does;
  chaos(rate)     severs every connection at random, on average `rate`
                  times a second, from a thread of its own (0 stops it);
  lose(p)         severs a connection instead of passing on what the
                  server sends, with probability p each time: the answer
                  to a write the server applied is lost, which a sever at
                  random seldom hits (0 stops it);
  lose_next(n)    the same for the next n times the server sends, each.
The server keeps its data through all of it, so that what a client sees
afterwards can be checked.  counts() says how many connections were
severed and refused, and how many answers lost.

Use: with FaultProxy("127.0.0.1", server_port) as proxy: ... proxy.port
"""
import random
import socket
import threading
import time


class FaultProxy:
    def __init__(self, host, port, seed=None):
        self.target = (host, port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.pairs = []
        self.refuse_until = 0.0
        self.severed = 0
        self.refused = 0
        self.closed = False
        self.rate = 0.0
        self.p_lose = 0.0
        self.n_lose = 0
        self.lost = 0
        self.random = random.Random(seed)
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self._chaos, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def address(self):
        return "127.0.0.1:%d" % self.port

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if time.monotonic() < self.refuse_until:
                with self.lock:
                    self.refused += 1
                _close(client)
                continue
            try:
                server = socket.create_connection(self.target, 5)
                server.settimeout(None)
            except OSError:
                _close(client)
                continue
            # No Nagle delay: gRPC's small frames would wait for ACKs.
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = (client, server)
            with self.lock:
                self.pairs.append(pair)
            threading.Thread(target=self._pump, args=(client, server, pair),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, pair),
                             daemon=True).start()

    def _pump(self, src, dst, pair):
        answers = src is pair[1]
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if answers and (self.p_lose > 0 or self.n_lose > 0):
                    with self.lock:
                        lose = self.n_lose > 0 or self.random.random() < self.p_lose
                        self.n_lose -= self.n_lose > 0 and lose
                        self.lost += lose
                    if lose:
                        break
                dst.sendall(data)
        except OSError:
            pass
        self._drop(pair)

    def _drop(self, pair):
        with self.lock:
            if pair not in self.pairs:
                return
            self.pairs.remove(pair)
        for s in pair:
            _close(s)

    def _chaos(self):
        while not self.closed:
            rate = self.rate
            if rate <= 0:
                time.sleep(0.05)
                continue
            time.sleep(self.random.expovariate(rate))
            if self.rate > 0:
                self.sever()

    def sever(self):
        with self.lock:
            pairs = list(self.pairs)
            self.severed += len(pairs)
        for pair in pairs:
            self._drop(pair)

    def refuse(self, seconds):
        self.refuse_until = time.monotonic() + seconds
        self.sever()

    def chaos(self, rate):
        self.rate = rate

    def lose(self, p):
        self.p_lose = p

    def lose_next(self, n):
        with self.lock:
            self.n_lose = n

    def counts(self):
        with self.lock:
            return {"severed": self.severed, "refused": self.refused, "lost": self.lost}

    def close(self):
        self.closed = True
        self.rate = 0
        _close(self.listener)
        self.sever()


def _close(s):
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


class NodesProxy:
    """A FaultProxy before each node of `nodes` ("host:port,host:port...",
    a cluster's contact points): address() lists the proxies, to be the
    contact points widecol is given, so that every node is reached through
    one (widecol's Cassandra store maps each node the cluster names to the
    contact point that answered for it).  Faults spread over the proxies:
    chaos(rate) is `rate` a second in all; lose(p) and lose_next(n) apply
    to each."""

    def __init__(self, nodes, seed=None):
        self.proxies = []
        for i, node in enumerate(nodes.split(",")):
            host, port = node.rsplit(":", 1)
            self.proxies.append(FaultProxy(host, int(port),
                                           seed=None if seed is None else seed * 100 + i))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def address(self):
        return ",".join(p.address() for p in self.proxies)

    def sever(self):
        for p in self.proxies:
            p.sever()

    def refuse(self, seconds):
        for p in self.proxies:
            p.refuse(seconds)

    def chaos(self, rate):
        for p in self.proxies:
            p.chaos(rate / len(self.proxies))

    def lose(self, p_lose):
        for p in self.proxies:
            p.lose(p_lose)

    def lose_next(self, n):
        for p in self.proxies:
            p.lose_next(n)

    def counts(self):
        total = {}
        for p in self.proxies:
            for k, v in p.counts().items():
                total[k] = total.get(k, 0) + v
        return total

    def close(self):
        for p in self.proxies:
            p.close()
