"""Datagen and a match across hosts: a Dask scheduler and two workers, each
in a network namespace of its own (a host that has only its own address
and loopback), joined by a bridge in a fifth; tuong-datagen and tuong-match
run from a fourth. One worker is killed while datagen runs: nothing is lost
or written twice (the task journal accounts for every record, and tasks
replayed here from their seeds give the same bytes).

Needs root (ip netns) and Dask: in CI a missing one fails the run; on a
desktop it skips."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, need, need_module, tuong_command
from test_match import replay_with_pyffish

need_module("distributed")
need(shutil.which("ip") is not None and os.geteuid() == 0,
     "network namespaces need root and iproute2 (ip netns)")

from tuong.tools.records import pgn  # noqa: E402
from tuong.tools.training import dataset, selfplay  # noqa: E402

DASK = os.path.join(os.path.dirname(sys.executable), "dask")
SUBNET = "10.231.77"
HOSTS = {"scheduler": 1, "worker-a": 2, "worker-b": 3, "client": 4}


def sh(*command, check=True):
    return subprocess.run(command, check=check, capture_output=True, text=True)


class Hosts:
    """Namespaces named {tag}-{host}, each with one veth into the bridge of
    {tag}-switch; processes started in them, all ended by close()."""

    def __init__(self, tag):
        self.tag, self.processes = tag, []
        self.switch = f"{tag}-switch"
        sh("ip", "netns", "add", self.switch)
        sh("ip", "netns", "exec", self.switch, "ip", "link", "add", "br0", "type", "bridge")
        sh("ip", "netns", "exec", self.switch, "ip", "link", "set", "br0", "up")
        for host, number in HOSTS.items():
            name, inside, outside = self.name(host), f"{tag}h{number}", f"{tag}s{number}"
            sh("ip", "netns", "add", name)
            sh("ip", "link", "add", inside, "type", "veth", "peer", "name", outside)
            sh("ip", "link", "set", inside, "netns", name)
            sh("ip", "link", "set", outside, "netns", self.switch)
            sh("ip", "netns", "exec", self.switch, "ip", "link", "set", outside, "master", "br0")
            sh("ip", "netns", "exec", self.switch, "ip", "link", "set", outside, "up")
            sh("ip", "netns", "exec", name, "ip", "addr", "add", f"{self.address(host)}/24",
               "dev", inside)
            sh("ip", "netns", "exec", name, "ip", "link", "set", inside, "up")
            sh("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up")

    def name(self, host):
        return f"{self.tag}-{host}"

    @staticmethod
    def address(host):
        return f"{SUBNET}.{HOSTS[host]}"

    def start(self, host, command, log):
        process = subprocess.Popen(["ip", "netns", "exec", self.name(host), *command],
                                   stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        self.processes.append(process)
        return process

    def run(self, host, command, timeout):
        return subprocess.run(["ip", "netns", "exec", self.name(host), *command], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)

    def close(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()
        for host in HOSTS:
            sh("ip", "netns", "del", self.name(host), check=False)
        sh("ip", "netns", "del", self.switch, check=False)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """The scheduler and two workers, each on its host, ready."""
    log = open(tmp_path_factory.mktemp("hosts") / "cluster.log", "w")
    made = Hosts(f"tg{os.getpid() % 100000}")
    try:
        scheduler = f"tcp://{made.address('scheduler')}:8786"
        made.start("scheduler", [DASK, "scheduler", "--host", made.address("scheduler"),
                                 "--port", "8786", "--no-dashboard"], log)
        workers = {}
        for host in ("worker-a", "worker-b"):
            workers[host] = made.start(host, [DASK, "worker", scheduler, "--nthreads", "1",
                                              "--no-nanny", "--no-dashboard", "--name", host,
                                              "--host", made.address(host)], log)
        made.workers, made.scheduler = workers, scheduler
        wait = made.run("client", [sys.executable, "-c",
                                   "import distributed, sys; c = distributed.Client(sys.argv[1], "
                                   "timeout=30); c.wait_for_workers(2, timeout=60)", scheduler],
                        timeout=120)
        assert wait.returncode == 0, wait.stderr + open(log.name).read()
        yield made
    finally:
        made.close()
        log.close()


def test_the_hosts_see_only_their_own_addresses(hosts):
    shown = hosts.run("worker-a", ["ip", "-o", "-4", "addr", "show"], timeout=10).stdout
    assert f"{SUBNET}.2/24" in shown and "127.0.0.1" in shown and f"{SUBNET}.3" not in shown


def test_datagen_across_hosts_with_a_worker_killed_loses_nothing_and_writes_nothing_twice(
        hosts, tmp_path):
    out = tmp_path / "hosts.bin"
    command = [sys.executable, "-m", "tuong.tools.training.datagen", "--out", str(out),
               "--positions", "1500", "--nodes", "200", "--max-plies", "100", "--seed", "5",
               "--cluster", hosts.scheduler]
    client = hosts.start("client", command, open(tmp_path / "datagen.log", "w"))
    journal = tmp_path / "hosts.bin.tasks"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and \
            (not journal.exists() or len(journal.read_text().splitlines()) < 2):
        time.sleep(0.1)
    hosts.workers["worker-a"].kill()                  # in the middle of its tasks
    assert client.wait(timeout=300) == 0, (tmp_path / "datagen.log").read_text()[-3000:]
    count = dataset.count(out)
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    tasks = [e for e in entries if "seed" in e]
    assert entries[0] == {"start": 0}                             # where the run began
    assert count >= 1500
    assert len({t["seed"] for t in tasks}) == len(tasks)          # no task twice
    offset = 0
    for task in sorted(tasks, key=lambda t: t["offset"]):         # every record accounted for
        assert task["offset"] == offset
        offset += task["positions"]
    assert offset == count
    # The same seeds here give the same records: what the killed worker had
    # begun was played again whole, from its seed, not spliced.
    settings = selfplay.Settings(nodes=200, max_plies=100)
    data = out.read_bytes()[dataset.HEADER.size:]
    for task in tasks[:2] + tasks[-2:]:
        records, _ = selfplay.play_games(settings, task["seed"], selfplay.GAMES_PER_TASK)
        start = task["offset"] * dataset.RECORD_SIZE
        assert records == data[start:start + len(records)], task


def test_a_match_across_hosts(hosts, tmp_path):
    out = tmp_path / "hosts.pgn"
    done = hosts.run("client", [sys.executable, "-m", "tuong.tools.match.cli",
                                "-engine", "name=a", f"cmd={tuong_command()}",
                                "-engine", "name=b", f"cmd={tuong_command()}",
                                "-each", "nodes=300", "option.Hash=1", "-games", "6",
                                "-maxplies", "100", "-cluster", hosts.scheduler,
                                "-pgnout", str(out)], timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    games = pgn.read_games(out.read_text())
    assert len(games) == 6 and sum(replay_with_pyffish(out).values()) == 6
