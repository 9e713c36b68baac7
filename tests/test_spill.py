"""Spill files (gatecrawl/store/spill.py): per-page records on disk, read back in order or
sorted with bounded memory, and the private folder cleaned up (also after a crashed run)."""

from __future__ import annotations

import random

from gatecrawl.store.spill import SpillDir, sorted_records


def _records(n: int, seed: int) -> list[dict]:
    rnd = random.Random(seed)
    # few distinct keys, so that ties are common and stability is tested
    return [{"url": f"https://e.example/{rnd.randrange(40)}", "i": i, "t": "é\ud800" if i % 7 == 0 else "x"}
            for i in range(n)]


def test_external_sort_equals_sorted_and_is_stable(tmp_path):
    for seed, chunk, fan_in in ((1, 7, 3), (2, 50, 2), (3, 1000, 16), (4, 1, 4)):
        recs = _records(600, seed)
        work = tmp_path / f"w{seed}"
        work.mkdir()
        got = list(sorted_records(iter(recs), key=lambda r: r["url"], workdir=work, chunk=chunk, fan_in=fan_in))
        assert got == sorted(recs, key=lambda r: r["url"]), (seed, chunk, fan_in)
        assert not list(work.iterdir())  # run files removed once the iteration ends


def test_spill_file_keeps_append_order(tmp_path):
    d = SpillDir(tmp_path / "spill", "t")
    try:
        f = d.file("pages")
        recs = _records(25, 9)
        for r in recs:
            f.append(r)
        assert len(f) == 25
        assert list(f.read()) == recs  # lone surrogates and non-ASCII survive the round trip
        assert list(f.read(limit=f.mark() - 5)) == recs[:20]
        assert list(d.sorted(f.read(), key=lambda r: r["url"], chunk=4)) == sorted(recs, key=lambda r: r["url"])
    finally:
        d.close()
    assert not d.path.exists()


def test_crashed_run_folder_is_removed_by_the_next_run_but_a_live_one_is_not(tmp_path):
    base = tmp_path / "spill"
    live = SpillDir(base, "live")
    crashed = SpillDir(base, "crashed")
    f = crashed.file("pages")
    f.append({"a": 1})
    f.close()
    crashed._lock_fh.close()  # the process died: its lock is released, the folder stays
    assert crashed.path.exists()
    nxt = SpillDir(base, "next")
    try:
        assert not crashed.path.exists()
        assert live.path.exists()
    finally:
        nxt.close()
        live.close()
    assert not base.exists() or not list(base.iterdir())
