"""The evaluation's weights file: its format, reading, validating and
writing it, and the layout of the tunable weights (FEATURES). Plain Python
that imports nothing of the engine's core, and reads no file when
imported; the core imports this module, never the other way round.

    from tuong.engine import weights
    data = weights.read("/path/new.json")  # WeightsError (a ValueError) naming the problem

Putting weights into the evaluation is the core's business
(engine/evaluate.pyx):

    from tuong.engine.evaluate import load_weights, current_weights
    load_weights("/path/new.json")         # read (as above) and install
    load_weights()                         # the shipped engine/weights.json
    current_weights()                      # the weights in force, as a dict

The engine process loads `engine/weights.json` when its session starts
(protocol/session.py; option EvalFile loads another), and the first board
made from a FEN loads it if no weights have been installed yet. A file
holds every weight of the evaluation, in centipawns from Red's side:

- `material`: A B N R C P (the king is always on the board and has none).
- `piece_square`: one table per piece type (K A B N R C P), drawn as Red
  sees the board: 10 rows, rank 9 (Black's back rank) first, and 5 files
  a-e; files f-i mirror d-a, so every table is left-right symmetric, and
  Black's tables are Red's upside down, so the evaluation is exactly
  colour-symmetric. A piece's value on a square is material + table.
- `rook_mobility`, `cannon_mobility`: per square a rook (cannon) can move to.
- `horse_mobility`: by the number of squares (0-8) a horse can reach.
- `cannon_over_horse`: per cannon (negated per horse), per rook, horse and
  cannon on the board beyond six.
- `attack_weight` (N R C P): what each piece that strikes into the enemy
  palace adds to the attack's units (15 at most); `attack_penalty`: what
  the defender loses for 0..15 units; `missing_advisor`,
  `missing_elephant`: quarters added to the penalty's multiplier (4
  quarters) per missing defender. A lone attacker counts half.
- `hollow_cannon`: an enemy cannon facing the king on an open file.
- `tempo`: for the side to move.
- optional `comment`: free text (where the file came from).

The default file holds the hand-set evaluation: material from the book's
values scaled by ten (the nominal values of engine/position.pxd, which SEE
and move ordering keep using whatever the file says); tables drawn so that
the king is safest at home, horses want to come forward and to the centre
and hate the rim, rooks like open, advanced files and the ribs beside the
palace, cannons are strongest early, on the central file and at the back,
and pawns are worth little at home and much once across the river, most of
all near the enemy palace.

Tuning (tools/training/tune.py) sees the evaluation as a linear function of the
*tunable* weights: every one above except attack_weight, missing_advisor
and missing_elephant, which enter it as an index and a multiplier (they are
kept as they are). FEATURES names those tunables in the order of the
feature vector engine.board.eval_features() returns.
"""
import json
from pathlib import Path

from tuong.engine.files import NotAFileError, read_regular

FORMAT = "tuong-weights 1"
DEFAULT_PATH = Path(__file__).resolve().parent / "weights.json"
MAX_FILE_BYTES = 2**20            # a weights file is a few kB; larger is not one

PIECES = "KABNRCP"                 # by piece type, as in engine/position.pxd
MATERIAL_PIECES = "ABNRCP"
ATTACKERS = "NRCP"
FILES = "abcde"                    # the stored half of each table

# Every key of a weights file: (shape, lowest, highest, tunable). A shape is
# "int", ("list", n), ("pieces", letters) or ("tables", letters).
SCHEMA = {
    "material": (("pieces", MATERIAL_PIECES), 0, 5000, True),
    "piece_square": (("tables", PIECES), -1000, 1000, True),
    "rook_mobility": ("int", -100, 100, True),
    "cannon_mobility": ("int", -100, 100, True),
    "horse_mobility": (("list", 9), -500, 500, True),
    "cannon_over_horse": ("int", -100, 100, True),
    "attack_weight": (("pieces", ATTACKERS), 0, 15, False),
    "attack_penalty": (("list", 16), 0, 2000, True),
    "missing_advisor": ("int", 0, 16, False),
    "missing_elephant": ("int", 0, 16, False),
    "hollow_cannon": ("int", -500, 500, True),
    "tempo": ("int", -100, 100, True),
}


class WeightsError(ValueError):
    pass


class NotJSONError(WeightsError):
    """The file is not JSON text at all (so perhaps not meant as weights)."""


def _feature_names():
    names, offsets = [], {}
    for key, (shape, _, _, tunable) in SCHEMA.items():
        if not tunable:
            continue
        offsets[key] = len(names)
        if shape == "int":
            names.append(key)
        elif shape[0] == "list":
            names += [f"{key}.{i}" for i in range(shape[1])]
        elif shape[0] == "pieces":
            names += [f"{key}.{letter}" for letter in shape[1]]
        else:                                  # tables: rows rank 9..0, files a-e
            names += [f"{key}.{letter}.{f}{r}" for letter in shape[1]
                      for r in range(9, -1, -1) for f in FILES]
    return names, offsets


# The tunable weights, in feature-vector order ("material.N",
# "piece_square.N.c3", "horse_mobility.4", ...), where each key starts, and
# each key's (start, end) in the vector.
FEATURES, OFFSETS = _feature_names()
SPANS = {key: (start, ([o for o in OFFSETS.values() if o > start] + [len(FEATURES)])[0])
         for key, start in OFFSETS.items()}


def _check_int(value, where, low, high):
    if type(value) is not int or not low <= value <= high:
        raise WeightsError(f"{where} must be an integer in {low}..{high}, not {value!r}")


def validate(data, source="weights"):
    """Raise WeightsError naming the first problem in `data` (a dict as read
    from a weights file); return it unchanged if it is good."""
    if not isinstance(data, dict):
        raise WeightsError(f"{source}: expected a JSON object, not {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise WeightsError(f"{source}: 'format' must be {FORMAT!r}, not {data.get('format')!r}")
    unknown = sorted(set(data) - set(SCHEMA) - {"format", "comment"})
    if unknown:
        raise WeightsError(f"{source}: unknown key {unknown[0]!r}")
    if not isinstance(data.get("comment", ""), str):
        raise WeightsError(f"{source}: 'comment' must be a string")
    for key, (shape, low, high, _) in SCHEMA.items():
        if key not in data:
            raise WeightsError(f"{source}: missing key {key!r}")
        value, where = data[key], f"{source}: {key}"
        if shape == "int":
            _check_int(value, where, low, high)
        elif shape[0] == "list":
            if not isinstance(value, list) or len(value) != shape[1]:
                raise WeightsError(f"{where} must be a list of {shape[1]} integers")
            for i, item in enumerate(value):
                _check_int(item, f"{where}[{i}]", low, high)
        else:
            letters = shape[1]
            if not isinstance(value, dict) or set(value) != set(letters):
                raise WeightsError(f"{where} must have exactly the keys {', '.join(letters)}")
            for letter in letters:
                item = value[letter]
                if shape[0] == "pieces":
                    _check_int(item, f"{where}.{letter}", low, high)
                    continue
                if not isinstance(item, list) or len(item) != 10:
                    raise WeightsError(f"{where}.{letter} must have 10 rows (ranks 9 to 0)")
                for row_number, row in enumerate(item):
                    rank = 9 - row_number
                    if not isinstance(row, list) or len(row) != len(FILES):
                        raise WeightsError(f"{where}.{letter} rank {rank} must have "
                                           f"{len(FILES)} entries (files a-e)")
                    for f, cell in zip(FILES, row):
                        _check_int(cell, f"{where}.{letter}.{f}{rank}", low, high)
    return data


def read(path):
    """The validated weights in a file; WeightsError if it cannot be read or
    is not a good weights file."""
    try:
        raw = read_regular(path, MAX_FILE_BYTES, "a weights file")
    except (OSError, NotAFileError) as err:
        raise WeightsError(f"cannot read weights file {str(path)!r}: "
                           f"{getattr(err, 'strerror', None) or err}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as err:           # UnicodeDecodeError is one too
        raise NotJSONError(f"{path}: not JSON ({err})") from None
    return validate(data, str(path))


def default():
    """The shipped weights file's weights (read, not installed)."""
    return read(DEFAULT_PATH)


def vector(data):
    """The tunable weights of `data` as a list, in FEATURES order."""
    out = []
    for key, (shape, _, _, tunable) in SCHEMA.items():
        if not tunable:
            continue
        value = data[key]
        if shape == "int":
            out.append(value)
        elif shape[0] == "list":
            out += value
        elif shape[0] == "pieces":
            out += [value[letter] for letter in shape[1]]
        else:
            out += [cell for letter in shape[1] for row in value[letter] for cell in row]
    return out


def bounds():
    """(lowest, highest) of each tunable weight, in FEATURES order."""
    out = []
    for _key, (shape, low, high, tunable) in SCHEMA.items():
        if tunable:
            size = 1 if shape == "int" else shape[1] if shape[0] == "list" else \
                len(shape[1]) * (1 if shape[0] == "pieces" else 10 * len(FILES))
            out += [(low, high)] * size
    return out


def with_vector(data, values, comment=None):
    """A copy of `data` whose tunable weights are `values` (FEATURES order),
    rounded to integers and clipped to their ranges."""
    out = json.loads(json.dumps(data))
    rounded = iter([min(max(int(round(v)), low), high)
                    for v, (low, high) in zip(values, bounds())])
    for key, (shape, _, _, tunable) in SCHEMA.items():
        if not tunable:
            continue
        if shape == "int":
            out[key] = next(rounded)
        elif shape[0] == "list":
            out[key] = [next(rounded) for _ in range(shape[1])]
        elif shape[0] == "pieces":
            out[key] = {letter: next(rounded) for letter in shape[1]}
        else:
            out[key] = {letter: [[next(rounded) for _ in FILES] for _ in range(10)]
                        for letter in shape[1]}
    if comment is not None:
        out["comment"] = comment
    return validate(out)


def dumps(data):
    """A weights file's text: one table row or list per line."""
    lines = ["{"]
    items = [("format", data["format"])] + ([("comment", data["comment"])]
                                             if "comment" in data else [])
    items += [(key, data[key]) for key in SCHEMA]
    for n, (key, value) in enumerate(items):
        end = "," if n < len(items) - 1 else ""
        if isinstance(value, dict) and value and isinstance(next(iter(value.values())), list):
            lines.append(f'  "{key}": {{')
            for m, (letter, rows) in enumerate(value.items()):
                lines.append(f'    "{letter}": [')
                lines += [f"      {json.dumps(row)}{',' if i < len(rows) - 1 else ''}"
                          for i, row in enumerate(rows)]
                lines.append("    ]" + ("," if m < len(value) - 1 else ""))
            lines.append("  }" + end)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{end}")
    return "\n".join(lines + ["}"]) + "\n"


def write(data, path):
    validate(data, str(path))
    Path(path).write_text(dumps(data), encoding="utf-8")
