"""initialize, initialized, shutdown, exit and the settings (`workspace/configuration`,
`workspace/didChangeConfiguration`, `initializationOptions`)."""

from __future__ import annotations

import logging
import os
from typing import Any

from lsprotocol import types as lsp

from ... import __version__
from ..runs import keep_spare
from ..session import Session
from ..settings import parse_settings
from .documents import publish_all

logger = logging.getLogger("cint_ls.server")

_STARTUP_CC = os.environ.get("CC")
SECTION = "cint"


# The clients that come with this package (the VS Code extension sends its own name and
# version as clientInfo; it bundles the server of its version). Any other client (Neovim
# sends "Neovim" and its own version) is not checked.
OWN_CLIENTS = ("cint-vscode",)


def initialize(session: Session, params: lsp.InitializeParams) -> None:
    check_client_version(session, params.client_info)
    # After each Run a child is started for the next one (running/isolated.py): a Run of a
    # cached program then takes no interpreter start and imports.
    keep_spare(True)
    if params.initialization_options is not None:
        apply_settings(session, params.initialization_options, initial=True)


def version_mismatch(client_info: lsp.ClientInfo | None) -> str | None:
    """The warning for one of our own clients of another version than this server, else
    None. The server still serves it: the protocol between them (the `cint.*` commands,
    `cint/runResult`) changes only between versions, and a warning that says which two
    versions met explains whatever then misbehaves."""
    if client_info is None or client_info.name not in OWN_CLIENTS or not client_info.version:
        return None
    if client_info.version == __version__:
        return None
    return (f"cint-ls {__version__} was started by {client_info.name} {client_info.version}: the versions "
            f"differ, so some features may not work. Use the server bundled with the extension (clear "
            f"`cint.server.path`), or install cint-ls {client_info.version}.")


def check_client_version(session: Session, client_info: lsp.ClientInfo | None) -> None:
    warning = version_mismatch(client_info)
    if warning is None:
        return
    logger.warning("%s", warning)
    # LSP allows window/showMessage while initialize is being answered.
    try:
        session.client.notify("window/showMessage", lsp.ShowMessageParams(type=lsp.MessageType.Warning,
                                                                          message=warning))
    except Exception:  # noqa: BLE001 - no transport (tests)
        logger.info("window/showMessage failed")


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
    session.settings, warnings = parse_settings(value, previous=before)
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
