"""Counts in the words a person reads: "1 launch", "2 launches" (issue 32: the notes said
"1 launches for 1 dispatches")."""

from __future__ import annotations

# Nouns whose plural is not the noun with "s".
_PLURALS = {"launch": "launches", "dispatch": "dispatches", "work-item": "work-items"}


def counted(count: int, noun: str) -> str:
    """`count` and the noun in agreement: counted(1, "launch") == "1 launch"."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {_PLURALS.get(noun, noun + 's')}"


__all__ = ["counted"]
