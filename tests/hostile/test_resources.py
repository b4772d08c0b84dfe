"""Resource exhaustion by a lab holding a valid key: results too large, too many rows.

Each bundle is validly signed and sealed to the embargo key, so only its size is wrong.
The refusal must come from the declared size (before decryption) or from the line count
(before parsing): the tests make decryption or parsing fail loudly if they are reached.
The test instance's benchmark has 18 items × 2 languages × 3 samples = 108 rows at most.
"""

from __future__ import annotations

import pytest

import builder.bundles.results
import builder.bundles.sealing
from builder.bundles.manifest import RESULTS
from builder.bundles.results import MAX_ROW_BYTES
from hostile.support import ACME, BETA, VALID_ROWS, Instance, assert_rejected, reseal, rows_bytes, run, where_of

RESULTS_WHERE = where_of(ACME, RESULTS)
MAX_ROWS = 18 * 2 * 3


def _no_parsing(monkeypatch: pytest.MonkeyPatch, plaintext: bytes) -> None:
    """Both parsing paths fail the test if they are handed ``plaintext``."""
    for name in ("_fast_table", "_strict_table"):
        real = getattr(builder.bundles.results, name)

        def guarded(data: bytes, *args: object, real=real) -> object:
            assert data != plaintext, "the file was parsed"
            return real(data, *args)

        monkeypatch.setattr(builder.bundles.results, name, guarded)


def _no_decryption(monkeypatch: pytest.MonkeyPatch) -> None:
    # Where a bundle's results are decrypted (BenchmarkKeys.open).
    real = builder.bundles.sealing.unseal

    def guarded(ciphertext: bytes, identities, where):
        if where == RESULTS_WHERE:
            raise AssertionError("the file was decrypted")
        return real(ciphertext, identities, where)

    monkeypatch.setattr(builder.bundles.sealing, "unseal", guarded)


@pytest.mark.parametrize(
    "name, plaintext",
    [
        # The case, scaled to the test benchmark: a file of nothing but `{}` lines.
        ("empty-objects", b"{}\n" * 400_000),
        ("one-row-too-many", rows_bytes(VALID_ROWS) + rows_bytes(VALID_ROWS[:1])),
        ("blank-lines", rows_bytes(VALID_ROWS) + b"\n" * (MAX_ROWS + 1)),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_too_many_rows_refused_before_parsing(name: str, plaintext: bytes, inst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    reseal(inst, ACME, plaintext)
    _no_parsing(monkeypatch, plaintext)
    report = run(inst)
    assert_rejected(report, (RESULTS_WHERE, "too-many-rows"), publishes=(BETA,))
    [rejection] = report.rejections
    assert f"at most {MAX_ROWS:,} rows (18 items × 2 language(s) × 3 sample(s))" in rejection.message


def test_all_rows_and_some_blank_lines_still_parse(inst: Instance) -> None:
    """More lines than rows is fine while the blank ones hold no sample."""
    reseal(inst, ACME, b"\n".join(rows_bytes(VALID_ROWS).splitlines(keepends=True)))
    assert_rejected(run(inst))


def test_results_too_large_refused_before_decryption(inst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    # Valid rows padded with JSON whitespace: every line parses, but the file is larger
    # than 108 rows can be, which the signed size says before anything is decrypted.
    padding = b" " * (MAX_ROW_BYTES + 1)
    reseal(inst, ACME, b"".join(line.replace(b"}", padding + b"}") for line in rows_bytes(VALID_ROWS).splitlines(keepends=True)))
    _no_decryption(monkeypatch)
    report = run(inst)
    assert_rejected(report, (RESULTS_WHERE, "results-too-large"), publishes=(BETA,))
    assert f"at most {MAX_ROWS * MAX_ROW_BYTES:,} bytes" in report.rejections[0].message
