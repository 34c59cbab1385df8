"""The evaluation-tuning pipeline: the weights file (validation, loading,
EvalFile), the default weights reproducing the hand-set evaluation, the
feature trace the tuner fits, position extraction from PGN, and the tuner
itself (skipped without numpy/scipy)."""
import gzip
import json
import random
import subprocess
import sys

import pytest
from conftest import DATA, ROOT, mirror_colours, mirror_files, need_module

from tuong.engine import evalfile, weights
from tuong.engine.board import Board, PIECE_VALUES, _trace_fens, eval_features, evaluate
from tuong.engine.evaluate import current_weights, load_weights


def reference_positions():
    """[(fen, evaluate())] recorded before the weights file existed (at
    89f3cf1): positions of seeded random playouts from the start."""
    with gzip.open(DATA / "eval_reference.txt.gz", "rt") as f:
        rows = [line.rsplit(" ", 1) for line in f if not line.startswith("#")]
    return [(fen, int(value)) for fen, value in rows]


REFERENCE = reference_positions()
HANDSET = DATA / "handset-weights.json"       # the weights before tuning (89f3cf1)


def perturbed(seed=1, spread=30):
    """The default weights with every tunable one moved at random."""
    rng = random.Random(seed)
    data = weights.default()
    values = [v + rng.randint(-spread, spread) for v in weights.vector(data)]
    return weights.with_vector(data, values, comment="perturbed for a test")


def red_view(board):
    return evaluate(board) * (1 if board.turn == "w" else -1)


# -- the weights file --------------------------------------------------------

def test_the_hand_set_weights_reproduce_the_hand_set_evaluation(restore_weights):
    # The evaluation read from a file is the one that was written in code.
    load_weights(HANDSET)
    assert len(REFERENCE) == 3000
    for fen, value in REFERENCE:
        assert evaluate(Board(fen)) == value, fen


def test_the_default_weights_are_loaded_at_start():
    Board()
    assert current_weights() == weights.default() == weights.read(weights.DEFAULT_PATH)
    assert weights.default() != weights.read(HANDSET)         # the tuned file


def test_importing_the_core_reads_no_weights_the_first_board_does():
    """Importing the evaluation (or any module of the core) installs nothing
    and opens no file; the first board made from a FEN loads the default
    weights, once, and a session loads them when it starts."""
    code = """if True:
        import sys
        opened = []
        sys.addaudithook(lambda event, args: opened.append(str(args[0]))
                         if event == "open" and str(args[0]).endswith((".json", ".nnue"))
                         else None)
        import tuong.engine.evaluate, tuong.engine.board, tuong.engine.search, tuong.engine.games
        from tuong.engine import weights
        assert tuong.engine.evaluate.current_weights() is None and opened == [], opened
        tuong.engine.board.Board()
        tuong.engine.board.Board("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
        assert opened == [str(weights.DEFAULT_PATH)], opened
        assert tuong.engine.evaluate.current_weights() == weights.default()
        from tuong.protocol.session import Session
        from tuong.engine import evalfile
        opened.clear()
        Session(out=lambda line: None)
        # A session starts with the shipped network (the weights are loaded
        # already); its magic is read first, then the file.
        assert set(opened) == {str(evalfile.DEFAULT_NETWORK)}, opened
        print("ok")
    """
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_hand_set_material_is_the_nominal_piece_values():
    material = weights.read(HANDSET)["material"]
    assert material == {letter: PIECE_VALUES[letter] for letter in "ABNRCP"}


def test_weights_file_round_trips(tmp_path):
    data = perturbed()
    weights.write(data, tmp_path / "w.json")
    assert weights.read(tmp_path / "w.json") == data
    assert len(weights.vector(data)) == len(weights.FEATURES) == len(weights.bounds())
    assert weights.with_vector(data, weights.vector(data)) == data


def _broken(edit):
    data = weights.default()
    edit(data)
    return data


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.pop("tempo"), ["missing key 'tempo'"]),
    (lambda d: d.update(tempoo=1), ["unknown key 'tempoo'"]),
    (lambda d: d.update(format="v0"), ["'format'"]),
    (lambda d: d.update(tempo=10.5), ["tempo", "integer", "10.5"]),
    (lambda d: d.update(tempo=True), ["tempo", "integer"]),
    (lambda d: d.update(rook_mobility=1000), ["rook_mobility", "-100..100", "1000"]),
    (lambda d: d["material"].pop("R"), ["material", "A, B, N, R, C, P"]),
    (lambda d: d["material"].update(R=-5), ["material.R", "0..5000"]),
    (lambda d: d.update(horse_mobility=[0] * 8), ["horse_mobility", "9 integers"]),
    (lambda d: d["piece_square"]["N"].pop(), ["piece_square.N", "10 rows"]),
    (lambda d: d["piece_square"]["N"][2].append(0), ["piece_square.N rank 7", "5 entries"]),
    (lambda d: d["piece_square"]["P"][0].__setitem__(4, "x"), ["piece_square.P.e9"]),
    (lambda d: d["attack_penalty"].__setitem__(3, -1), ["attack_penalty[3]", "0..2000"]),
    (lambda d: d.update(comment=5), ["comment"]),
])
def test_bad_weights_are_refused_naming_the_problem(tmp_path, edit, words, restore_weights):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(edit)))
    before = [red_view(Board(fen)) for fen, _ in REFERENCE[:50]]
    with pytest.raises(weights.WeightsError) as err:
        load_weights(path)
    for word in words:
        assert word in str(err.value), str(err.value)
    assert str(path) in str(err.value)
    # Nothing was installed.
    assert [red_view(Board(fen)) for fen, _ in REFERENCE[:50]] == before


def test_unreadable_weights_files(tmp_path):
    with pytest.raises(weights.WeightsError, match="cannot read weights file"):
        weights.read(tmp_path / "missing.json")
    (tmp_path / "t.json").write_text("{ not json")
    with pytest.raises(weights.NotJSONError, match="not JSON"):
        weights.read(tmp_path / "t.json")
    # Bytes that are not text at all are not JSON either (evalfile then names both kinds).
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(weights.NotJSONError, match="not JSON"):
        weights.read(tmp_path / "b.bin")
    with pytest.raises(weights.WeightsError, match="neither a network"):
        evalfile.load(tmp_path / "b.bin")
    (tmp_path / "l.json").write_text("[]")
    with pytest.raises(weights.WeightsError, match="JSON object"):
        weights.read(tmp_path / "l.json")


def test_loading_weights_changes_the_evaluation_and_rescore_follows(tmp_path, restore_weights):
    board = Board(REFERENCE[7][0])
    before = evaluate(board)
    data = perturbed()
    weights.write(data, tmp_path / "w.json")
    load_weights(tmp_path / "w.json")
    assert current_weights() == data
    fresh = evaluate(Board(board.fen()))
    assert fresh != before
    assert evaluate(board) != fresh          # still summed from the old tables
    board._rescore()
    assert evaluate(board) == fresh
    load_weights()
    assert evaluate(Board(board.fen())) == before


# -- the trace and the symmetry ---------------------------------------------

def _assert_trace_identity(positions, data):
    w = weights.vector(data)
    for fen in positions:
        board = Board(fen)
        features, residual = eval_features(board)
        assert abs(residual) < 1
        assert sum(w[i] * c for i, c in features) + residual == red_view(board), fen


def test_trace_identity_on_thousands_of_positions():
    _assert_trace_identity([fen for fen, _ in REFERENCE], weights.default())


def test_trace_identity_with_other_weights(restore_weights, tmp_path):
    data = perturbed(seed=2, spread=60)
    weights.write(data, tmp_path / "w.json")
    load_weights(tmp_path / "w.json")
    _assert_trace_identity([fen for fen, _ in REFERENCE[::3]], data)


def test_trace_fens_is_eval_features_in_bulk():
    from array import array
    fens = [fen for fen, _ in REFERENCE[:200]]
    room = 64 * len(fens)
    indices, values = array("i", [0] * room), array("d", [0.0] * room)
    starts, residuals = array("q", [0] * (len(fens) + 1)), array("d", [0.0] * len(fens))
    used = _trace_fens(fens, indices, values, starts, residuals)
    assert used == starts[-1]
    for i, fen in enumerate(fens):
        features, residual = eval_features(Board(fen))
        row = slice(starts[i], starts[i + 1])
        assert list(zip(indices[row], values[row])) == features
        assert residuals[i] == residual
    with pytest.raises(ValueError, match="position 1"):
        _trace_fens([fens[0], "bad"], indices, values, starts, residuals)


@pytest.mark.parametrize("seed", [None, 3])
def test_evaluation_is_mirror_symmetric(seed, tmp_path, restore_weights):
    if seed is not None:
        weights.write(perturbed(seed, spread=80), tmp_path / "w.json")
        load_weights(tmp_path / "w.json")
    for fen, _ in REFERENCE[::5]:
        value = evaluate(Board(fen))
        assert evaluate(Board(mirror_colours(fen))) == value, fen
        assert evaluate(Board(mirror_files(fen))) == value, fen


# -- EvalFile in the engine process ------------------------------------------

def _depth1_score(e, extra=""):
    e.send("position startpos" + extra)
    e.send("go depth 1")
    score = int(e.expect(r"info depth 1 .*?score cp (-?\d+)").group(1))
    e.expect("bestmove")
    return score


def test_evalfile_option_over_uci_and_ucci(engine_env, tmp_path):
    from conftest import EngineProcess
    good = weights.default()
    good["tempo"] = 90
    weights.write(good, tmp_path / "tempo.json")
    (tmp_path / "bad.json").write_text(json.dumps({**good, "tempo": "x"}))
    # What the search in this process scores with each file.
    from tuong.engine.search import Searcher
    board = Board()
    board.push("h2e2")
    expected = []
    try:
        for path in (weights.DEFAULT_PATH, tmp_path / "tempo.json"):
            load_weights(path)
            expected.append(Searcher(16).search(Board(board.fen()), depth=1).score)
    finally:
        load_weights()
    expected = tuple(expected)

    e = EngineProcess(engine_env)
    try:
        e.send("uci")
        e.expect("uciok")
        assert "option name EvalFile type string default <default>" in e.before
        # One thread, as in this process: helpers can change even a depth-1 score.
        e.send("setoption name Threads value 1")
        # The hand-crafted evaluation (the default is the network).
        e.send(f"setoption name EvalFile value {weights.DEFAULT_PATH}")
        before = _depth1_score(e, " moves h2e2")
        e.send(f"setoption name EvalFile value {tmp_path / 'tempo.json'}")
        after = _depth1_score(e, " moves h2e2")
        assert after != before
        assert (before, after) == expected
        # A bad or missing file: an error, and the engine goes on with the last good one.
        e.error_for(f"setoption name EvalFile value {tmp_path / 'bad.json'}",
                    "tempo", "integer", "option unchanged")
        e.error_for(f"setoption name EvalFile value {tmp_path / 'none.json'}",
                    "cannot read weights file", "option unchanged")
        (tmp_path / "games.pgn").write_text('[Event "x"]\n\n1. h2e2 *\n')
        e.error_for(f"setoption name EvalFile value {tmp_path / 'games.pgn'}",
                    "neither a network (.nnue) nor a weights file", "option unchanged")
        assert e.roundtrip("isready", "readyok") < 2
        assert _depth1_score(e, " moves h2e2") == after
        # Refused during a search; the board in use is rescored when it loads.
        e.send("position startpos moves h2e2 h9g7")
        e.send("go infinite")
        e.error_for("setoption name EvalFile value <default>", "during a search")
        e.send("stop")
        e.expect("bestmove")
        e.send("setoption name EvalFile value <default>")
        e.send("go depth 1")
        restored = int(e.expect(r"info depth 1 .*?score cp (-?\d+)").group(1))
        e.expect("bestmove")
        assert restored == _depth1_score(e, " moves h2e2 h9g7")
        assert e.close() == 0
    finally:
        if e.child.proc.poll() is None:
            e.child.proc.kill()

    e = EngineProcess(engine_env)
    try:
        e.send("ucci")
        e.expect("ucciok")
        assert "option evalfile type string default <default>" in e.before
        e.send("setoption threads 1")
        e.send(f"setoption evalfile {tmp_path / 'tempo.json'}")
        e.send("position startpos moves h2e2")
        e.send("go depth 1")
        assert int(e.expect(r"info depth 1 score (-?\d+)").group(1)) == after
        e.expect("bestmove")
    finally:
        if e.child.proc.poll() is None:
            e.child.proc.kill()


# -- data: openings, self-play, positions -----------------------------------

def test_openings_are_reproducible_balanced_and_distinct():
    import tuong.engine.search  # noqa: F401  (a broken build must fail, not skip)
    from tuong.tools.match import openings
    lines = openings.generate(6, plies=(4, 8), depth=3, margin=60, seed=5)
    assert lines == openings.generate(6, plies=(4, 8), depth=3, margin=60, seed=5)
    assert len({" ".join(fen.split()[:2]) for fen, _, _ in lines}) == 6
    for fen, moves, score in lines:
        board = Board()
        for move in moves:
            board.push(move)
        assert board.fen() == fen and 4 <= len(moves) <= 8 and abs(score) <= 60
        assert not board.in_check()


def test_datagen_builds_the_match_and_passes_extra_arguments(capsys):
    from tuong.tools.training import datagen
    assert datagen.main(["--openings", "o.epd", "--pgnout", "g.pgn", "--games", "10",
                         "--nodes", "1000", "--engine", "tuong", "--dry-run",
                         "--option", "EvalFile=/w.json", "-cluster", "host:9"]) == 0
    line = capsys.readouterr().out.split()
    assert line[0] == "tuong-match"
    for words in (["name=tuong-a", "cmd=tuong", "nodes=1000"], ["name=tuong-b", "cmd=tuong",
                  "nodes=1250"], ["file=o.epd", "format=epd", "order=random"],
                  ["-games", "10"], ["-pgnout", "g.pgn"], ["-cluster", "host:9"],
                  ["option.EvalFile=/w.json"]):
        i = line.index(words[0])
        assert line[i:i + len(words)] == words
    datagen.main(["--openings", "o.epd", "--pgnout", "g.pgn", "--depth", "4", "--dry-run",
                  "--", "-concurrency", "2"])
    line = capsys.readouterr().out.split()
    assert "depth=4" in line and "depth=5" in line and line[-2:] == ["-concurrency", "2"]


GAME = """[Event "t"]
[Result "0-1"]
[Termination "checkmate"]

1. h2e2 {book} h9g7 {book} 2. h0g2 {+0.20/5 0.010s} i9h9 {+0.40/5 0.010s}
3. i0h0 {-M3/5 0.010s} b9c7 {-0.10/6 0.010s} 4. b0c2 {0.020s} {a second comment}
a9b9 {+0.05/6 0.01s} 0-1

"""


def test_extraction_labels_and_skips():
    from tuong.tools.records import pgn
    from tuong.tools.training import positions
    games = pgn.read_annotated_games(GAME + GAME.replace("checkmate", "time forfeit")
                                     + GAME + GAME.replace("0-1", "*").replace("checkmate", ""))
    assert games[0][1][6] == ("b0c2", "0.020s")
    extractor = positions.Extractor(skip_plies=1, end_plies=10)
    lines = [line for game in games for line in extractor.game(*game)]
    assert [line.split()[2:] for line in lines] == [
        ["0", "20"], ["0", "-40"], ["0", "-10000"], ["0", "10"], ["0", "-"], ["0", "-5"]]
    board = Board()
    for move in ("h2e2", "h9g7"):
        board.push(move)
    assert lines[0].split()[:2] == board.fen().split()[:2]
    assert extractor.skipped["book move"] == 2 and extractor.skipped["opening plies"] == 2
    assert extractor.skipped["game not played out"] == 2 and extractor.skipped["repeat"] == 6
    assert pgn.read_games(GAME)[0][1][:3] == ["h2e2", "h9g7", "h0g2"]


def test_extraction_leaves_out_checks_captures_and_the_end_of_cut_short_games():
    from tuong.engine.board import static_exchange_at_least
    from tuong.tools.training import positions
    rng = random.Random(4)
    games = []
    for _ in range(20):
        board, moves = Board(), []
        while len(moves) < 120 and not board.is_game_over():
            move = rng.choice(board.legal_moves())
            moves.append((move, f"{rng.randint(-300, 300) / 100:+.2f}/3 0.001s"))
            board.push(move)
        games.append(({"Termination": "adjudication"}, moves, "1/2-1/2"))
    extractor = positions.Extractor(skip_plies=6, end_plies=12)
    lines = []
    for tags, moves, result in games:
        positions_of_game = {}
        board = Board()
        for ply, (move, _) in enumerate(moves):
            positions_of_game.setdefault(" ".join(board.fen().split()[:2]), ply)
            board.push(move)
        for line in extractor.game(tags, moves, result):
            fen = " ".join(line.split()[:2])
            assert 6 <= positions_of_game[fen] < len(moves) - 12
            lines.append(line)
    assert len(lines) == len({" ".join(line.split()[:2]) for line in lines}) > 100
    for line in lines:
        board = Board(" ".join(line.split()[:2]))
        assert line.split()[2] == "0.5"
        assert not board.in_check()
        # (A quiet move never gains by SEE: this is every capture.)
        assert not any(static_exchange_at_least(board, m, 1) for m in board.legal_moves())
    assert extractor.skipped["in check"] > 0 and extractor.skipped["pending capture"] > 0


# -- the tuner ----------------------------------------------------------------

SAMPLE = ROOT / "tools" / "data" / "sample-positions.txt.gz"


def test_tuner_lowers_the_training_loss(tmp_path, restore_weights, capsys):
    need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import tune
    out = tmp_path / "new.json"
    assert tune.main([str(SAMPLE), "-o", str(out), "--limit", "4000", "--iterations", "40",
                      "--report", "20", "--lambda", "0.3"]) == 0
    text = capsys.readouterr().out
    before = float(text.split("loss before: train ")[1].split()[0])
    after = float(text.split("rounded:     train ")[1].split()[0])
    assert after < before - 0.001, text
    assert "iteration   20" in text and "K = " in text
    new = weights.read(out)
    assert new != weights.default() and "tuong-tune" in new["comment"]
    for key in ("attack_weight", "missing_advisor", "missing_elephant"):
        assert new[key] == weights.default()[key]
    load_weights(out)
    _assert_trace_identity([fen for fen, _ in REFERENCE[:300]], new)


def test_tuner_refuses_bad_input(tmp_path, capsys):
    need_module("scipy")
    from tuong.tools.training import tune
    (tmp_path / "p.txt").write_text(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w 2 -\n")
    with pytest.raises(SystemExit) as refused:
        tune.main([str(tmp_path / "p.txt")])
    assert refused.value.code == 2
    assert "result must be 1, 0.5 or 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune.main([str(tmp_path / "p.txt"), "--freeze", "attack_weight"])
