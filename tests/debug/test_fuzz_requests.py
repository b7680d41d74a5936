"""Random sequences of requests, valid and not, to one adapter (issue 30): every request
gets its response, with its own `request_seq`, and the adapter is alive at the end."""

from __future__ import annotations

from typing import Any

from dap_support import HEAT_E1, DapClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

COMMANDS = ["initialize", "launch", "setBreakpoints", "setExceptionBreakpoints", "configurationDone", "threads",
            "stackTrace", "scopes", "variables", "continue", "next", "stepIn", "stepOut", "pause", "exceptionInfo",
            "evaluate", "disassemble", "setVariable", "source", "readMemory", "restart", "goto", "nonsense"]
JUNK = st.one_of(st.none(), st.integers(-3, 5), st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=2))


def arguments(command: str) -> st.SearchStrategy[Any]:
    known: dict[str, st.SearchStrategy[Any]] = {
        "launch": st.fixed_dictionaries({"program": st.sampled_from([str(HEAT_E1), "/no/such.ci", ""])},
                                        optional={"stopOnEntry": st.booleans(), "fuel": JUNK, "entry": JUNK,
                                                  "stopOnFault": st.one_of(st.booleans(), JUNK),
                                                  "runToWorkItem": st.one_of(JUNK, st.fixed_dictionaries(
                                                      {"dispatch": st.integers(-1, 2),
                                                       "workItem": st.integers(-1, 70)})),
                                                  "noDebug": st.booleans(), "executor": JUNK}),
        "setBreakpoints": st.fixed_dictionaries({"source": st.fixed_dictionaries({"path": st.just(str(HEAT_E1))}),
                                                 "breakpoints": st.lists(st.fixed_dictionaries(
                                                     {"line": st.integers(-1, 40)},
                                                     optional={"condition": st.sampled_from(["x == 4", "x +", ""]),
                                                               "hitCondition": st.sampled_from(["3", "% 2", "x"]),
                                                               "logMessage": st.sampled_from(["{y}", "{", "a"])}),
                                                     max_size=3)}),
        "setExceptionBreakpoints": st.fixed_dictionaries({"filters": st.lists(st.sampled_from(["faults", "x"]),
                                                                              max_size=2)},
                                                         optional={"filterOptions": st.lists(st.fixed_dictionaries(
                                                             {"filterId": st.sampled_from(["faults", "x"]),
                                                              "condition": st.sampled_from(["E_OVERFLOW", "E_X", ""])}),
                                                             max_size=2)}),
        "next": st.fixed_dictionaries({"threadId": st.just(1)},
                                      optional={"granularity": st.sampled_from(["instruction", "line", "x"])}),
        "disassemble": st.fixed_dictionaries({"memoryReference": st.sampled_from(["0x2000005", "0x0", "zz"]),
                                              "instructionCount": st.integers(-2, 50)},
                                             optional={"instructionOffset": st.integers(-60, 60),
                                                       "offset": st.integers(-5, 5)}),
        "stackTrace": st.fixed_dictionaries({"threadId": st.integers(0, 2)},
                                            optional={"startFrame": st.integers(-1, 5), "levels": st.integers(-1, 5)}),
        "scopes": st.fixed_dictionaries({"frameId": st.integers(-1, 5)}),
        "variables": st.fixed_dictionaries({"variablesReference": st.integers(-1, 8)}),
    }
    return known.get(command, st.one_of(st.just({}), st.dictionaries(st.text(max_size=4), JUNK, max_size=2), JUNK))


requests = st.lists(st.sampled_from(COMMANDS).flatmap(lambda c: st.tuples(st.just(c), arguments(c))),
                    min_size=1, max_size=25)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_every_request_is_answered_and_the_adapter_lives(sequence: list[tuple[str, Any]]) -> None:
    client = DapClient()
    try:
        sent = [client.send(command, args if isinstance(args, dict) else {"x": args}) for command, args in sequence]
        for seq, (command, _) in zip(sent, sequence):
            answer = client.response(seq)
            assert answer["command"] == command and answer["request_seq"] == seq
            assert answer["success"] or answer.get("message")
            # a defect of ours is answered too, but is one: adapter.py's last resort
            assert not answer.get("message", "").startswith(f"`{command}` failed:"), answer
        assert client.proc.poll() is None
        assert client.request("threads")["body"]["threads"] == [{"id": 1, "name": "main"}]
    finally:
        client.close()
