#!/usr/bin/env python3
"""with-cluster.py WORKDIR -- COMMAND...: runs COMMAND against a Dask cluster
of its own: a dask-scheduler on a free loopback port and a dask-worker with
2 single-thread workers (Debian's python3-distributed), every '{scheduler}'
in COMMAND replaced by the scheduler's address. Both are started in their
own process groups and stopped by their ids when COMMAND ends, whatever
happens; their logs and scratch files stay in WORKDIR. Exits with
COMMAND's status."""
import os, signal, socket, subprocess, sys, time

work, cmd = sys.argv[1], sys.argv[3:]
os.makedirs(work, exist_ok=True)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
address = "tcp://127.0.0.1:%d" % port
procs = []


def start(argv, log):
    procs.append(subprocess.Popen(argv, stdout=open(os.path.join(work, log), "w"),
                                  stderr=subprocess.STDOUT, cwd=work,
                                  start_new_session=True))


def stop():
    for p in reversed(procs):
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in reversed(procs):
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


try:
    start(["/usr/bin/dask-scheduler", "--host", "127.0.0.1", "--port",
           str(port), "--no-dashboard"], "scheduler.log")
    start(["/usr/bin/dask-worker", address, "--nworkers", "2", "--nthreads",
           "1", "--no-dashboard", "--local-directory",
           os.path.join(work, "workers")], "workers.log")
    # Wait until both workers have registered.
    from distributed import Client
    deadline = time.time() + 60
    with Client(address, timeout=60) as c:
        while len(c.scheduler_info()["workers"]) < 2:
            if time.time() > deadline:
                sys.exit("with-cluster: the workers did not start; see "
                         + os.path.join(work, "workers.log"))
            time.sleep(0.2)
    rc = subprocess.call([a.replace("{scheduler}", address) for a in cmd])
finally:
    stop()
sys.exit(rc)
