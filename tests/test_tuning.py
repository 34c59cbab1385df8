"""The evaluation-tuning pipeline: the weights file (validation, loading,
EvalFile), the default weights reproducing the hand-set evaluation, the
feature trace the tuner fits, position extraction from PGN, and the tuner
itself (skipped without numpy/scipy)."""
import copy
import gzip
import json
import random

import pytest
from conftest import DATA, ROOT

from engine import weights
from engine.board import Board, PIECE_VALUES, eval_features, evaluate, trace_fens


def reference_positions():
    """[(fen, evaluate())] recorded before the weights file existed (at
    89f3cf1): positions of seeded random playouts from the start."""
    with gzip.open(DATA / "eval_reference.txt.gz", "rt") as f:
        rows = [line.rsplit(" ", 1) for line in f if not line.startswith("#")]
    return [(fen, int(value)) for fen, value in rows]


REFERENCE = reference_positions()


@pytest.fixture
def restore_weights():
    yield
    weights.load()


def perturbed(seed=1, spread=30):
    """The default weights with every tunable one moved at random."""
    rng = random.Random(seed)
    data = weights.default()
    values = [v + rng.randint(-spread, spread) for v in weights.vector(data)]
    return weights.with_vector(data, values, comment="perturbed for a test")


def red_view(board):
    return evaluate(board) * (1 if board.turn == "w" else -1)


# -- the weights file --------------------------------------------------------

def test_default_weights_reproduce_the_hand_set_evaluation():
    assert len(REFERENCE) == 3000
    for fen, value in REFERENCE:
        assert evaluate(Board(fen)) == value, fen


def test_default_material_is_the_nominal_piece_values():
    material = weights.default()["material"]
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
        weights.load(path)
    for word in words:
        assert word in str(err.value), str(err.value)
    assert str(path) in str(err.value)
    # Nothing was installed.
    assert [red_view(Board(fen)) for fen, _ in REFERENCE[:50]] == before


def test_unreadable_weights_files(tmp_path):
    with pytest.raises(weights.WeightsError, match="cannot read weights file"):
        weights.read(tmp_path / "missing.json")
    (tmp_path / "t.json").write_text("{ not json")
    with pytest.raises(weights.WeightsError, match="not JSON"):
        weights.read(tmp_path / "t.json")
    (tmp_path / "l.json").write_text("[]")
    with pytest.raises(weights.WeightsError, match="JSON object"):
        weights.read(tmp_path / "l.json")


def test_loading_weights_changes_the_evaluation_and_rescore_follows(tmp_path, restore_weights):
    board = Board(REFERENCE[7][0])
    before = evaluate(board)
    data = perturbed()
    weights.write(data, tmp_path / "w.json")
    weights.load(tmp_path / "w.json")
    assert weights.current() == data
    fresh = evaluate(Board(board.fen()))
    assert fresh != before
    assert evaluate(board) != fresh          # still summed from the old tables
    board.rescore()
    assert evaluate(board) == fresh
    weights.load()
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
    weights.load(tmp_path / "w.json")
    _assert_trace_identity([fen for fen, _ in REFERENCE[::3]], data)


def test_trace_fens_is_eval_features_in_bulk():
    from array import array
    fens = [fen for fen, _ in REFERENCE[:200]]
    room = 64 * len(fens)
    indices, values = array("i", [0] * room), array("d", [0.0] * room)
    starts, residuals = array("q", [0] * (len(fens) + 1)), array("d", [0.0] * len(fens))
    used = trace_fens(fens, indices, values, starts, residuals)
    assert used == starts[-1]
    for i, fen in enumerate(fens):
        features, residual = eval_features(Board(fen))
        row = slice(starts[i], starts[i + 1])
        assert list(zip(indices[row], values[row])) == features
        assert residuals[i] == residual
    with pytest.raises(ValueError, match="position 1"):
        trace_fens([fens[0], "bad"], indices, values, starts, residuals)


def mirror_colours(fen):
    placement, side = fen.split()[:2]
    ranks = placement.split("/")[::-1]
    return "/".join(r.swapcase() for r in ranks) + (" b" if side == "w" else " w")


def mirror_files(fen):
    placement, side = fen.split()[:2]
    return "/".join(r[::-1] for r in placement.split("/")) + " " + side


@pytest.mark.parametrize("seed", [None, 3])
def test_evaluation_is_mirror_symmetric(seed, tmp_path, restore_weights):
    if seed is not None:
        weights.write(perturbed(seed, spread=80), tmp_path / "w.json")
        weights.load(tmp_path / "w.json")
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
    pytest.importorskip("pexpect")
    from test_protocol_uci import EngineProcess
    good = weights.default()
    good["tempo"] = 90
    weights.write(good, tmp_path / "tempo.json")
    (tmp_path / "bad.json").write_text(json.dumps({**good, "tempo": "x"}))
    # What the search in this process scores with each file.
    from engine.search import Searcher
    board = Board()
    board.push("h2e2")
    expected = []
    try:
        for path in (weights.DEFAULT_PATH, tmp_path / "tempo.json"):
            weights.load(path)
            expected.append(Searcher(16).search(Board(board.fen()), depth=1).score)
    finally:
        weights.load()
    expected = tuple(expected)

    e = EngineProcess(engine_env)
    try:
        e.send("uci")
        e.expect("uciok")
        assert "option name EvalFile type string default <default>" in e.before
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
        e.send(f"setoption evalfile {tmp_path / 'tempo.json'}")
        e.send("position startpos moves h2e2")
        e.send("go depth 1")
        assert int(e.expect(r"info depth 1 score (-?\d+)").group(1)) == after
        e.expect("bestmove")
    finally:
        if e.child.proc.poll() is None:
            e.child.proc.kill()
