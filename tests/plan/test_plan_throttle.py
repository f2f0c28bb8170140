"""The plan's ``concurrency`` and ``retries`` keys: read, and bad numbers refused with file:line: key."""

from __future__ import annotations

import pytest

from tcab.errors import PlanError
from tcab.plan import parse_plan
from tcab.plan.throttle import Concurrency, RetryPolicy

BASE = """\
runs:
  - cases:
      - mini
    harnesses:
      - scripted
"""


def test_caps_and_retries_are_read():
    plan = parse_plan(BASE + """\
concurrency:
  harness:
    scripted: 2
  model:
    anthropic/claude-sonnet-4-5: 40
  secret:
    ANTHROPIC_API_KEY: 4
retries:
  infrastructure: 3
  backoff_s: 5
""", "plan.yaml")
    assert plan.concurrency.cap("secret", "ANTHROPIC_API_KEY") == 4
    assert plan.concurrency.cap("model", "anthropic/claude-sonnet-4-5") == 40
    assert plan.concurrency.cap("harness", "scripted") == 2
    assert plan.concurrency.cap("harness", "other") is None
    assert plan.retries == RetryPolicy(infrastructure=3, backoff_s=5)


def test_without_the_keys_there_are_no_caps_and_no_retries():
    plan = parse_plan(BASE, "plan.yaml")
    assert plan.concurrency == Concurrency() and not plan.concurrency
    assert plan.retries.infrastructure == 0


def test_backoff_doubles_up_to_an_hour():
    policy = RetryPolicy(infrastructure=10, backoff_s=30)
    assert [policy.wait_before(a) for a in (2, 3, 4)] == [30, 60, 120]
    assert policy.wait_before(11) == 3600


@pytest.mark.parametrize(("text", "message"), [
    ("concurrency:\n  secret:\n    ANTHROPIC_API_KEY: 0\n",
     "plan.yaml:8: concurrency.secret.ANTHROPIC_API_KEY: expected an integer from 1 to 1024, got 0"),
    ("concurrency:\n  model:\n    gpt-5: 1000000000\n",
     "plan.yaml:8: concurrency.model.gpt-5: expected an integer from 1 to 1024, got 1000000000"),
    ("concurrency:\n  harness:\n    scripted: 99999999999999999999999\n", "plan.yaml:8: scripted: "),
    ("concurrency:\n  harness:\n    scripted: four\n", "plan.yaml:8: scripted: found arbitrary text"),
    ("concurrency:\n  runtime:\n    x: 1\n", "plan.yaml:7: runtime: unexpected key"),
    ("retries:\n  infrastructure: -1\n", "plan.yaml:7: retries.infrastructure: expected an integer from 0 to 10, got -1"),
    ("retries:\n  infrastructure: 1000000\n",
     "plan.yaml:7: retries.infrastructure: expected an integer from 0 to 10, got 1000000"),
    ("retries:\n  backoff_s: 3601\n", "plan.yaml:7: retries.backoff_s: expected an integer from 0 to 3600, got 3601"),
    ("retries:\n  forever: yes\n", "plan.yaml:7: forever: unexpected key"),
])
def test_bad_numbers_name_file_line_and_key(text, message):
    with pytest.raises(PlanError) as exc:
        parse_plan(BASE + text, "plan.yaml")
    assert str(exc.value).startswith(message), str(exc.value)
