"""tuong-match -cluster: games as tasks on a Dask cluster. Skipped without
Dask (pip install 'tuong[cluster]'). A local cluster of two worker
processes with nannies stands for many machines; the last tests start a
scheduler and workers by hand with the `dask` command, as the README says."""
import io
import json
import logging
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT, need_module, tuong_command
from test_match import fake_cmd, fake_processes, interruptible, replay_with_pyffish

distributed = need_module("distributed")

from tuong.tools.match import cli as match  # noqa: E402
from tuong.tools.records import pgn  # noqa: E402
from tuong.tools.match.cluster import ClusterPool  # noqa: E402
from tuong.tools.match.runtime import schedule  # noqa: E402

DASK = pathlib.Path(sys.executable).parent / "dask"


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes, each under a
    nanny that restarts it if it dies; and a client to look inside."""
    with pytest.MonkeyPatch.context() as mp:           # fake engines import tuong.engine.board
        mp.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                         dashboard_address=None,
                                         scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                         silence_logs=logging.CRITICAL)
    client = distributed.Client(local, set_as_default=False)
    yield local.scheduler_address, client
    client.close()
    local.close()


def run_match(argv):
    out = io.StringIO()
    stats, decision, interrupted = match.run(match.parse_args(argv), stream=out)
    return stats, decision, out.getvalue()


def game_tasks(client):
    return client.run_on_scheduler(
        lambda dask_scheduler: [k for k in dask_scheduler.tasks if "tuong-game" in str(k)])


def test_a_match_on_the_cluster_replays_and_logs(tmp_path, cluster):
    address, client = cluster
    out, log = tmp_path / "c.pgn", tmp_path / "c.log"
    argv = ["-engine", "name=A", f"cmd={fake_cmd('--seed 21')}",
            "-engine", "name=B", f"cmd={fake_cmd('--seed 22 --proto xboard')}", "proto=xboard",
            "-each", "depth=1", "-games", "12", "-maxplies", "160", "-cluster", address,
            "-pgnout", str(out), "-log", str(log)]
    stats, _, text = run_match(argv)
    assert "2 workers on 1 host start every engine" in text
    games = pgn.read_games(out.read_text())
    assert sorted(int(tags["Round"]) for tags, _, _ in games) == list(range(1, 13))
    assert sum(stats.head_to_head()) == 12
    assert sum(replay_with_pyffish(out).values()) == 12
    transcript = log.read_text()
    assert "A > bestmove" in transcript and "B < usermove" in transcript   # > from, < to
    assert game_tasks(client) == []                     # every result was released


def test_self_play_of_tuong_on_the_cluster(tmp_path, cluster):
    """Self-play for tuning: two engines with one command, told apart by name."""
    address, _ = cluster
    out = tmp_path / "self.pgn"
    argv = ["-engine", "name=base", f"cmd={tuong_command()}", f"dir={ROOT}",
            "-engine", "name=dev", f"cmd={tuong_command()}", f"dir={ROOT}",
            "-each", "nodes=300", "option.Hash=1", "-games", "4",
            "-openings", "order=random", "-seed", "3", "-maxplies", "120",
            "-cluster", address, "-pgnout", str(out)]
    run_match(argv)
    games = pgn.read_games(out.read_text())
    assert {tags["White"] for tags, _, _ in games} == {"base", "dev"}
    assert sum(replay_with_pyffish(out).values()) == 4


def test_sprt_decides_and_cancels_the_queued_games(cluster):
    address, client = cluster
    argv = ["-engine", "name=good", f"cmd={fake_cmd('--seed 3')}",
            "-engine", "name=bad", f"cmd={fake_cmd('--mode illegal')}",
            "-each", "depth=1", "-games", "400", "-cluster", address,
            "-sprt", "elo0=0", "elo1=50", "alpha=0.1", "beta=0.1"]
    stats, decision, _ = run_match(argv)
    w, d, l = stats.head_to_head()
    assert decision == "H1" and w + d + l < 400 and l == 0
    assert game_tasks(client) == []                     # the queued games are cancelled


def test_a_run_that_never_ends_leaves_no_engines_on_the_workers(cluster):
    """A tuong-match that was killed, or lost its scheduler, never sends
    end_run: each worker closes the run's engines itself once no task of the
    run has come for its lease (5 s here), and keeps them until then."""
    from tuong.tools.match.cluster import LEASE, play_task
    _, client = cluster
    config = match.parse_args(["-engine", "name=A", f"cmd={fake_cmd('--seed 4241')}",
                               "-engine", "name=B", f"cmd={fake_cmd('--seed 4242')}",
                               "-each", "depth=1", "-maxplies", "20", "-games", "2"])

    def set_lease(seconds):
        import tuong.tools.match.cluster
        tuong.tools.match.cluster.LEASE = seconds

    client.run(set_lease, 5.0)
    try:
        futures = [client.submit(play_task, "never-ended", config.engines, config.rules, job,
                                 pure=False) for job in schedule(config)]
        assert all(result is not None for result in client.gather(futures))
        del futures
        assert fake_processes("--seed 424")             # kept for the run's next game
        deadline = time.monotonic() + 30
        while fake_processes("--seed 424") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fake_processes("--seed 424") == []
    finally:
        client.run(set_lease, LEASE)


def test_a_worker_remembers_a_bounded_number_of_ended_runs():
    import asyncio

    from tuong.tools.match import cluster

    async def end_many(count):
        for i in range(count):
            await cluster.end_run(f"run-{i}")

    asyncio.run(end_many(cluster.ENDED_MEMORY + 10))
    assert len(cluster._ended) == cluster.ENDED_MEMORY
    assert "run-0" not in cluster._ended and f"run-{cluster.ENDED_MEMORY + 9}" in cluster._ended


def children(pid):
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(proc.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def test_a_worker_killed_mid_game_loses_only_that_game(tmp_path, cluster):
    address, client = cluster
    client.wait_for_workers(2, timeout=30)
    out = tmp_path / "k.pgn"
    slow = fake_cmd("--mode slow --delay 0.03")
    argv = ["-engine", "name=A", f"cmd={slow} --seed 1", "-engine", "name=B",
            f"cmd={slow} --seed 2", "-each", "depth=1", "-games", "8", "-maxplies", "50",
            "-cluster", address, "-pgnout", str(out)]
    killed = []

    def kill_a_worker_in_a_game():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not killed:
            time.sleep(0.2)
            if "[Result" not in (out.read_text() if out.exists() else ""):
                continue                            # kill after the first result
            for pid in client.run(os.getpid).values():
                if children(pid):                   # its engines: a game is on
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break

    killer = threading.Thread(target=kill_a_worker_in_a_game)
    killer.start()
    stats, _, _ = run_match(argv)
    killer.join()
    assert killed, "no worker was caught in a game"
    games = pgn.read_games(out.read_text())
    assert sorted(int(tags["Round"]) for tags, _, _ in games) == list(range(1, 9))
    assert sum(stats.head_to_head()) == 8
    assert all(result in ("1-0", "0-1", "1/2-1/2") for _, _, result in games)
    client.wait_for_workers(2, timeout=30)              # the nanny restarted it


def test_local_cluster_stops_cleanly_on_ctrl_c(tmp_path):
    out = tmp_path / "i.pgn"
    marker = "--score 7777"
    slow = fake_cmd("--mode slow --delay 0.03", marker)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.match.cli", "-engine", "name=A", f"cmd={slow} --seed 1",
         "-engine", "name=B", f"cmd={slow} --seed 2", "-each", "depth=1", "-maxplies", "60",
         "-games", "40", "-cluster", "local:2", "-pgnout", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=interruptible)
    # Wait for a finished game while engines are running (between two games
    # a worker may briefly have none: that is not the moment to interrupt).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            "[Result" in (out.read_text() if out.exists() else "") and fake_processes(marker)):
        time.sleep(0.05)
    assert fake_processes(marker)
    os.killpg(proc.pid, signal.SIGINT)                  # a terminal's Ctrl-C: the whole group
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stdout and "Score of A vs B" in stdout
    assert "Traceback" not in stderr, stderr
    deadline = time.monotonic() + 5
    while fake_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fake_processes(marker) == []
    games = pgn.read_games(out.read_text())
    assert 1 <= len(games) < 40
    assert all(result in ("1-0", "0-1", "1/2-1/2") for _, _, result in games)


@pytest.fixture
def by_hand(tmp_path):
    """`dask scheduler` and two `dask worker`s started as a user would, one
    of them without the engines on its PATH; (address, scheduler process)."""
    procs = []
    bindir = tmp_path / "bin"
    bindir.mkdir()
    engine = bindir / "fakeeng"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'tests' / 'fake_engine.py'} "
                      "\"$@\"\n")
    engine.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    file = tmp_path / "scheduler.json"
    with open(tmp_path / "cluster.log", "w") as log:
        common = dict(stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path, env=env)
        procs.append(subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                       "--no-dashboard", "--scheduler-file", str(file)], **common))
        deadline = time.monotonic() + 20
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = [str(DASK), "worker", "--scheduler-file", str(file), "--nthreads", "1",
                  "--no-dashboard", "--name"]
        procs.append(subprocess.Popen(
            worker + ["has-engines"], **dict(common, env=dict(
                env, PATH=f"{bindir}{os.pathsep}{env['PATH']}"))))
        procs.append(subprocess.Popen(worker + ["no-engines"], **common))
        address = json.loads(file.read_text())["address"]
        with distributed.Client(address, set_as_default=False, timeout=20) as client:
            client.wait_for_workers(2, timeout=30)
        yield address, procs[0]
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_by_hand_a_worker_without_engines_is_left_out_and_a_lost_scheduler_ends_the_run(
        tmp_path, by_hand):
    address, scheduler = by_hand
    out = tmp_path / "s.pgn"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.match.cli", "-engine", "name=A",
         "cmd=fakeeng --mode slow --delay 0.03 --seed 1", "-engine", "name=B",
         "cmd=fakeeng --mode slow --delay 0.03 --seed 2", "-each", "depth=1", "-maxplies", "40",
         "-games", "40", "-cluster", address, "-pgnout", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and \
            (out.read_text() if out.exists() else "").count("[Result") < 2:
        time.sleep(0.1)
    scheduler.kill()
    stdout, stderr = proc.communicate(timeout=30)
    assert "Worker no-engines" in stdout and "is left out: cannot start A (fakeeng" in stdout
    assert "1 worker on 1 host start every engine" in stdout
    assert proc.returncode == 1
    assert f"lost the Dask scheduler at {address}; the finished games are kept in {out}" in stderr
    assert "Traceback" not in stderr, stderr
    games = pgn.read_games(out.read_text())
    assert 2 <= len(games) < 40 and f"Score of A vs B: 0 - 0 - {len(games)}" in stdout
    assert sum(replay_with_pyffish(out).values()) == len(games)


def test_games_are_restricted_only_once_a_worker_fails():
    pool = ClusterPool(match.parse_args("-engine cmd=a depth=1 -engine cmd=b depth=1 "
                                        "-cluster local:1".split()), None, io.StringIO())
    pool.good = {"tcp://h1:1": "h1", "tcp://h1:2": "h1", "tcp://h2:1": "h2"}
    pool._restrict()
    assert pool.restriction is None
    pool.bad = {"tcp://h2:2": "h2"}
    pool._restrict()
    assert pool.restriction == ["h1", "tcp://h2:1"]     # whole hosts where all passed
