"""Review items decided by the case author's validation scripts (:mod:`.run`)."""

from tcab.validation.scripts.items import script_items
from tcab.validation.scripts.recording import record_item_decisions
from tcab.validation.scripts.run import (
    KINDS,
    ItemDecision,
    ScriptItem,
    ScriptLimits,
    ScriptOutput,
    run_scripts,
)

__all__ = ["KINDS", "ItemDecision", "ScriptItem", "ScriptLimits", "ScriptOutput", "record_item_decisions",
           "run_scripts", "script_items"]
