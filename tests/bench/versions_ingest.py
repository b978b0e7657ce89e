"""What migration 0024 (issue 26) costs an upload on the write path: the
index of each version's runs by key (runs_version_key) and the triggers
that name the touched version in version_dirty.  The same runs rows go
into two copies of one freshly migrated database, one with them and one
without, batches alternating between them, every other trigger firing
(list_sort_ingest.py's harness).  The recomputation itself runs after the
commit on the refresh thread, once per touched version, not per upload.
Prints the ratio of CPU time and of wall time; never fails on speed.

    /usr/bin/python3 tests/bench/versions_ingest.py --bin ./llm-speedd [--runs 10000]
"""
import list_sort_ingest as h

h.INDEXES = ("runs_version_key",)
TRIGGERS = ("version_dirty_insert", "version_dirty_update", "version_dirty_delete")
_open = h.open_copy


def open_copy(base, path, drop):
    con = _open(base, path, drop)
    for name in TRIGGERS if drop else ():
        con.execute("DROP TRIGGER " + name)
    return con


h.open_copy = open_copy

if __name__ == "__main__":
    h.main()
