"""Generate distinct operators for the batch benchmark (names, skills, hosts and keys differ).

Each operator gets its own folder with operator.yaml and its own ES256 key
(made here, before timing starts, so key generation is not measured).
"""

from __future__ import annotations

import random
from pathlib import Path

TRADES = [
    ("Funeral Home", "service-pricing", "Service costs", "pricing"),
    ("Dental Clinic", "treatment-fees", "Treatment fees", "fees"),
    ("Law Firm", "case-quote", "Quote for a matter", "quotes"),
    ("Veterinary Practice", "procedure-costs", "Procedure costs", "costs"),
    ("Tutoring Centre", "course-fees", "Course fees", "fees"),
]


def operator_yaml(i: int, rng: random.Random) -> str:
    """The operator.yaml text of generated operator number ``i``."""
    trade, sid, sname, tag = TRADES[i % len(TRADES)]
    host = f"op{i}.example"
    name = f"Example {trade} {i}"
    extra = "\n".join(
        f"""  - id: info-{k}
    kind: public
    name: Information {k}
    description: Public information number {k} from {name}.
    tags: [info, n{k}]""" for k in range(rng.randint(1, 4)))
    return f"""operator:
  name: {name}
  website: https://{host}
agent:
  name: {name} assistant
  description: Answers questions for {name}.
  version: 1.{i % 7}.{i % 11}
  interfaces:
    - url: https://agent.{host}/a2a/v1
  streaming: false
skills:
  - id: {sid}
    kind: on-request
    name: {sname}
    description: Given to the person who asks, on request.
    tags: [{tag}]
    examples:
      - What does it cost at {name}?
    personEntry: https://{host}/ask
    assistantAccess: false
  - id: speak-to-staff
    kind: public
    reachesStaff: true
    name: Speak to a member of staff
    description: A callback from a member of staff, weekdays 09:00 to 17:00, in English.
    tags: [escalation]
{extra}
signing:
  kid: op{i}-1
"""


def write_operators(folder: Path, count: int, seed: int = 7) -> list[Path]:
    """Write ``count`` operators under ``folder``; returns their operator.yaml paths."""
    from acap.keys import generate_private_key, write_private_key

    rng = random.Random(seed)
    paths = []
    for i in range(count):
        d = folder / f"op{i:05d}"
        d.mkdir(parents=True)
        (d / "operator.yaml").write_text(operator_yaml(i, rng), encoding="utf-8")
        write_private_key(d / ".acap" / "signing-key.pem", generate_private_key("ES256"))
        paths.append(d / "operator.yaml")
    return paths
