"""What the gateway itself logged for the probe's requests: the request log's own timings.

Each request's row in the gateway's SQLite database (request_log.record, JSON) carries
timings_ms.total: from the moment the gateway had the whole request to the moment it answered
(a charged answer after its ledger commit), in whole milliseconds. Read beside the probe's own
latency, it tells the time inside the gateway from the time on the way to it and back (accept,
the client's and the provider's cores, the network stack). The database is read-only here and
in WAL mode, so reading it does not stop the gateway's writer.
"""
import json
import sqlite3


def last_row(database):
    """The newest request_log row's rowid (0 for none): the rows after it are a later hold's."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return db.execute("SELECT coalesce(max(rowid), 0) FROM request_log").fetchone()[0]


def totals_ms(database, after_row, model):
    """timings_ms.total of each row of `model` after rowid `after_row`, answered 200."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT record FROM request_log WHERE rowid > ? AND model = ? AND status = 200",
                          (after_row, model)).fetchall()
    return [json.loads(record)["timings_ms"]["total"] for (record,) in rows]
