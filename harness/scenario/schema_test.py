#!/usr/bin/env python3
"""Holds docs/scenario.schema.json to the scenario parser.

Every scenario in scenarios/ must validate against the schema (the parser side is checked by
tests/determinism, which parses and runs them all), and scenarios the parser rejects for shape
reasons must be rejected by the schema too. Needs python3-jsonschema (.ci/install-deps).
"""
import copy
import json
import pathlib
import sys

import jsonschema

root = pathlib.Path(sys.argv[1])
schema = json.loads((root / "docs" / "scenario.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

failures = []
files = sorted((root / "scenarios").rglob("*.json")) + sorted((root / "examples").rglob("*.json"))
for f in files:
    errors = sorted(validator.iter_errors(json.loads(f.read_text())), key=lambda e: list(e.path))
    for e in errors[:3]:
        failures.append(f"{f.relative_to(root)}: /{'/'.join(map(str, e.path))}: {e.message}")

base = {
    "name": "x", "duration_ms": 10000, "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 2},
    "workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "lease_ms": 1000}]}]},
}
if not validator.is_valid(base):
    failures.append("the minimal scenario does not validate")
bad = {
    "unknown top-level field": {"colour": "blue"},
    "negative fault duration": {"faults": {"schedule": [{"kind": "pause", "at_ms": 1, "target": "c1", "duration_ms": -5}]}},
    "unknown fault kind": {"faults": {"schedule": [{"kind": "meteor", "at_ms": 1}]}},
    "unknown step op": {"workload": {"script": [{"threads": "all", "steps": [{"op": "jump"}]}]}},
    "zero lease": {"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L", "lease_ms": 0}]}]}},
    "both script and generator": {"workload": {"script": [], "generator": {}}},
    "violation without property": {"expect": {"verdict": "violation"}},
    "unknown persistence": {"nodes": {"default": {"persistence": {"mode": "sometimes"}}}},
    "too many clients": {"clients": {"count": 100001}},
    "a name over 256 bytes": {"name": "x" * 257},
    "a control character in a name": {"name": "\u001b[2J ok"},
    "a NUL in a lock name": {"workload": {"script": [{"threads": "all", "steps": [{"op": "lock", "lock": "L\u0000"}]}]}},
    "a C1 control in a resource name": {"workload": {"script": [{"threads": "all", "steps": [{"op": "write", "resource": "R\u009b"}]}]}},
    "a command with no argv": {"workload": {"script": [{"threads": "all", "steps": [{"op": "command"}]}]}},
    "an empty argv": {"workload": {"script": [{"threads": "all", "steps": [{"op": "command", "argv": []}]}]}},
    "a number in argv": {"workload": {"script": [{"threads": "all", "steps": [{"op": "command", "argv": ["PEXPIRE", "L", 5]}]}]}},
    "an escape in an argument": {"workload": {"script": [{"threads": "all", "steps": [{"op": "command", "argv": ["DEL", "\u001b[2J"]}]}]}},
    "an algorithm with a name and a file": {"algorithm": {"name": "set-nx-px", "file": "my-lock.lua"}},
    "an algorithm with neither name nor file": {"algorithm": {"options": {}}},
    "an eval with no script": {"workload": {"script": [{"threads": "all", "steps": [{"op": "eval", "keys": ["L"]}]}]}},
}
for what, patch in bad.items():
    s = copy.deepcopy(base)
    s.update(patch)
    if validator.is_valid(s):
        failures.append(f"the schema accepts a scenario the parser rejects: {what}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"{len(files)} library scenarios validate; {len(bad)} invalid ones are rejected")
