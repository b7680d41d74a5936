"""initialize, initialized, shutdown, exit and the settings (`workspace/configuration`,
`workspace/didChangeConfiguration`, `initializationOptions`)."""

from __future__ import annotations

import logging
import os
from typing import Any

from lsprotocol import types as lsp

from ..session import Session
from ..settings import parse_settings
from .documents import publish_all

logger = logging.getLogger("cint_ls.server")

_STARTUP_CC = os.environ.get("CC")
SECTION = "cint"


def initialize(session: Session, params: lsp.InitializeParams) -> None:
    if params.initialization_options is not None:
        apply_settings(session, params.initialization_options, initial=True)


async def initialized(session: Session, params: lsp.InitializedParams) -> None:
    if session.supports("workspace.did_change_configuration.dynamic_registration"):
        try:
            await session.client.register_configuration(SECTION)
        except Exception as error:  # noqa: BLE001
            logger.info("didChangeConfiguration registration failed: %s", error)
    await pull_settings(session)


async def did_change_configuration(session: Session, params: lsp.DidChangeConfigurationParams) -> None:
    if not await pull_settings(session):
        settings = params.settings
        if isinstance(settings, dict):
            apply_settings(session, settings)


def shutdown(session: Session, params) -> None:
    session.stop()


def exit_(session: Session, params) -> None:
    session.stop()


async def pull_settings(session: Session) -> bool:
    """Read the settings with workspace/configuration, when the client can."""
    if not session.supports("workspace.configuration"):
        return False
    try:
        values = await session.client.configuration(SECTION, timeout=10)
    except Exception as error:  # noqa: BLE001
        session.log(lsp.MessageType.Warning, f"cint-ls: workspace/configuration failed: {error}")
        return False
    value = values[0] if values else None
    apply_settings(session, value if value is not None else {})
    return True


def apply_settings(session: Session, value: Any, initial: bool = False) -> None:
    # Every source (a pull, a push, initializationOptions) gives the whole section: a
    # key it leaves out has its default.
    before = session.settings
    session.settings, warnings = parse_settings(value)
    for warning in warnings:
        session.log(lsp.MessageType.Warning, f"cint-ls: {warning}")
    _apply_compiler(session)
    if initial or session.settings == before:
        return
    if session.settings.targets != before.targets:
        publish_all(session)
    if session.settings.step_ordinals != before.step_ordinals and \
            session.supports("workspace.inlay_hint.refresh_support"):
        session.client.refresh_inlay_hints()


def _apply_compiler(session: Session) -> None:
    """cpu-c17 takes its compiler from `$CC`; the runs are child processes of the
    server, so the setting becomes the server's `$CC` (and the one it started with
    comes back when the setting is cleared)."""
    compiler = session.settings.c17_compiler
    if compiler:
        os.environ["CC"] = compiler
    elif _STARTUP_CC is None:
        os.environ.pop("CC", None)
    else:
        os.environ["CC"] = _STARTUP_CC
