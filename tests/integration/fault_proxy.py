#!/usr/bin/env python3
"""A TCP proxy that loses one message on purpose, for the node protocol's
fault tests (tests/integration/lost_orders.sh).

usage: fault_proxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT RULE_FILE LOG_FILE

Bytes pass through unchanged until RULE_FILE holds a rule, one JSON object:
  {"action": "cut",       "dir": "s2c"|"c2s", "pattern": REGEX}
      the chunk in which the pattern completes is not forwarded, and the
      connection is closed on both sides (a reply or request lost on a
      connection that breaks, as a proxy or a network fault does);
  {"action": "cut_reply", "dir": "c2s", "pattern": REGEX}
      the request is forwarded, then everything the server sends back on
      that connection is dropped and the connection closed 0.5 s later
      (the server acted on it; its reply is lost);
  {"action": "delay",     "dir": "s2c", "pattern": REGEX, "seconds": S}
      that chunk and everything after it on the connection are held for
      S seconds, then forwarded (a reply later than the caller waits).
REGEX is a Python regular expression over bytes (written as latin-1 text:
"\\x12" is the byte 0x12). A rule fires once: the proxy then removes
RULE_FILE and logs "fired: ..." to LOG_FILE, so that a test can wait for it.
The pattern is matched across chunk boundaries (the last 256 bytes of a
direction are kept).
"""
import asyncio
import json
import os
import re
import sys

KEEP = 256


class Rules:
    def __init__(self, path, log):
        self.path, self.log = path, log
        self.mtime, self.rule = None, None

    def current(self):
        try:
            mtime = os.stat(self.path).st_mtime_ns
        except FileNotFoundError:
            self.mtime, self.rule = None, None
            return None
        if mtime != self.mtime:
            self.mtime = mtime
            try:
                with open(self.path) as f:
                    rule = json.load(f)
                rule["regex"] = re.compile(rule["pattern"].encode("latin-1"), re.S)
                self.rule = rule
            except (OSError, ValueError, KeyError) as e:
                self.say(f"bad rule in {self.path}: {e}")
                self.rule = None
        return self.rule

    def fired(self, rule, conn, size):
        self.say(f"fired: {rule['action']} {rule['dir']} {rule['pattern']!r} on connection {conn} ({size} bytes)")
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.mtime, self.rule = None, None

    def say(self, line):
        with open(self.log, "a") as f:
            f.write(line + "\n")


class Connection:
    count = 0

    def __init__(self, rules, creader, cwriter, sreader, swriter):
        Connection.count += 1
        self.id = Connection.count
        self.rules = rules
        self.cwriter, self.swriter = cwriter, swriter
        self.readers = {"c2s": creader, "s2c": sreader}
        self.tails = {"c2s": b"", "s2c": b""}
        self.drop_s2c = False
        self.hold_until = 0.0
        self.closed = False

    def close(self):
        if self.closed:
            return
        self.closed = True
        for w in (self.cwriter, self.swriter):
            try:
                w.transport.abort()
            except Exception:
                pass

    async def pump(self, direction):
        reader = self.readers[direction]
        writer = self.swriter if direction == "c2s" else self.cwriter
        loop = asyncio.get_running_loop()
        while not self.closed:
            try:
                chunk = await reader.read(65536)
            except (ConnectionError, OSError):
                break
            if not chunk:
                break
            seen = self.tails[direction] + chunk
            self.tails[direction] = seen[-KEEP:]
            rule = self.rules.current()
            if rule and rule["dir"] == direction and rule["regex"].search(seen):
                self.rules.fired(rule, self.id, len(chunk))
                if rule["action"] == "cut":
                    self.close()
                    break
                if rule["action"] == "cut_reply":
                    writer.write(chunk)
                    self.drop_s2c = True
                    loop.call_later(0.5, self.close)
                    continue
                if rule["action"] == "delay":
                    self.hold_until = loop.time() + float(rule["seconds"])
            if direction == "s2c" and self.drop_s2c:
                continue
            if direction == "s2c" and self.hold_until > loop.time():
                await asyncio.sleep(self.hold_until - loop.time())
            try:
                writer.write(chunk)
                await writer.drain()
            except (ConnectionError, OSError):
                break
        self.close()


async def main():
    listen_port, target, rule_file, log_file = sys.argv[1:5]
    host, port = target.rsplit(":", 1)
    rules = Rules(rule_file, log_file)

    async def serve(creader, cwriter):
        try:
            sreader, swriter = await asyncio.open_connection(host, int(port))
        except OSError:
            cwriter.transport.abort()
            return
        conn = Connection(rules, creader, cwriter, sreader, swriter)
        rules.say(f"connection {conn.id} opened")
        await asyncio.gather(conn.pump("c2s"), conn.pump("s2c"))
        rules.say(f"connection {conn.id} closed")

    server = await asyncio.start_server(serve, "127.0.0.1", int(listen_port))
    rules.say(f"listening on {listen_port}, forwarding to {target}")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
