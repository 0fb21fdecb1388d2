"""``--cluster local[:N] | ray://HOST:PORT``: chunk sets of ``index``, ``eval`` and ``advise`` embedded on a Ray
cluster (``workbench.core.index.cluster``). The address is checked before any work: a malformed one or a host
that does not resolve is a usage error (exit 2), a remote one without ``--allow-remote`` is refused (exit 1), and
a remote one with it is announced on stderr (the documents' text is sent there)."""

from __future__ import annotations

import argparse

from workbench.commands.common import UsageError, UserError, say
from workbench.commands.llm_options import ALLOW_REMOTE_HELP

CLUSTER_HELP = ("embed the chunk sets this command builds on a Ray cluster: local (one worker per core), local:N "
                "(a private Ray on this machine with N workers, nothing to set up, loopback only) or "
                "ray://HOST:PORT (a running cluster; needs --allow-remote: the documents' text is sent there). The "
                "data folder is written here, as without it; texts already embedded are not sent")


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """``--cluster`` (and ``--allow-remote`` where the command has none yet)."""
    p.add_argument("--cluster", metavar="local[:N]|ray://HOST:PORT", help=CLUSTER_HELP)
    if "--allow-remote" not in p._option_string_actions:
        p.add_argument("--allow-remote", action="store_true", help=ALLOW_REMOTE_HELP)


def check_cluster(args: argparse.Namespace) -> None:
    """Check ``--cluster`` before any work and keep the (not yet started) cluster on ``args.cluster_handle``."""
    text = getattr(args, "cluster", None)
    if text is None:
        return
    from workbench.core.index.cluster import (
        Cluster,
        ClusterAddressError,
        ClusterError,
        check_reachable,
        parse_cluster_address,
        remote_notice,
    )
    from workbench.core.index.embedder_pool import is_ollama_spec

    try:
        address = parse_cluster_address(text)
    except ClusterAddressError as exc:
        raise UsageError(str(exc)) from None
    if is_ollama_spec(getattr(args, "model", None)):
        raise UserError("--cluster embeds with a local model; an ollama: model embeds on its Ollama server already")
    try:
        check_reachable(address)  # first: a host that does not resolve is a usage error (exit 2), with consent or not
        cluster = Cluster(address, allow_remote=bool(getattr(args, "allow_remote", False)), stop_on_sigterm=True)
    except ClusterAddressError as exc:
        raise UsageError(str(exc)) from None
    except ClusterError as exc:
        raise UserError(str(exc)) from None
    if not address.is_local:
        say(f"workbench: note: {remote_notice(address)}", err=True)
    args.cluster_handle = cluster


def close_cluster(args: argparse.Namespace) -> None:
    """Shut down the cluster this command started (if any) and remove its temporary files."""
    cluster = getattr(args, "cluster_handle", None)
    if cluster is not None:
        cluster.close()
        args.cluster_handle = None
