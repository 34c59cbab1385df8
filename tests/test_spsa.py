"""tuong-spsa: the search's tunable parameters as options (only under
TUONG_TUNE), the SPSA arithmetic, a run that stops and goes on, and a few
real iterations through tuong-match."""
import json
import re

import pytest

from conftest import EngineProcess, engine_env  # noqa: F401  (the fixture)

from tuong.engine import tree
from tuong.tools.training import spsa

START = "position startpos moves h2e2 h9g7"


def nodes_at_depth(process, depth=8):
    process.send("ucinewgame")                         # nothing learnt before counts
    process.send(START)
    process.send(f"go depth {depth}")
    process.expect("bestmove")
    return int(re.findall(r" nodes (\d+)", process.before)[-1])


def test_the_parameters_are_options_only_for_a_tuning_run(engine_env):  # noqa: F811
    for off in ({}, {"TUONG_TUNE": "0"}, {"TUONG_TUNE": ""}):
        plain = EngineProcess(dict(engine_env, **off))
        plain.send("uci")
        plain.expect("uciok")
        assert "RfpMargin" not in plain.before, off
        plain.close()

    tuning = EngineProcess(dict(engine_env, TUONG_TUNE="1"))
    tuning.send("uci")
    tuning.expect("uciok")
    for name, (default, low, high) in tree.TUNABLE.items():
        assert f"option name {name} type spin default {default} min {low} max {high}" \
            in tuning.before, name
    tuning.send("isready")
    tuning.expect("readyok")
    base = nodes_at_depth(tuning)
    tuning.send("setoption name RfpMargin value 40")
    tuning.send("setoption name LmrBase value 150")
    assert nodes_at_depth(tuning) != base              # the search took them
    tuning.send("setoption name RfpMargin value 9999")  # out of range: refused, kept
    tuning.send("setoption name RfpMargin value 110")
    tuning.send("setoption name LmrBase value 70")
    tuning.send("isready")
    tuning.expect("readyok")
    assert nodes_at_depth(tuning) == base              # the defaults are the search
    tuning.close()


def test_set_parameter_refuses_what_is_off_its_range():
    with pytest.raises(ValueError, match="between 40 and 250"):
        tree.set_parameter("RfpMargin", 30)
    with pytest.raises(ValueError, match="no tunable parameter"):
        tree.set_parameter("Nonsense", 1)
    assert tree.parameters()["RfpMargin"][0] == 110


def test_perturbations_stay_in_range_and_steps_shrink():
    run = spsa.Spsa([(name, None, None) for name in tree.TUNABLE], 100, 7)
    for k in (1, 50, 100):
        delta, plus, minus = run.perturbation(k)
        for name, (_, low, high) in tree.TUNABLE.items():
            assert low <= plus[name] <= high and low <= minus[name] <= high
            assert set(delta.values()) <= {-1, 1}
    assert run.perturbation(3) == run.perturbation(3)          # seeded by (seed, k)
    first, last = run.step_sizes(1), run.step_sizes(100)
    assert all(last[n][0] < first[n][0] for n in tree.TUNABLE)
    # c_end is where the perturbation ends: a twentieth of the range by default.
    low, high = tree.TUNABLE["SeeMargin"][1:]
    assert last["SeeMargin"][0] == pytest.approx((high - low) / 20)


def _toy_match(best):
    """A stand-in for the games: the side whose RfpMargin is nearer `best`
    wins both games of the pair (equal: a draw each)."""
    def play(args, plus, minus, k):
        a, b = abs(plus["RfpMargin"] - best), abs(minus["RfpMargin"] - best)
        return (2, 0, 0) if a < b else (0, 0, 2) if b < a else (0, 2, 0)
    return play


def test_theta_climbs_toward_what_wins_and_a_stopped_run_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(spsa, "play_pair", _toy_match(200))
    argv = ["--state", str(tmp_path / "a.json"), "--iterations", "60", "--param", "RfpMargin::0.1",
            "--seed", "4"]
    assert spsa.main(argv) == 0
    straight = json.loads((tmp_path / "a.json").read_text())
    assert 170 <= straight["theta"]["RfpMargin"] <= 230, straight["theta"]   # from 110
    assert "option.RfpMargin=" in capsys.readouterr().out

    calls = []

    def stop_at_20(args, plus, minus, k):
        calls.append(k)
        if k == 21:
            raise KeyboardInterrupt
        return _toy_match(200)(args, plus, minus, k)
    monkeypatch.setattr(spsa, "play_pair", stop_at_20)
    argv[1] = str(tmp_path / "b.json")
    assert spsa.main(argv) == 130
    assert json.loads((tmp_path / "b.json").read_text())["k"] == 20
    monkeypatch.setattr(spsa, "play_pair", _toy_match(200))
    assert spsa.main(argv) == 0
    assert "resuming after iteration 20 of 60" in capsys.readouterr().out
    assert json.loads((tmp_path / "b.json").read_text())["theta"] == straight["theta"]
    # Other settings on the same file are refused, not mixed in.
    with pytest.raises(SystemExit):
        spsa.main(argv[:3] + ["70"] + argv[4:])
    assert "other settings" in capsys.readouterr().err


def test_real_iterations_through_tuong_match(tmp_path):
    state = tmp_path / "real.json"
    assert spsa.main(["--state", str(state), "--iterations", "2", "--each", "nodes=200",
                      "--param", "SeeMargin", "--param", "LmpBase"]) == 0
    saved = json.loads(state.read_text())
    assert saved["k"] == 2 and [sum(h[1:]) for h in saved["history"]] == [2, 2]


def test_iterations_zero_prints_a_running_files_values_and_bad_steps_are_refused(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(spsa, "play_pair", _toy_match(200))
    state = str(tmp_path / "c.json")
    assert spsa.main(["--state", state, "--iterations", "5", "--param", "RfpMargin"]) == 0
    capsys.readouterr()
    assert spsa.main(["--state", state, "--iterations", "0", "--param", "RfpMargin"]) == 0
    assert "option.RfpMargin=" in capsys.readouterr().out
    for bad in ("RfpMargin:0", "RfpMargin:0.3", "RfpMargin:5:0"):
        with pytest.raises(SystemExit):
            spsa.main(["--state", str(tmp_path / "d.json"), "--param", bad])


def test_a_run_file_whose_theta_does_not_follow_from_its_results_is_refused(
        tmp_path, monkeypatch, capsys):
    """The file keeps where its history begins; theta is replayed from there
    on every resume, so an edited or cut file is refused, and a run that began
    at k > 0 from given values (a restart after a loss) checks out too."""
    monkeypatch.setattr(spsa, "play_pair", _toy_match(200))
    state = tmp_path / "e.json"
    argv = ["--state", str(state), "--iterations", "12", "--param", "RfpMargin::0.1",
            "--param", "LmrDivisor", "--seed", "3"]
    assert spsa.main(argv) == 0
    good = json.loads(state.read_text())
    assert good["start"] == {"k": 0, "theta": {"RfpMargin": 110.0, "LmrDivisor": 190.0}}
    capsys.readouterr()

    def refused(edit):
        data = json.loads(json.dumps(good))
        edit(data)
        state.write_text(json.dumps(data))
        with pytest.raises(SystemExit):
            spsa.main(argv)
        return capsys.readouterr().err

    def nudge(data):
        data["theta"]["RfpMargin"] += 1

    def cut(data):
        data["history"].pop(3)

    def flip(data):
        data["history"][5][1], data["history"][5][3] = data["history"][5][3], \
            data["history"][5][1] + 1
    assert "does not follow" in refused(nudge)
    assert "not iterations 1 to 12" in refused(cut)
    assert "does not follow" in refused(flip)

    # A run begun at iteration 6 from given values (its earlier pairs lost).
    later = json.loads(json.dumps(good))
    later["start"] = {"k": 6, "theta": {"RfpMargin": 150, "LmrDivisor": 180}}
    later["history"] = good["history"][6:]
    theta = {"RfpMargin": 150.0, "LmrDivisor": 180.0}
    run = spsa.Spsa([("RfpMargin", None, 0.1), ("LmrDivisor", None, None)], 12, 3)
    for k, wins, _draws, losses in later["history"]:
        theta = run.moved(theta, k, run.perturbation(k)[0], wins - losses)
    later["theta"] = theta
    state.write_text(json.dumps(later))
    assert spsa.main(argv[:3] + ["0"] + argv[4:]) == 0
    # A file from before the start was kept is taken as it is, and goes on
    # without a start made up for it (which would refuse it at the next resume).
    del later["start"]
    later["theta"]["RfpMargin"] += 5
    state.write_text(json.dumps(later))
    assert spsa.main(argv[:3] + ["0"] + argv[4:]) == 0
    legacy = json.loads(json.dumps(good))
    del legacy["start"]
    legacy["k"], legacy["history"] = 8, good["history"][:8]
    state.write_text(json.dumps(legacy))
    assert spsa.main(argv) == 0                  # iterations 9 to 12
    assert "start" not in json.loads(state.read_text())
    assert spsa.main(argv) == 0                  # and it is still taken
