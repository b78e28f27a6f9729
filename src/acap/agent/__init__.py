"""The agent side in a real a2a-sdk server: replies that keep the card's On Request
promises, and ``acap probe`` for any live agent. Needs the ``agent`` extra (a2a-sdk 1.3;
``pip install '.[agent]'`` in acap's repository); nothing here is imported by ``import acap``.

Serve an agent (see ``docs/agent-developers.md`` and ``examples/agent/``)::

    from acap.agent import BuiltCard, OnRequestExecutor, create_app

    built = BuiltCard.from_project("operator.yaml")     # what acap build wrote
    app = create_app(OnRequestExecutor(MyExecutor(), built, skill_of=my_classifier), built)

* :class:`BuiltCard`: the card's exact bytes, its JWKS and the runtime policy, checked to
  belong together;
* :class:`OnRequestExecutor`: the §5 decision and the §6 reply as SDK objects, streaming
  included, every event of the developer's executor through the egress guard
  (:class:`GuardedQueue`), referrals in the operator's languages;
* :func:`asserts_named_person`, :func:`assert_named_person`: acap's provisional form of
  an assistant's assertion that it acts for a named person (OR-5.5, §9 item 1);
* :class:`DeferredActions`: actions left to staff (OR-5.8), and the staff's API;
* :class:`AnonymousCaller`: each anonymous request its own task owner (no caller reads
  another's tasks);
* :class:`ExtensionsEcho`, :class:`ActivatingContextBuilder`, :func:`activate`: the
  ``A2A-Extensions`` response header for Starlette and FastAPI apps;
* :func:`card_routes`, :func:`create_app`: the card's bytes and JWKS, and the app;
* :func:`probe`: a live conformance probe of any A2A 1.0 agent declaring the extension
  (``acap probe URL``).

May import: :mod:`acap.publisher`, :mod:`acap.builder`, :mod:`acap.replies` and the
stages below them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.agent._assertion import ACTS_FOR_NAMED_PERSON as ACTS_FOR_NAMED_PERSON
    from acap.agent._assertion import assert_named_person as assert_named_person
    from acap.agent._assertion import asserts_named_person as asserts_named_person
    from acap.agent._built import BuiltCard as BuiltCard
    from acap.agent._callers import AnonymousCaller as AnonymousCaller
    from acap.agent._deferred import DeferredActions as DeferredActions
    from acap.agent._deferred import PendingAction as PendingAction
    from acap.agent._executor import NamedPerson as NamedPerson
    from acap.agent._executor import OnRequestExecutor as OnRequestExecutor
    from acap.agent._executor import SkillOf as SkillOf
    from acap.agent._executor import to_sdk as to_sdk
    from acap.agent._guard import Entitlement as Entitlement
    from acap.agent._guard import GuardedQueue as GuardedQueue
    from acap.agent._http import ACTIVATED as ACTIVATED
    from acap.agent._http import ActivatingContextBuilder as ActivatingContextBuilder
    from acap.agent._http import ExtensionsEcho as ExtensionsEcho
    from acap.agent._http import activate as activate
    from acap.agent._http import card_routes as card_routes
    from acap.agent._http import create_app as create_app
    from acap.agent._http import proto_card as proto_card
    from acap.agent._probe import PROBE_RULES as PROBE_RULES
    from acap.agent._probe import ProbeOptions as ProbeOptions
    from acap.agent._probe import ProbeResult as ProbeResult
    from acap.agent._probe import interface_refusal as interface_refusal
    from acap.agent._probe import probe as probe
    from acap.agent._probe import probe_async as probe_async
    from acap.agent._probe import read_probe_file as read_probe_file
    from acap.agent._probe_judge import Exchange as Exchange
    from acap.agent._probe_net import Guard as Guard
    from acap.agent._probe_net import GuardedTransport as GuardedTransport
    from acap.agent._probe_net import ProbeRefused as ProbeRefused

__getattr__, __dir__ = exports(__name__)
