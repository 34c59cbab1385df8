"""The UCI dialect of the engine client."""
import time
from typing import ClassVar

from tuong.protocol.client.common import (SYNC_TIMEOUT, Info, PlayResult, Protocol, _int, _ms,
                                          _value_text, engine_fen, from_engine_move,
                                          to_engine_move)
from tuong.protocol.client.engine import Engine

def _declared_name(words):
    """The option name in `option name N type ...` (UCI) or `option N type ...` (UCCI)."""
    if words and words[0] == "name":
        words = words[1:]
    end = words.index("type") if "type" in words else len(words)
    return " ".join(words[:end]), words[end:]


class UciEngine(Engine):
    """An engine speaking UCI (Fairy-Stockfish, Pikafish, tuong): `uci`,
    `setoption name N value V`, `position`, `go`. Sets `UCI_Variant` to
    xiangqi when the engine has it. Arguments and errors as Engine's."""
    protocol: ClassVar[Protocol] = "uci"
    """`"uci"`."""
    hello, ok = "uci", "uciok"

    def _handshake(self, deadline):
        self._send(self.hello)
        while True:
            _, line = self._read(deadline)
            words = line.split()
            if not words:
                continue
            if words[0] == "id" and len(words) > 2:
                self.id[words[1]] = " ".join(words[2:])
            elif words[0] == "option" and len(words) > 1:
                name, declaration = _declared_name(words[1:])
                if name:
                    self.options[name.lower()] = (name, declaration)
            elif words[0] == self.ok:
                break
        if "uci_variant" in self.options:
            self._setoption("UCI_Variant", "xiangqi")
        self._sync()

    def _default_notation(self):
        # Fairy-Stockfish writes ranks 1-10 over UCI (and 0-9 over UCCI).
        return "ranks1" if self.id.get("name", "").startswith("Fairy-Stockfish") else "ranks0"

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        if "button" in declaration:
            self._send(f"setoption name {name}")
        else:
            self._send(f"setoption name {name} value {_value_text(value)}")

    def _sync(self):
        self._send("isready")
        deadline = time.monotonic() + SYNC_TIMEOUT
        lines = []
        while (line := self._read(deadline)[1]).strip() != "readyok":
            lines.append(line)
        return lines

    def _refusal(self, line):
        # tuong's own words, and Stockfish's (Fairy-Stockfish's) for a name.
        return line.startswith(("info string error", "No such option"))

    def _new_game(self):
        self._send("ucinewgame")
        self._sync()

    def _position_command(self, position):
        fen, moves = position
        text = f"position fen {engine_fen(fen)}" if fen else "position startpos"
        if moves:
            text += " moves " + " ".join(to_engine_move(m, self.ranks1) for m in moves)
        return text

    def _go_command(self, position, limit):
        words = ["go"]
        if limit.depth is not None:
            words += ["depth", str(limit.depth)]
        if limit.nodes is not None:
            words += ["nodes", str(limit.nodes)]
        words += self._time_words(position, limit)
        if limit.infinite:
            words.append("infinite")
        if len(words) == 1:
            raise ValueError("a Limit needs depth, nodes, movetime, clocks or infinite")
        return " ".join(words)

    def _time_words(self, position, limit):
        """`go`'s time limits: movetime, or both clocks (UCCI has its own)."""
        words = []
        if limit.movetime is not None:
            words += ["movetime", str(max(1, round(limit.movetime * 1000)))]
        if limit.red_clock is not None or limit.black_clock is not None:
            words += ["wtime", _ms(limit.red_clock), "btime", _ms(limit.black_clock),
                      "winc", _ms(limit.red_inc), "binc", _ms(limit.black_inc)]
        return words

    def _prepare_search(self, position, limit):
        go = self._go_command(position, limit)      # a bad limit fails before sending
        self._send(self._position_command(position))
        # isready after position: the engine's answer to the position comes
        # before readyok, so a refusal is read before any `go` is sent.
        self._position_refused(position, [line for line in self._sync()
                                          if self._refuses_position(line)])
        return go

    def _refuses_position(self, line):
        """Whether a line answering `position` says it was refused: tuong's
        `info string error: ...` (a bad FEN, an illegal move); any other
        `info string` is not a refusal."""
        return line.startswith("info string error")

    def _search_line(self, line, elapsed):
        words = line.split()
        if words and words[0] == "info":
            return self._parse_info(words)
        if words and words[0] in ("bestmove", "nobestmove"):
            return self._best(words, line, elapsed)
        return None

    def _best(self, words, line, elapsed):
        if words[0] == "nobestmove" or len(words) < 2 or words[1] in ("(none)", "none", "0000"):
            return PlayResult(None, elapsed=elapsed)
        move = self._parse_move(words[1], line)
        ponder = None
        if len(words) >= 4 and words[2] == "ponder":
            ponder = from_engine_move(words[3], self.ranks1)
        return PlayResult(move, ponder, elapsed=elapsed)

    _INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps"}

    def _parse_info(self, words):
        info = Info()
        i = 1
        while i < len(words):
            word = words[i]
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if word in self._INT_FIELDS:
                setattr(info, word, _int(nxt))
                i += 2
            elif word == "time":
                ms = _int(nxt)
                info.time = ms / 1000 if ms is not None else None
                i += 2
            elif word == "score":
                i = self._parse_score(info, words, i + 1)
            elif word == "pv":
                i += 1
                while i < len(words):
                    move = from_engine_move(words[i], self.ranks1)
                    if move is None:
                        break
                    info.pv.append(move)
                    i += 1
            elif word == "string":
                info.string = " ".join(words[i + 1:])
                break
            else:
                i += 1
        return info

    def _bare_score(self, info, value):
        """A bare `score N` (UCCI's form): centipawns here; UcciEngine reads
        its mates."""
        info.cp = value

    def _parse_score(self, info, words, i):
        """`score cp N` / `score mate N` [lowerbound|upperbound]; UCCI also
        writes a bare `score N`. Returns the index after the score."""
        kind = words[i] if i < len(words) else ""
        if kind in ("cp", "mate"):
            value = _int(words[i + 1]) if i + 1 < len(words) else None
            setattr(info, kind, value)
            i += 2
        elif _int(kind) is not None:
            self._bare_score(info, _int(kind))
            i += 1
        if i < len(words) and words[i] in ("lowerbound", "upperbound"):
            info.bound = words[i][:5]
            i += 1
        return i
