"""Board declarations: the ``boards:`` list of a scoring declaration (schema in
builder.scoring.config)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.scoring.config_base import ID_RE, ParserBase
from builder.scoring.kinds import NAMES, REGISTRY, BoardKind
from builder.scoring.spec import BoardSpec, Pairing

_COMMON = {"id", "kind", "title", "description", "items", "results", "rank_by", "notes", "references", "summary", "contamination"}


# every summary fact some kind may add (the error message lists them)
SUMMARIES = frozenset(s for kind in REGISTRY.values() for s in kind.summaries)


class BoardParser(ParserBase):
    has_contamination: bool
    suffix: str

    def _boards(self, raw: Any, samples: int, pairing: Pairing | None) -> tuple[BoardSpec, ...]:
        if not isinstance(raw, list) or not raw:
            self.err("boards", "must be a non-empty list")
            return ()
        out: list[BoardSpec] = []
        seen: set[str] = set()
        columns: dict[str, dict[str, str]] = {}  # board -> table metric -> measure kind
        for i, b in enumerate(raw):
            path = f"boards[{i}]"
            if not isinstance(b, Mapping):
                self.err(path, "must be a mapping")
                continue
            bid = b.get("id")
            if isinstance(bid, str) and ID_RE.match(bid):
                path = f"boards.{bid}"
            board = self._board(b, path, pairing, columns)
            if board is None:
                continue
            ids = {board.id} | ({board.id + self.suffix} if self.has_contamination and board.contamination else set())
            if ids & seen:
                self.err(f"{path}.id", "repeats another board's id (contamination twins end in " + (self.suffix or "-all") + ")")
            seen |= ids
            if found := REGISTRY[board.kind].metric_kinds(board.params):
                columns[board.id] = found
            out.append(board)
        return tuple(out)

    def _board(self, b: Mapping[str, Any], path: str, pairing: Pairing | None, earlier: dict[str, dict[str, str]]) -> BoardSpec | None:
        name = b.get("kind", "table")
        if name not in NAMES:
            self.err(f"{path}.kind", f"must be one of {', '.join(NAMES)}")
            return None
        kind = REGISTRY[BoardKind(name)]
        self._unknown(b, _COMMON | kind.keys, path)
        bid = self._str(b, "id", f"{path}.id", pattern=ID_RE)
        if not bid:
            return None
        common = self._common(b, path, kind.summaries)
        params, cols = kind.parse(self, b, path, pairing, earlier)
        if len(set(cols)) != len(cols):
            self.err(path, "two columns share a name")
        rank_by: str | None = cols[0] if cols and kind.ranked_by_default else None
        if "rank_by" in b:
            rank_by = b["rank_by"]
            if rank_by is not None and rank_by not in cols:
                self.err(f"{path}.rank_by", f"must be null or one of {', '.join(cols)}")
                rank_by = None
        return BoardSpec(id=bid, kind=BoardKind(name), params=params, rank_by=rank_by, **common)

    def _common(self, b: Mapping[str, Any], path: str, summaries: frozenset[str]) -> dict[str, Any]:
        """The keys every board has, whatever its kind."""
        title = self._str(b, "title", f"{path}.title", b.get("id"))
        description = self._str(b, "description", f"{path}.description", "")
        items = self._filter(b.get("items"), f"{path}.items", "items")
        results = self._filter(b.get("results"), f"{path}.results", "results")
        notes = b.get("notes", [])
        if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
            self.err(f"{path}.notes", "must be a list of strings")
            notes = []
        flags = {}
        for key in ("references", "contamination"):
            flags[key] = b.get(key, True)
            if not isinstance(flags[key], bool):
                self.err(f"{path}.{key}", "must be true or false")
        summary = b.get("summary", [])
        if not isinstance(summary, list) or not all(s in summaries for s in summary):
            self.err(f"{path}.summary", f"must be a list drawn from {', '.join(sorted(SUMMARIES))} (table boards only)")
            summary = []
        return dict(
            title=title, description=description, items=items, results=results, notes=tuple(notes),
            references=bool(flags["references"]), contamination=bool(flags["contamination"]), summary=tuple(summary),
        )  # fmt: skip
