"""The xboard (CECP) dialect of the engine client."""
import re
import time

from tuong.protocol.client.common import (
    _MOVE, START_FEN, SYNC_TIMEOUT, EngineProtocolError, EngineTimeout, Info, PlayResult,
    UnsupportedError, _value_text, engine_fen, from_engine_move, red_to_move, to_engine_move)
from tuong.protocol.client.engine import Engine

_THINKING = re.compile(r"\s*(\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s*(.*)")
MATE_SCORE = 100000
_RESULT = re.compile(r"(1-0|0-1|1/2-1/2)(\s|$)")


def _features(text):
    """`feature a=1 b="x y"` -> [("a", "1"), ("b", "x y")]."""
    return [(k, v.strip('"')) for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', text)]


class XboardEngine(Engine):
    """An engine speaking xboard (CECP) protocol 2 (maxqi/fairymax,
    Fairy-Stockfish, tuong): `xboard`, `protover 2`, `variant xiangqi`,
    moves in force mode. No node limit and no infinite analysis
    (UnsupportedError); an engine without `setboard` is brought to a
    position by moves from the start, and a position with a FEN raises
    UnsupportedError. Arguments and errors as Engine's."""
    protocol = "xboard"
    """`"xboard"`."""
    FEATURE_WAIT = 2.0      # the protocol's wait for an engine that sends no features
    """Seconds to wait for the first `feature` line (protocol 1 engines send none)."""

    def _handshake(self, deadline):
        self.features = {}
        self._ping = 0
        self._state = None          # the (fen, moves) the engine's board holds, if known
        self._limit_sent = None     # _limit_key of the limits sent since the last `new`
        self._send("xboard")
        self._send("protover 2")
        quiet_until = min(deadline, time.monotonic() + self.FEATURE_WAIT)
        while self.features.get("done") != "1":
            try:
                _, line = self._read(deadline if self.features else quiet_until)
            except EngineTimeout:
                if self.features:
                    raise
                break                       # protover 1: no features at all
            if line.startswith("feature"):
                for key, value in _features(line):
                    if key == "option":     # option="Name -spin 16 1 4096", may repeat
                        name = value.split(" -")[0].strip()
                        self.options[name.lower()] = (name, value[len(name):].split())
                    else:
                        self.features[key] = value
                    self._send(f"accepted {key}")
        if self.features.get("san") == "1":
            raise EngineProtocolError(f"{self.name} wants SAN moves (san=1); not supported")
        variants = self.features.get("variants")
        if variants is not None and "xiangqi" not in variants.split(","):
            raise UnsupportedError(f"{self.name} does not play xiangqi (variants={variants})")
        if "myname" in self.features:
            self.id["name"] = self.features["myname"]
        # memory and cores are commands of their own; offer them under UCI's names.
        if self.features.get("memory") == "1":
            self.options.setdefault("hash", ("Hash", ["-memory"]))
        if self.features.get("smp") == "1":
            self.options.setdefault("threads", ("Threads", ["-smp"]))
        self._sync()

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        if declaration == ["-memory"]:
            self._send(f"memory {int(value)}")
        elif declaration == ["-smp"]:
            self._send(f"cores {int(value)}")
        elif "-button" in declaration or "-save" in declaration:
            self._send(f"option {name}")
        else:
            self._send(f"option {name}={_value_text(value)}")

    def _sync(self):
        """ping/pong when the engine has ping (else the lines already come);
        the lines read before the pong."""
        lines = []
        if self.features.get("ping") != "1":
            while not self._lines.empty():       # the best we can do without ping
                item = self._lines.get_nowait()
                if item is None:
                    self._lines.put(None)
                    break
                lines.append(item[1])
            return lines
        self._ping += 1
        self._send(f"ping {self._ping}")
        deadline = time.monotonic() + SYNC_TIMEOUT
        while True:
            _, line = self._read(deadline)
            if line.strip() == f"pong {self._ping}":
                return lines
            lines.append(line)

    def _refusal(self, line):
        # tuong's answer to a refused `option`, and the protocol's error words.
        return line.startswith(("Error", "tellusererror", "telluser error"))

    @staticmethod
    def _refuses_position(line, sent):
        """Whether a line answering our setboard and moves (`sent`: the words
        of the moves as sent) refuses them: `Illegal move ...`, tuong's
        `tellusererror Illegal position: ...`, or an `Error (...)` about a
        setboard or a move we sent (Fairy-Stockfish answers a move it cannot
        parse with `Error (unkown command): zz`)."""
        words = line.split()
        if line.startswith("Illegal move") or "illegal position" in line.lower():
            return True
        return line.startswith("Error") and bool(words) and \
            ("setboard" in words or words[-1] in sent or bool(_MOVE.fullmatch(words[-1])))

    def _check_rejection(self, line):
        """`Illegal move: X`, or an `Error (...): X` about a move (Fairy-Stockfish
        answers `Error (unkown command): h3e3` to a move it cannot parse)."""
        words = line.split()
        if line.startswith("Illegal move") or \
                (line.startswith("Error") and words and _MOVE.fullmatch(words[-1])):
            raise EngineProtocolError(f"{self.name} rejected a move we sent: {line!r}")

    def _new_game(self):
        for command in ("new", "variant xiangqi", "force", "post", "easy"):
            self._send(command)
        self._state = (None, [])
        self._limit_sent = None
        self._sync()

    def _set_position(self, position):
        fen, moves = position
        fen = engine_fen(fen) if fen and engine_fen(fen) != START_FEN else None
        if fen and self.features.get("setboard") != "1":
            raise UnsupportedError(f"{self.name} cannot take a FEN (no setboard); "
                                   "bring it to the position by moves from the start")
        self._send("force")
        known = self._state
        if known and known[0] == fen and moves[:len(known[1])] == known[1]:
            new_moves = moves[len(known[1]):]
        else:
            self._new_game()
            if fen:
                self._send(f"setboard {fen}")
            new_moves = moves
        prefix = "usermove " if self.features.get("usermove") == "1" else ""
        sent = [to_engine_move(move, self.ranks1) for move in new_moves]
        for move in sent:
            self._send(prefix + move)
        self._state = (fen, list(moves))
        return set(sent)

    @staticmethod
    def _limit_key(position, limit):
        red = red_to_move(position)
        clock = limit.red_clock if red else limit.black_clock
        return (limit.depth, limit.movetime, clock is not None,
                limit.red_inc if red else limit.black_inc)

    def _limit_commands(self, position, limit):
        if limit.nodes is not None:
            raise UnsupportedError(f"{self.name}: xboard has no node limit")
        red = red_to_move(position)
        own = limit.red_clock if red else limit.black_clock
        opp = limit.black_clock if red else limit.red_clock
        inc = limit.red_inc if red else limit.black_inc
        if limit.depth is None and limit.movetime is None and own is None:
            raise ValueError("a Limit needs depth, movetime or clocks")
        commands = []
        # Send sd/st/level once per game: `level` restarts an engine's time
        # control; a different limit starts from `new` (see _prepare_search).
        key = self._limit_key(position, limit)
        if key != self._limit_sent:
            self._limit_sent = key
            if limit.depth is not None:
                commands.append(f"sd {limit.depth}")
            if limit.movetime is not None:
                commands.append(f"st {limit.movetime:g}")
            elif own is None:
                # Depth alone: xboard has no "no clock", and the engine's default
                # time control would cut the search short; a day is no clock.
                commands.append("st 86400")
            if own is not None:
                base = max(1, int(own))
                commands.append(f"level 0 {base // 60}:{base % 60:02d} {inc:g}")
        if own is not None:
            commands += [f"time {max(0, round(own * 100))}",
                         f"otim {max(0, round((opp or 0) * 100))}"]
        return commands

    def _lines_option(self, multipv):
        """xboard has no MultiPV: its thinking output is the main line alone.
        More than one line raises UnsupportedError; one needs nothing."""
        if multipv > 1:
            raise UnsupportedError(f"{self.name}: xboard has no MultiPV (its thinking output "
                                   f"is one line), not {multipv} lines")
        return None

    stop_command = "?"
    """What stops a search: `?` (move now)."""

    def _prepare_search(self, position, limit):
        if limit.infinite:
            raise UnsupportedError(f"{self.name}: the client has no infinite analysis over xboard")
        if self._limit_key(position, limit) != self._limit_sent:
            self._state = None   # a new kind of limit: `new` clears the old sd/st/level
        sent = self._set_position(position)
        commands = self._limit_commands(position, limit)
        refusals = [line for line in self._sync() if self._refuses_position(line, sent)]
        if refusals:
            self._state = None      # the engine's board is not ours: `new` next time
            self._position_refused(position, refusals)
        for command in commands:
            self._send(command)
        return "go"

    def _search_line(self, line, elapsed):
        """An Info, a PlayResult, or None for a line to ignore."""
        text = line.strip()
        words = text.split()
        if not words:
            return None
        if words[0] == "move" or text.lower().startswith("my move is"):
            move = self._parse_move(words[-1], line)
            self._state = (self._state[0], self._state[1] + [move]) if self._state else None
            return PlayResult(move, elapsed=elapsed)
        if words[0] == "resign":
            self._state = None
            return PlayResult(None, elapsed=elapsed, resigned=True)
        if _RESULT.match(text):
            self._state = None
            return PlayResult(None, elapsed=elapsed, claim=text)
        self._check_rejection(text)
        m = _THINKING.fullmatch(line)
        if m:
            pv = []
            for word in m.group(5).split():
                move = from_engine_move(word, self.ranks1)
                if move:
                    pv.append(move)
            score = int(m.group(2))
            # CECP: mate in N moves is 100000 + N (negative: being mated).
            mate = None if abs(score) < MATE_SCORE else \
                (abs(score) - MATE_SCORE) * (1 if score > 0 else -1)
            return Info(depth=int(m.group(1)), cp=None if mate is not None else score,
                        mate=mate, time=int(m.group(3)) / 100, nodes=int(m.group(4)), pv=pv)
        return None
