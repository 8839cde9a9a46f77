#!/usr/bin/env python3
"""A real debuginfod server (elfutils) over a directory, for tests.

    debuginfod-server.py start [--lifetime S] [--expect ID/KIND]... DIR STATEDIR
    debuginfod-server.py stop STATEDIR
    debuginfod-server.py run [--lifetime S] [--expect ID/KIND]... DIR STATEDIR -- CMD [ARG...]
    debuginfod-server.py dead refuse STATEDIR
    debuginfod-server.py dead silent [--lifetime S] STATEDIR
    debuginfod-server.py dead stall [--lifetime S] STATEDIR
    debuginfod-server.py fake [--lifetime S] FILE STATEDIR

start: serves the ELF files under DIR on a free loopback port, waits until
  the server has indexed DIR (its /metrics show a finished traversal and no
  scan work left, and each --expect ID/KIND, e.g. 0123abcd/executable,
  answers 200), records the port and the pid in STATEDIR and prints the URL,
  http://127.0.0.1:PORT. It fails after 60 s of waiting, the server killed.
stop: ends what start or `dead silent` left in STATEDIR, by the recorded
  pid (checked against the recorded start time, so a reused pid is never
  hit), and waits for it to go. Stopping twice, or a server already gone,
  is not an error.
run: start, CMD with DEBUGINFOD_URLS set to the server, stop (whatever CMD
  does); exits with CMD's status. The shape for lit: one RUN line whose
  server cannot outlive it.
dead refuse: prints the URL of a loopback port where nothing listens.
dead silent: prints the URL of a loopback port that accepts connections and
  never answers (a helper process, ended by stop).
fake FILE STATEDIR: prints the URL of a loopback server that answers every
  request, whatever build id it asks for, with "200 OK" and FILE's bytes: a
  server that sends a wrong file (ended by stop).
dead stall: the same, but it answers each request with "200 OK", a
  Content-Length of 1 MiB and 1000 bytes of it, then nothing more: a transfer
  that times out half-way.

Every server also gets a watchdog that kills it after --lifetime seconds
(default 300), so a test that dies between start and stop leaves nothing
running for long. Nothing is written outside STATEDIR: the database, the
log (server.log), the server's temporary files and its own client cache.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

READY_TIMEOUT_S = 60
DEFAULT_LIFETIME_S = 300


def fail(msg):
    sys.stderr.write("debuginfod-server: error: %s\n" % msg)
    sys.exit(2)


def start_time(pid):
    """The process's start time in clock ticks (field 22 of /proc/PID/stat),
    or None if it is gone or a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return fields[19]


def alive(pid, started):
    return started is not None and start_time(pid) == started


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_state(statedir, name, value):
    tmp = os.path.join(statedir, name + ".tmp")
    with open(tmp, "w") as f:
        f.write("%s\n" % value)
    os.rename(tmp, os.path.join(statedir, name))


def read_state(statedir, name):
    try:
        with open(os.path.join(statedir, name)) as f:
            return f.read().strip()
    except OSError:
        return None


def kill_and_wait(pid, started, grace_s=10.0):
    if not alive(pid, started):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while alive(pid, started) and time.monotonic() < deadline:
        reap(pid)
        time.sleep(0.05)
    if alive(pid, started):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        while alive(pid, started):
            reap(pid)
            time.sleep(0.05)
    reap(pid)


def reap(pid):
    """Collects the exit status when the process is our child (run, and the
    failure paths of start); other processes are reaped by their parent."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def spawn_watchdog(statedir, pid, started, lifetime_s):
    """A detached process that kills the server after lifetime_s seconds, or
    ends as soon as the server is gone."""
    w = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "watchdog", statedir,
         str(pid), started, str(lifetime_s)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    write_state(statedir, "watchdog.pid", "%d %s" % (w.pid, start_time(w.pid)))


def cmd_watchdog(statedir, pid, started, lifetime_s):
    pid = int(pid)
    deadline = time.monotonic() + float(lifetime_s)
    while alive(pid, started):
        if time.monotonic() >= deadline:
            with open(os.path.join(statedir, "watchdog.log"), "a") as f:
                f.write("killed %d after %s s: nobody stopped it\n" %
                        (pid, lifetime_s))
            kill_and_wait(pid, started)
            break
        time.sleep(0.5)
    return 0


def metrics(url):
    with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
        text = r.read().decode("utf-8", "replace")
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def indexed(url, expects):
    """True once the first traversal of the directory is over, nothing is
    queued or being scanned, and every expected artifact is served."""
    try:
        m = metrics(url)
    except (OSError, urllib.error.URLError):
        return False
    if m.get('thread_work_total{role="traverse"}', 0) < 1:
        return False
    if m.get('thread_work_pending{role="scan"}', 0) > 0:
        return False
    if m.get('thread_busy{role="scan"}', 0) > 0:
        return False
    for e in expects:
        try:
            with urllib.request.urlopen("%s/buildid/%s" % (url, e),
                                        timeout=5) as r:
                if r.status != 200:
                    return False
        except (OSError, urllib.error.URLError):
            return False
    return True


def server_env(statedir):
    env = dict(os.environ)
    # Never a federating proxy: a server with DEBUGINFOD_URLS (Debian sets it
    # in /etc/profile.d) would ask the Internet for every unknown build id.
    for var in ("DEBUGINFOD_URLS", "DEBUGINFOD_CACHE_PATH"):
        env.pop(var, None)
    env["TMPDIR"] = statedir
    env["XDG_CACHE_HOME"] = os.path.join(statedir, "cache")
    env["HOME"] = statedir
    return env


def log_tail(statedir):
    try:
        with open(os.path.join(statedir, "server.log"), errors="replace") as f:
            return "".join(f.readlines()[-15:])
    except OSError:
        return ""


def start(directory, statedir, expects, lifetime_s):
    exe = shutil.which("debuginfod")
    if not exe:
        fail("elfutils' debuginfod is not installed; run scripts/setup.sh")
    if not os.path.isdir(directory):
        fail("%s: not a directory" % directory)
    os.makedirs(statedir, exist_ok=True)
    statedir = os.path.abspath(statedir)
    if alive_recorded(statedir, "pid"):
        fail("%s: a server recorded there is still running" % statedir)
    db = os.path.join(statedir, "db.sqlite")
    for attempt in range(5):
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(db + suffix)
            except FileNotFoundError:
                pass
        port = free_port()
        url = "http://127.0.0.1:%d" % port
        # -F: plain ELF files; -t 0 -g 0: one traversal, no rescans or
        # grooming afterwards; -c 1: one scanner thread on a shared machine;
        # no source scan (a test serves binaries). debuginfod 0.188 has no
        # option to listen on loopback only, so it listens on every address:
        # a random port, a test directory and a bounded lifetime limit that.
        argv = [exe, "-F", "-p", str(port), "-d", db, "-t", "0", "-g", "0",
                "-c", "1", "--disable-source-scan", os.path.abspath(directory)]
        with open(os.path.join(statedir, "server.log"), "w") as log:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT,
                                    env=server_env(statedir),
                                    cwd=statedir, start_new_session=True)
        started = None
        while started is None and proc.poll() is None:
            started = start_time(proc.pid)
        if started is None:
            continue  # exited at once: most likely the port was taken
        write_state(statedir, "pid", "%d %s" % (proc.pid, started))
        write_state(statedir, "port", port)
        write_state(statedir, "url", url)
        spawn_watchdog(statedir, proc.pid, started, lifetime_s)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while proc.poll() is None and time.monotonic() < deadline:
            if indexed(url, expects):
                return proc, url
            time.sleep(0.1)
        if proc.poll() is not None:
            if "Address already in use" in log_tail(statedir):
                continue
            fail("debuginfod exited with status %d:\n%s" %
                 (proc.returncode, log_tail(statedir)))
        kill_and_wait(proc.pid, started)
        fail("debuginfod did not index %s within %d s:\n%s" %
             (directory, READY_TIMEOUT_S, log_tail(statedir)))
    fail("debuginfod could not listen on a free port:\n" + log_tail(statedir))


def alive_recorded(statedir, name):
    rec = read_state(statedir, name)
    if not rec:
        return None
    pid, _, started = rec.partition(" ")
    try:
        pid = int(pid)
    except ValueError:
        return None
    return (pid, started) if alive(pid, started) else None


def cmd_stop(statedir):
    if not os.path.isdir(statedir):
        return 0
    for name in ("pid", "watchdog.pid"):
        rec = alive_recorded(statedir, name)
        if rec:
            kill_and_wait(*rec)
    return 0


def cmd_run(directory, statedir, expects, lifetime_s, command):
    if not command:
        fail("run: no command after --")
    proc, url = start(directory, statedir, expects, lifetime_s)
    # lit's timeout and ^C end this helper with a signal: stop the server then.
    def on_signal(signum, frame):
        raise SystemExit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    try:
        env = dict(os.environ)
        env["DEBUGINFOD_URLS"] = url
        # curl honours http_proxy: the loopback server is reached directly.
        env["no_proxy"] = env["NO_PROXY"] = "127.0.0.1"
        return subprocess.call(command, env=env)
    finally:
        cmd_stop(statedir)


def serve_forked(statedir, lifetime_s, on_connection):
    """Listens on a free loopback port in a child process of its own session
    that calls on_connection(conn) for each connection it accepts and ends
    by itself after lifetime_s; records its pid, port and URL in statedir
    (for stop) and prints the URL."""
    os.makedirs(statedir, exist_ok=True)
    statedir = os.path.abspath(statedir)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    port = s.getsockname()[1]
    pid = os.fork()
    if pid == 0:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        s.settimeout(0.5)
        deadline = time.monotonic() + float(lifetime_s)
        while time.monotonic() < deadline:
            try:
                c = s.accept()[0]
            except socket.timeout:
                continue
            try:
                on_connection(c)
            except OSError:
                pass
        os._exit(0)
    s.close()
    write_state(statedir, "pid", "%d %s" % (pid, start_time(pid)))
    write_state(statedir, "port", port)
    write_state(statedir, "url", "http://127.0.0.1:%d" % port)
    print("http://127.0.0.1:%d" % port)
    return 0


def cmd_fake(path, statedir, lifetime_s):
    body = open(path, "rb").read()

    def answer(c):
        # Reads the request's head and answers it with FILE.
        try:
            c.settimeout(5)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = c.recv(4096)
                if not chunk:
                    break
                head += chunk
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                      b"Connection: close\r\n\r\n" % len(body) + body)
        finally:
            c.close()

    return serve_forked(statedir, lifetime_s, answer)


def cmd_dead(mode, statedir, lifetime_s):
    if mode == "refuse":
        # Bound, then closed: the kernel refuses connections to it. Another
        # process could take the port in between; tests ask at once.
        print("http://127.0.0.1:%d" % free_port())
        return 0
    # The silent peer accepts and holds every connection, never reads or
    # answers; the stalling one starts an answer it never finishes.
    held = []

    def hold(c):
        held.append(c)
        if mode == "stall":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n"
                      b"\r\n" + b"\x7fELF" + b"\0" * 996)

    return serve_forked(statedir, lifetime_s, hold)


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "watchdog":
        return cmd_watchdog(*argv[1:5])
    command = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog="debuginfod-server.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("start", "run"):
        sp = sub.add_parser(name)
        sp.add_argument("--expect", action="append", default=[],
                        metavar="ID/KIND")
        sp.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME_S)
        sp.add_argument("dir")
        sp.add_argument("statedir")
    sp = sub.add_parser("stop")
    sp.add_argument("statedir")
    sp = sub.add_parser("fake")
    sp.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME_S)
    sp.add_argument("file")
    sp.add_argument("statedir")
    sp = sub.add_parser("dead")
    sp.add_argument("mode", choices=("refuse", "silent", "stall"))
    sp.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME_S)
    sp.add_argument("statedir")
    a = p.parse_args(argv)
    if a.cmd == "start":
        _, url = start(a.dir, a.statedir, a.expect, a.lifetime)
        print(url)
        sys.stdout.flush()
        return 0
    if a.cmd == "run":
        return cmd_run(a.dir, a.statedir, a.expect, a.lifetime, command)
    if a.cmd == "stop":
        return cmd_stop(a.statedir)
    if a.cmd == "fake":
        return cmd_fake(a.file, a.statedir, a.lifetime)
    return cmd_dead(a.mode, a.statedir, a.lifetime)


if __name__ == "__main__":
    sys.exit(main())
