"""The Dask backend of :func:`interpreter.sim.simulate.simulate` (``rulebook simulate --backend
dask [--address tcp://HOST:PORT]``): chunks of games run as Dask tasks on an existing cluster or on
a local one (``dask.distributed.LocalCluster``, one single-threaded worker process per core).

Dask is optional (``pip install -e '.[dask]'``); without it, with a scheduler that cannot be
reached, or a cluster that fails during the run (a worker killed, the scheduler gone), a
:class:`~interpreter.errors.RulebookError` says so (no traceback). A game's own error (RuleError,
with the command that replays it) comes back from its worker as it is.
"""
from __future__ import annotations

import logging
import os
from contextlib import contextmanager

from ..errors import RulebookError

CONNECT_SECONDS = 5  # how long to wait for the scheduler at an address


class DaskPool:
    """A Dask client as the pool :func:`interpreter.sim.simulate._run_chunks` plays chunks on:
    ``submit(fn, *args)`` gives a Dask future, ``wait(futures)`` returns ``(finished, pending)``
    once one has finished; ``workers`` is the cluster's number of worker threads."""

    def __init__(self, client):
        from distributed import as_completed
        self.client = client
        info = client.scheduler_info()
        self.workers = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()) or 1
        self.finishing = as_completed(loop=client.loop)  # each submitted future, as it finishes

    def submit(self, fn, *args):
        future = self.client.submit(fn, *args, pure=False)  # every chunk is its own task
        self.finishing.add(future)
        return future

    def wait(self, futures):
        done = {next(self.finishing)}
        return done, set(futures) - done


def require_dask():
    """The `distributed` module; raises RulebookError saying how to install it when it is missing."""
    try:
        import distributed
    except ImportError:
        raise RulebookError("--backend dask needs Dask: pip install -e '.[dask]' "
                            "(or pip install 'dask[distributed]')") from None
    return distributed


def _check_address(address: str) -> None:
    """Raise RulebookError unless ``address`` reads as ``[tcp://]HOST:PORT`` (checked before
    connecting: a client made with a malformed address would only fail later, noisily)."""
    from distributed.comm.addressing import parse_address, parse_host_port
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise RulebookError(f"--address {address!r} is not a scheduler's address ({exc}): "
                            "write tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786") from None
    if scheme not in ("tcp", "tls") or not host or not port:
        raise RulebookError(f"--address {address!r} is not a scheduler's address: "
                            "write tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786")


@contextmanager
def dask_pool(address: str | None = None, jobs: int = 1):
    """A :class:`DaskPool` on the scheduler at ``address`` (left running when done), or on a new
    local cluster of ``jobs`` worker processes (``jobs`` 1: one per core; closed when done).
    Raises RulebookError when Dask is missing, the scheduler cannot be reached, or the cluster
    fails during the run."""
    distributed = require_dask()
    # Dask's own log lines (a worker's start, a closed connection) are not the user's business
    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = None
    if address is not None:
        _check_address(address)
        try:
            client = distributed.Client(address, timeout=f"{CONNECT_SECONDS}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise RulebookError(f"cannot reach the Dask scheduler at {address}: {reason[:300]}\n"
                                f"    hint: start one with `dask scheduler` (and workers with `dask worker "
                                f"{address}`), or leave out --address to run a local cluster") from None
    else:
        workers = jobs if jobs > 1 else (os.cpu_count() or 1)
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=":0", silence_logs=logging.ERROR)
        client = distributed.Client(cluster, set_as_default=False)
    from concurrent.futures import CancelledError

    from distributed.scheduler import KilledWorker
    try:
        yield DaskPool(client)
    except (KilledWorker, CancelledError, OSError, TimeoutError) as exc:  # not a game's RuleError
        reason = " ".join(str(exc).split()) or type(exc).__name__
        where = f"at {address}" if address is not None else "(local)"
        raise RulebookError(f"the Dask cluster {where} failed during the run: {type(exc).__name__}: "
                            f"{reason[:300]}\n    hint: check its workers (they need the same Rulebook installed), "
                            "or run without --backend dask") from None
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
