"""The supervisor of a private local Ray (``--cluster local[:N]``): a small process of its own that reaps the Ray
the workbench started when the driver ends, however it ends (a normal exit, Ctrl-C, SIGTERM or SIGKILL).

Ray's head processes die with the driver (the kernel's parent-death signal), but the agents the raylet starts
(``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``) and its workers only notice minutes later, and nothing removes
the temporary folder. The driver starts this supervisor (``start``) before Ray, in a session of its own (a
Ctrl-C or a signal to the driver's process group does not reach it), with a pipe on its standard input that
only the driver holds. Meanwhile it notes, four times a second, every process of that Ray: those whose command
line names the temporary folder (GCS, raylet, monitors) and all their descendants (agents, workers), each by pid
and start time (a pid used again later is never taken for it). When the pipe closes (the driver closed the
cluster, or died: the kernel closes its end) or the driver is no longer its parent, it kills what it noted that
still runs, again until none is left, removes the temporary folder and exits.

Run as a script (``python ray_supervisor.py DRIVER_PID FOLDER``): it imports the standard library only.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TICK_S = 0.25  # how often the Ray's processes are noted while the driver lives
REAP_S = 10.0  # how long the supervisor keeps killing what it noted before it gives up
Process = tuple[int, str]  # (pid, start time in clock ticks since boot): one process, never a later one


def _stat(pid: int) -> tuple[int, str] | None:
    """``(parent pid, start time)`` of ``pid``, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[19]


def _names_folder(pid: int, folder: bytes) -> bool:
    try:
        return folder in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def ray_processes(folder: str) -> set[Process]:
    """The processes of the Ray whose temporary folder is ``folder``: those whose command line names it, and
    their descendants."""
    parents: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None:
                parents.setdefault(stat[0], []).append(int(entry))
                starts[int(entry)] = stat[1]
    needle = os.fsencode(os.path.join(folder, ""))  # the folder's own paths, never a longer name's
    todo = [pid for pid in starts if pid != os.getpid() and _names_folder(pid, needle)]
    found: set[Process] = set()
    while todo:
        pid = todo.pop()
        if pid in starts and (pid, starts[pid]) not in found:
            found.add((pid, starts[pid]))
            todo += parents.get(pid, [])
    return found


def _alive(process: Process) -> bool:
    stat = _stat(process[0])
    return stat is not None and stat[1] == process[1] and not _zombie(process[0])


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def reap(noted: set[Process], folder: str, deadline_s: float = REAP_S) -> set[Process]:
    """Kill every noted process that still runs, and whatever of that Ray appears meanwhile, until none is left
    (or ``deadline_s`` passed); then remove ``folder``. Returns what could not be killed."""
    end = time.monotonic() + deadline_s
    left = set(noted)
    while True:
        left = {p for p in left | ray_processes(folder) if _alive(p)}
        if not left or time.monotonic() > end:
            break
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
        time.sleep(0.05)
    shutil.rmtree(folder, ignore_errors=True)
    return left


def supervise(driver: int, folder: str) -> None:
    """Note the Ray's processes until the driver closes the pipe or is gone, then reap them (see the module)."""
    noted: set[Process] = set()
    while True:
        noted |= ray_processes(folder)
        if os.getppid() != driver:
            break
        ready, _, _ = select.select([sys.stdin], [], [], TICK_S)
        if ready and not os.read(sys.stdin.fileno(), 4096):
            break
    reap(noted, folder)


def start(folder: str) -> subprocess.Popen[bytes]:
    """Start the supervisor of the Ray whose temporary folder is ``folder`` (before Ray starts); ``stop`` it when
    the cluster is closed."""
    return subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()), folder],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True)


def stop(process: subprocess.Popen[bytes], timeout_s: float = REAP_S + 2) -> None:
    """Tell the supervisor the cluster is closed and wait until it has reaped what was left and exited."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the driver's end of the pipe stops it
    supervise(int(sys.argv[1]), sys.argv[2])
