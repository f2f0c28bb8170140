"""End-to-end validation of runs: build the collected tree in a container,
check the output in headless Chromium, screenshot the reference views.

Public: :func:`validate_run`, :class:`ValidationRecord`, :class:`Check`,
:class:`BrowserLimits`.
See docs/validation.md.
"""

from tcab.browser.page import BrowserLimits
from tcab.validation.record import Check, ValidationRecord
from tcab.validation.validate import validate_run

__all__ = ["BrowserLimits", "Check", "ValidationRecord", "validate_run"]
