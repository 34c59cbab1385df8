"""The network's pipeline: positions files, tuong-datagen --out (self-play
in the process) and tuong-train."""
import pathlib
import random

import pytest

from tuong.engine import evalfile, network
from tuong.engine.board import Board
from tuong.tools.training import dataset, datagen

from conftest import need_module, random_board


def test_records_round_trip():
    rng = random.Random(5)
    for _ in range(50):
        board = random_board(rng, rng.randint(0, 100))
        side = 0 if board.turn == "w" else 1
        score = rng.randint(-3000, 3000)
        result = rng.choice((-1, 0, 1))
        record = dataset.pack(dataset.squares_of_fen(board.fen()), score, result, side)
        assert len(record) == dataset.RECORD_SIZE
        assert dataset.unpack(record) == (" ".join(board.fen().split()[:2]), score, result, side)


def test_decode_gives_each_pieces_square_and_kind():
    np = need_module("numpy")
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
    record = dataset.pack(dataset.squares_of_fen(fen), 12, 1, 0)
    decoded = dataset.decode(np.frombuffer(record * 2, dtype=np.uint8).reshape(2, 32))
    squares = dataset.squares_of_fen(fen)
    pairs = {(int(s), dataset.PIECE_LETTERS[k]) for s, k in
             zip(decoded["square"][0], decoded["kind"][0]) if s >= 0}
    assert pairs == {(s, letter) for s, letter in enumerate(squares) if letter}
    assert list(decoded["score"]) == [12, 12] and list(decoded["result"]) == [1, 1]


@pytest.mark.parametrize("damage, what", [
    (lambda r: r.__setitem__(12, (r[12] & 0xF0) | 14), "a piece kind above 13"),
    (lambda r: r.__setitem__(31, 2), "a side to move other than 0 or 1"),
    (lambda r: r.__setitem__(30, 3), "a result outside -1..1"),
    (lambda r: r.__setitem__(30, 0x80), "a result outside -1..1"),
    (lambda r: r.__setitem__(slice(0, 12), b"\xff" * 12), "occupancy beyond square 89"),
    (lambda r: r.__setitem__(slice(0, 12), (2**40 - 1).to_bytes(12, "little")),
     "more than 32 pieces"),
    # Red's general and the a0 rook change places: a general on a0.
    (lambda r: (r.__setitem__(12, r[12] & 0xF0), r.__setitem__(14, (r[14] & 0xF0) | 4)),
     "a general outside its palace"),
])
def test_a_record_no_position_can_have_is_an_error_naming_file_and_record(tmp_path, capsys,
                                                                          damage, what):
    """Training data is checked as it is read: a bad record names its file
    and number, and tuong-train stops with that line (exit 2)."""
    need_module("numpy")
    from tuong.tools.training import train
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
    good = dataset.pack(dataset.squares_of_fen(fen), 12, 1, 0)
    bad = bytearray(good)
    damage(bad)
    path = tmp_path / "pos.bin"
    path.write_bytes(dataset.header() + good * 2999 + bytes(bad) + good * 200)
    with pytest.raises(dataset.DatasetError, match=rf"pos.bin: record 2,999 has {what}"):
        dataset.read(path)
    with pytest.raises(SystemExit) as exit_:
        train.main([str(path), "-o", str(tmp_path / "net.nnue"), "--epochs", "1"])
    assert exit_.value.code == 2 and "record 2,999" in capsys.readouterr().err


def test_random_records_are_refused(tmp_path):
    """3,000 random records (the issue's example) do not train in silence."""
    need_module("numpy")
    rng = random.Random(3)
    path = tmp_path / "random.bin"
    path.write_bytes(dataset.header() + bytes(rng.randrange(256) for _ in range(32 * 3000)))
    with pytest.raises(dataset.DatasetError, match="random.bin: record 0 has"):
        dataset.read(path)


def test_datagen_fills_the_file_and_goes_on_where_it_stopped(tmp_path, capsys):
    out = tmp_path / "pos.bin"
    argv = ["--out", str(out), "--nodes", "300", "--concurrency", "1", "--random-plies", "4,6",
            "--seed", "3"]
    assert datagen.main(argv + ["--positions", "50"]) == 0
    first = dataset.count(out)
    assert first >= 50
    head = out.read_bytes()
    # A run killed mid-write leaves a partial record: the next run cuts it off.
    with open(out, "ab") as f:
        f.write(b"\1\2\3")
    assert datagen.main(argv + ["--positions", str(first + 40)]) == 0
    assert dataset.count(out) >= first + 40
    data = out.read_bytes()
    assert data.startswith(head) and (len(data) - 16) % dataset.RECORD_SIZE == 0
    assert "an hour" in capsys.readouterr().err
    for i in range(dataset.count(out)):
        fen, score, result, side = dataset.unpack(data[16 + 32 * i:48 + 32 * i])
        board = Board(fen + " - - 0 1")
        assert not board.in_check() and board.legal_moves(), fen
        assert abs(score) < 20000 and result in (-1, 0, 1) and side == (fen[-1] == "b")


def test_datagen_plays_on_a_dask_cluster(tmp_path):
    need_module("distributed")
    out = tmp_path / "pos.bin"
    assert datagen.main(["--out", str(out), "--nodes", "300", "--positions", "40",
                         "--cluster", "local:1", "--seed", "2"]) == 0
    assert dataset.count(out) >= 40


def test_datagen_refuses_bad_arguments(tmp_path, capsys):
    not_positions = tmp_path / "x.bin"
    not_positions.write_bytes(b"something else entirely")
    for argv in (["--out", str(not_positions), "--positions", "5"],
                 ["--out", str(tmp_path / "a.bin"), "--random-plies", "9,2"],
                 ["--out", str(tmp_path / "a.bin"), "--depth", "3"],
                 ["--out", str(tmp_path / "a.bin"), "--cluster", "nowhere"],
                 ["--out", str(tmp_path / "a.bin"), "--eval-file", str(tmp_path / "no.nnue")],
                 ["--out", str(tmp_path / "a.bin"), "--games", "3", "-concurrency", "2"]):
        with pytest.raises(SystemExit) as e:
            datagen.main(argv)
        assert e.value.code == 2, argv
        assert "tuong-datagen: error:" in capsys.readouterr().err


def test_train_lowers_the_loss_and_writes_a_network_the_engine_loads(tmp_path, capsys):
    need_module("numpy")
    need_module("scipy")
    from tuong.engine.board import evaluate
    from tuong.tools.training import train
    data = tmp_path / "pos.bin"
    assert datagen.main(["--out", str(data), "--nodes", "300", "--concurrency", "1",
                         "--positions", "600", "--seed", "5"]) == 0
    net = tmp_path / "net.nnue"
    assert train.main([str(data), "-o", str(net), "--epochs", "6", "--hidden", "32",
                       "--batch", "128", "--lr", "0.003"]) == 0
    printed = capsys.readouterr().out
    losses = [float(line.split("train loss ")[1].split(",")[0])
              for line in printed.splitlines() if line.startswith("epoch")]
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert "validation loss" in printed and "K = " in printed
    assert evalfile.load(net).startswith("NNUE network net.nnue (")
    assert isinstance(evaluate(Board()), int)


def _children(pid):
    """Process ids whose parent is pid (Linux /proc)."""
    import os
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _datagen_with_workers(out, stderr):
    """A tuong-datagen process on two local workers, once it has written
    records: (the process, its worker pids)."""
    import os
    import subprocess
    import sys
    import time
    if not os.path.isdir("/proc"):
        pytest.skip("needs /proc to see the worker processes")
    proc = subprocess.Popen([sys.executable, "-m", "tuong.tools.training.datagen",
                             "--out", str(out), "--positions", "10000000", "--nodes", "300",
                             "--concurrency", "2"],
                            stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (out.exists() and dataset.count(out) > 0):
        time.sleep(0.2)
    workers = [p for p in _children(proc.pid) if "spawn_main" in
               open(f"/proc/{p}/cmdline").read()]
    return proc, workers


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_stopping_datagen_leaves_no_worker_behind(tmp_path, how):
    import signal
    import subprocess
    import time
    out = tmp_path / "pos.bin"
    proc, workers = _datagen_with_workers(out, subprocess.DEVNULL)
    try:
        assert len(workers) == 2
        proc.send_signal(getattr(signal, how))
        proc.wait(timeout=30)
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers)
        assert (out.stat().st_size - 16) % dataset.RECORD_SIZE == 0 or how == "SIGKILL"
    finally:
        proc.kill()


def _positions(tmp_path, count=3000, seed=7):
    """A positions file of `count` records made from random legal positions
    (training needs data, not good data; self-play would take longer)."""
    rng = random.Random(seed)
    path = tmp_path / "many.bin"
    records = []
    for _ in range(count):
        board = random_board(rng, rng.randint(0, 60))
        records.append(dataset.pack(dataset.squares_of_fen(board.fen()),
                                    rng.randint(-600, 600), rng.choice((-1, 0, 1)),
                                    0 if board.turn == "w" else 1))
    path.write_bytes(dataset.header() + b"".join(records))
    return path


def test_a_dead_local_worker_ends_the_run_with_a_word_not_a_traceback(tmp_path):
    """A worker killed (out of memory, by hand): the run stops, says what
    happened and how to go on, and the file holds whole tasks only."""
    import os
    import signal
    import subprocess
    out = tmp_path / "pos.bin"
    proc, workers = _datagen_with_workers(out, subprocess.PIPE)
    try:
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err[-2000:]
        assert "a worker process died" in err and "Traceback" not in err
        assert (out.stat().st_size - dataset.HEADER.size) % dataset.RECORD_SIZE == 0
    finally:
        proc.kill()


def test_read_range_is_a_slice_of_the_whole(tmp_path):
    np = need_module("numpy")
    path = _positions(tmp_path, 500)
    whole = dataset.read(path)
    part = dataset.read_range(path, 123, 200)
    for key in whole:
        assert np.array_equal(part[key], whole[key][123:323])


@pytest.mark.parametrize("mix", [0, 64, 2000, 5000])
def test_an_epochs_chunks_cover_the_training_data_once(mix):
    """Chunks in a random order, each a stretch of the files; or, mixed,
    blocks dealt among as many chunks of about the same size, each drawing
    on the whole data (a block larger than a chunk is cut to one)."""
    np = need_module("numpy")
    from tuong.tools.training import train
    rng = np.random.default_rng(1)
    chunks = train.deal_chunks(rng, 10_050, 2_500, mix)
    covered = sorted(p for ranges in chunks for start, stop in ranges for p in range(start, stop))
    assert covered == list(range(10_050))
    # Blocks of 2,000 fit one to a chunk of 2,500: six chunks, not five of up to 4,000.
    assert len(chunks) == (6 if mix == 2000 else 5)
    sizes = [sum(stop - start for start, stop in ranges) for ranges in chunks]
    assert max(sizes) <= 2_500
    if mix == 64:
        assert max(sizes) - min(sizes) <= 64
        for ranges in chunks:                   # every chunk reaches both ends of the data
            assert ranges == sorted(ranges)
            assert ranges[0][0] < 2_500 and ranges[-1][0] >= 7_500
    elif mix in (0, 5000):                      # stretches, in a shuffled order
        assert all(len(ranges) == 1 for ranges in chunks)
        assert [ranges[0][0] % 2_500 for ranges in chunks] == [0] * 5
        assert [ranges[0][0] for ranges in chunks] != sorted(ranges[0][0] for ranges in chunks)
    assert train.deal_chunks(rng, 900, 2_500, mix) == [[(0, 900)]]


@pytest.mark.parametrize("mix", [0, 64])
def test_the_newest_positions_train_last_in_every_epoch(mix):
    """--newest N: the chunks of the last N training positions come after
    all the others, every epoch, in an order of their own; together the
    chunks still cover the data once, none larger than a chunk."""
    np = need_module("numpy")
    from tuong.tools.training import train
    rng = np.random.default_rng(1)
    orders = []
    for _ in range(4):
        chunks = train.deal_chunks(rng, 10_050, 2_500, mix, newest=6_000)
        covered = sorted(p for ranges in chunks for a, b in ranges for p in range(a, b))
        assert covered == list(range(10_050))
        assert max(sum(b - a for a, b in ranges) for ranges in chunks) <= 2_500
        newest = [all(a >= 4_050 for a, _ in ranges) for ranges in chunks]
        older = [all(b <= 4_050 for _, b in ranges) for ranges in chunks]
        assert newest == [False] * 2 + [True] * 3 and older == [True] * 2 + [False] * 3
        orders.append(chunks[2:])
    assert any(order != orders[0] for order in orders)
    assert train.deal_chunks(rng, 900, 2_500, mix, newest=300) == [[(0, 600)], [(600, 900)]]
    assert train.deal_chunks(rng, 900, 2_500, mix, newest=5_000) == [[(0, 900)]]


@pytest.mark.parametrize("layer, mix, newest", [(0, 0, 0), (8, 0, 0), (0, 100, 0), (0, 0, 1500)],
                         ids=["plain", "hidden-layer", "mixed-chunks", "newest-last"])
def test_training_in_chunks_stopped_and_resumed_is_the_same_training(tmp_path, capsys,
                                                                     monkeypatch, layer, mix,
                                                                     newest):
    """Data read a chunk at a time, and a run interrupted after its second
    epoch then resumed from its checkpoint, give the very network of the run
    that went through; a resume with other settings is refused."""
    need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    data = _positions(tmp_path)
    common = [str(data), "--epochs", "4", "--hidden", "16", "--batch", "256",
              "--chunk", "1000", "--seed", "3", "--layer", str(layer), "--mix", str(mix),
              "--newest", str(newest)]
    straight, resumed = tmp_path / "straight.nnue", tmp_path / "resumed.nnue"
    assert train.main(common + ["-o", str(straight)]) == 0
    printed = capsys.readouterr().out
    assert "in chunks of 1,000 positions" in printed
    assert sum(line.startswith("epoch ") for line in printed.splitlines()) == 4

    save = train.Run.save

    def save_then_stop(run, path):
        save(run, path)
        if run.epoch == 2:
            raise KeyboardInterrupt
    monkeypatch.setattr(train.Run, "save", save_then_stop)
    assert train.main(common + ["-o", str(resumed)]) == 130
    assert not resumed.exists() and (tmp_path / "resumed.nnue.ckpt").exists()
    monkeypatch.setattr(train.Run, "save", save)
    assert train.main(common + ["-o", str(resumed), "--resume"]) == 0
    assert "resuming after epoch 2 of 4" in capsys.readouterr().out
    assert resumed.read_bytes() == straight.read_bytes()
    net = network.read(resumed)
    assert net.layer == layer and ("layer 8" in net.description) == bool(layer)
    assert evalfile.load(resumed).startswith("NNUE network resumed.nnue (")
    with pytest.raises(SystemExit):
        train.main([str(data), "--epochs", "4", "--hidden", "32", "--batch", "256",
                    "--chunk", "1000", "--seed", "3", "--layer", str(layer), "--mix", str(mix),
                    "--newest", str(newest), "-o", str(resumed), "--resume"])
    assert "hidden differ" in capsys.readouterr().err


def test_a_resume_with_more_epochs_moves_the_learning_rate_cut(tmp_path, monkeypatch):
    """A run of 2 epochs (its last at lr/3) resumed to 6: epochs 3 and 4 go
    back to the full rate, the cut comes at epoch 5 as for a 6-epoch run;
    and data that grew since read to the same --limit are the same data."""
    np = need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    data = _positions(tmp_path)
    net = tmp_path / "r.nnue"
    common = [str(data), "-o", str(net), "--hidden", "16", "--batch", "256", "--seed", "3",
              "--limit", "3000", "--lr", "0.002"]
    assert train.main(common + ["--epochs", "2"]) == 0
    with open(data, "ab") as f:                        # datagen went on meanwhile
        f.write(data.read_bytes()[dataset.HEADER.size:dataset.HEADER.size + 32 * 100])
    seen = {}
    save = train.Run.save

    def record(run, path):
        seen[run.epoch] = run.opt.lr
        save(run, path)
    monkeypatch.setattr(train.Run, "save", record)
    assert train.main(common + ["--epochs", "6", "--resume"]) == 0
    assert seen == {3: 0.002, 4: 0.002, 5: 0.002 / 3, 6: 0.002 / 3}
    with np.load(str(net) + ".ckpt") as saved:
        assert saved["param0"].shape == (1260, 16)


def test_one_run_a_network_and_a_cut_checkpoint_is_refused_in_words(tmp_path, capsys):
    """A second run on the same network (its checkpoint lock held) stops at
    once; a checkpoint cut short (a full disk) is named, no traceback."""
    import fcntl
    need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    data = _positions(tmp_path, 500)
    net = tmp_path / "n.nnue"
    common = [str(data), "-o", str(net), "--hidden", "16", "--batch", "256", "--epochs", "1"]
    with open(str(net) + ".ckpt.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SystemExit):
            train.main(common)
    assert "another run is training" in capsys.readouterr().err and not net.exists()
    assert train.main(common) == 0                     # the lock gone with its holder
    checkpoint = pathlib.Path(str(net) + ".ckpt")
    checkpoint.write_bytes(checkpoint.read_bytes()[:300])
    with pytest.raises(SystemExit):
        train.main(common + ["--resume"])
    assert "cannot be read" in capsys.readouterr().err


def test_the_piece_square_path_learns_at_its_own_rate(tmp_path, capsys):
    """At --lr its centipawns hardly move; --psqt-rate 400 lets them learn
    at the output's scale; the rate is part of the run (a resume with
    another is refused) and of the network's description."""
    np = need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    data = _positions(tmp_path, 1000)
    start = train.hand_crafted_psqt()
    moved = {}
    for rate in ("1", "400"):
        net = tmp_path / f"p{rate}.nnue"
        assert train.main([str(data), "-o", str(net), "--hidden", "16", "--batch", "256",
                           "--epochs", "2", "--psqt-rate", rate]) == 0
        with np.load(str(net) + ".ckpt") as saved:
            moved[rate] = float(np.abs(saved["param2"] - start).max())
        assert ("psqt rate 400" in network.read(net).description) == (rate == "400")
    assert moved["1"] < 0.02 and moved["400"] > 100 * moved["1"], moved   # 16 steps
    with pytest.raises(SystemExit):
        train.main([str(data), "-o", str(tmp_path / "p400.nnue"), "--hidden", "16",
                    "--batch", "256", "--epochs", "3", "--resume"])
    assert "psqt_rate differ" in capsys.readouterr().err


def test_datagen_cuts_records_its_journal_does_not_account_for(tmp_path):
    from tuong.tools.training import selfplay
    path = tmp_path / "j.bin"
    record = _positions(tmp_path, 10).read_bytes()[dataset.HEADER.size:]
    path.write_bytes(dataset.header() + record * 2)           # 20 records, 15 journaled
    (tmp_path / "j.bin.tasks").write_text(
        '{"seed": 1, "offset": 5, "positions": 6, "games": 1}\n'
        '{"seed": 2, "offset": 11, "positions": 4, "games": 1}\n'
        '{"seed": 3, "offset": 15, "positions": 9, "games": 1}\n'   # past the file: dropped
        '{"seed": 4, "off')                                          # cut short
    out, have = dataset.open_for_append(path)
    with out:
        assert selfplay._agree_with_journal(out, have) == 15
    assert dataset.count(path) == 15
    assert len((tmp_path / "j.bin.tasks").read_text().splitlines()) == 2
    # A run killed while writing its first task: its start says where the
    # accounted records end, so its partial records go too.
    path.write_bytes(dataset.header() + record)                   # 10 records
    (tmp_path / "j.bin.tasks").write_text('{"start": 4}\n')
    out, have = dataset.open_for_append(path)
    with out:
        assert selfplay._agree_with_journal(out, have) == 4
    assert dataset.count(path) == 4


def test_two_runs_on_one_file_are_refused(tmp_path):
    """The journal is locked while a run writes: a second run on the same
    file stops at once instead of writing over the first's records."""
    import fcntl
    path = tmp_path / "l.bin"
    journal = open(str(path) + ".tasks", "a")
    fcntl.flock(journal, fcntl.LOCK_EX)                           # a run under way
    try:
        with pytest.raises(SystemExit, match="another run is writing"):
            datagen.main(["--out", str(path), "--positions", "10", "--nodes", "100",
                          "--concurrency", "1"])
    finally:
        journal.close()
    assert datagen.main(["--out", str(path), "--positions", "10", "--nodes", "100",
                         "--concurrency", "1", "--seed", "3"]) == 0
    lines = (tmp_path / "l.bin.tasks").read_text().splitlines()
    assert lines[0] == '{"start": 0}' and dataset.count(path) >= 10


def test_one_worker_running_two_tasks_at_once_gives_each_its_own_games():
    """A Dask worker with two threads runs two tasks at once: each thread
    has its own player, and a seed gives the same games as alone."""
    import threading
    from tuong.tools.training import selfplay
    settings = selfplay.Settings(nodes=150, max_plies=60)
    alone = {seed: selfplay.play_games(settings, seed, 1)[0] for seed in (21, 22)}
    together, errors = {}, []

    def play(seed):
        try:
            together[seed] = selfplay.play_games(settings, seed, 1)[0]
        except Exception as error:          # noqa: BLE001 (reported below)
            errors.append(error)
    threads = [threading.Thread(target=play, args=(seed,)) for seed in (21, 22)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and together == alone


def test_train_threads_limits_the_numeric_librarys_threads(tmp_path):
    """--threads is what lets two runs share a machine: the BLAS pools hold
    that many threads while it trains (a separate process: the limit stays)."""
    need_module("numpy")
    need_module("scipy")
    need_module("threadpoolctl")
    import subprocess
    import sys
    data = _positions(tmp_path, count=500)
    script = ("import sys\n"
              "from threadpoolctl import threadpool_info\n"
              "from tuong.tools.training import train\n"
              f"assert train.main([{str(data)!r}, '-o', {str(tmp_path / 'n.nnue')!r}, "
              "'--epochs', '1', '--hidden', '16', '--threads', '1']) == 0\n"
              "print('pools', sorted({p['num_threads'] for p in threadpool_info()}))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "pools [1]" in proc.stdout, proc.stdout


def test_a_task_installs_its_own_network_after_another_runs_task():
    """The evaluation is the worker process's: a task of another run (another
    network) in between must not leave this run's games to that network."""
    from tuong.engine import evalfile, weights
    from tuong.tools.training import selfplay
    mine = selfplay.Settings(nodes=50, max_plies=20)                 # the shipped network
    theirs = selfplay.Settings(nodes=50, max_plies=20, eval_file=str(weights.DEFAULT_PATH))
    try:
        selfplay.play_games(mine, 1, 1)
        assert "NNUE" in evalfile.describe()
        selfplay.load_eval(theirs.eval_file)          # another run's task, this process
        assert "NNUE" not in evalfile.describe()
        selfplay.play_games(mine, 2, 1)
        assert "NNUE" in evalfile.describe()
    finally:
        selfplay.load_eval("")


@pytest.mark.parametrize("shape", [["--hidden", "16"], ["--hidden", "16", "--buckets", "6"],
                                   ["--hidden", "16", "--layer", "4"]])
def test_a_network_file_is_the_float_network_it_was_made_from(tmp_path, shape):
    """Model.from_network undoes the quantisation: written again untrained,
    the same bytes (the shipped network, and each shape the trainer makes)."""
    need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    shipped = network.read(pathlib.Path(__file__).parents[1] / "networks" / "gen7.nnue")
    assert network.encode(train.Model.from_network(shipped).quantise(shipped.description)) \
        == network.encode(shipped)
    net = tmp_path / "n.nnue"
    assert train.main([str(_positions(tmp_path, 500)), "-o", str(net), "--batch", "256",
                       "--epochs", "1"] + shape) == 0
    made = network.read(net)
    assert network.encode(train.Model.from_network(made).quantise(made.description)) \
        == network.encode(made)


def test_init_fine_tunes_a_network_and_says_where_it_started(tmp_path, capsys):
    """--init starts from a network's weights: epoch 0 is its loss on the
    held-out positions, the shape is the network's (another is refused),
    and the starting network is part of the run (a resume without it is
    refused)."""
    np = need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import train
    data = _positions(tmp_path, 1000)
    start = tmp_path / "start.nnue"
    assert train.main([str(data), "-o", str(start), "--hidden", "32", "--batch", "256",
                       "--epochs", "2", "--seed", "3"]) == 0
    started = train.Model.from_network(network.read(start))
    capsys.readouterr()
    tuned = tmp_path / "tuned.nnue"
    common = [str(data), "-o", str(tuned), "--batch", "256", "--lr", "0.0001"]
    assert train.main(common + ["--epochs", "1", "--init", str(start)]) == 0
    out = capsys.readouterr().out
    assert f"epoch 0 ({start}): validation loss" in out
    assert "from start.nnue" in network.read(tuned).description
    assert network.read(tuned).hidden == 32
    with np.load(str(tuned) + ".ckpt") as saved:      # trained from there, not from scratch
        moved = float(np.abs(saved["param0"] - started.W).max())
    assert 0 < moved < 0.05, moved
    with pytest.raises(SystemExit):
        train.main(common + ["--epochs", "2", "--resume"])
    assert "init differ" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(common + ["--epochs", "1", "--init", str(start), "--hidden", "64"])
    assert "has hidden 32, not --hidden 64" in capsys.readouterr().err
    (tmp_path / "broken.nnue").write_bytes(b"TUONGNN\0" + bytes(40))
    with pytest.raises(SystemExit):
        train.main(common + ["--epochs", "1", "--init", str(tmp_path / "broken.nnue")])
    assert "--init:" in capsys.readouterr().err
