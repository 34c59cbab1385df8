"""The UCCI dialect of the engine client: UCI's sibling, with seconds for
times unless the engine takes milliseconds."""
from tuong.protocol.client.common import _ms, _value_text, red_to_move
from tuong.protocol.client.uci import UciEngine

# UCCI writes a mate as a bare score: MATE_SCORE minus the distance in plies
# (ElephantEye's convention, which tuong's UCCI keeps); scores past WIN_SCORE
# are mates (ElephantEye's WIN_VALUE).
MATE_SCORE, WIN_SCORE = 10000, 9800


class UcciEngine(UciEngine):
    """An engine speaking UCCI (ElephantEye, tuong): `ucci`, `setoption N V`,
    times in milliseconds (`usemillisec`), no movetime (`go time T movestogo
    1`). Arguments and errors as Engine's."""
    protocol = "ucci"
    """`"ucci"`."""
    hello, ok = "ucci", "ucciok"

    def _bare_score(self, info, value):
        if abs(value) > WIN_SCORE:
            plies = MATE_SCORE - abs(value)
            info.mate = (plies + 1) // 2 if value > 0 else -(plies // 2)
        else:
            info.cp = value

    def _handshake(self, deadline):
        super()._handshake(deadline)
        self.millis = "usemillisec" in self.options or \
            self.id.get("name", "").startswith("Fairy-Stockfish")
        if "usemillisec" in self.options:
            self._setoption("usemillisec", True)
            self._sync()

    def _default_notation(self):
        return "ranks0"

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        text = f"setoption {name}" if "button" in declaration else \
            f"setoption {name} {_value_text(value)}"
        self._send(text)

    def _new_game(self):
        if "newgame" in self.options:
            self._setoption("newgame", None)
        self._sync()

    def _time(self, seconds):
        if self.millis:
            return _ms(seconds)
        return str(max(0, int(seconds or 0)))    # whole seconds: never more than we have

    def _time_words(self, position, limit):
        """UCCI counts our time and the opponent's; no movetime: one move to go."""
        words = []
        if limit.movetime is not None:
            words += ["time", self._time(limit.movetime), "movestogo", "1"]
        elif limit.red_clock is not None or limit.black_clock is not None:
            red = red_to_move(position)
            own, opp = (limit.red_clock, limit.black_clock) if red else \
                (limit.black_clock, limit.red_clock)
            inc, oppinc = (limit.red_inc, limit.black_inc) if red else \
                (limit.black_inc, limit.red_inc)
            words += ["time", self._time(own), "increment", self._time(inc),
                      "opptime", self._time(opp), "oppincrement", self._time(oppinc)]
        return words
