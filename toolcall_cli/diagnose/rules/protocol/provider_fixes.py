"""The fix of a provider error (PR008), by what the error means.

A broken history is rejected on every retry until it is repaired; a rate limit or an
overloaded provider is the opposite: the request is fine and a retry after a wait succeeds.
One fix text for both sends an engineer the wrong way, so the fix follows the cause: the
related code of a history or definition error, else the kind of transient failure.
"""

from __future__ import annotations

#: The repeat of a rejected history fails the same way: said once, after each history fix.
_SAME_WAY = (
    "The provider rejects every request with this history, so a retry as is fails the same way."
)

#: related code → how to repair the history (or the definitions) the provider rejected.
HISTORY_FIXES: dict[str, str] = {
    "OR001": "Give every assistant tool call its tool result, right after the assistant "
    "message (an error result when the call failed or was cancelled).",
    "OR002": "Drop tool results whose call is not in the history, and when trimming the "
    "history keep the assistant message with its tool_calls together with its results.",
    "FL003": "Give every tool call an id unique in the conversation (the provider's id or a "
    "UUID) and never send an id twice.",
    "PR001": "Send the arguments back exactly as a JSON string (repair or re-serialise them "
    "before they enter the history).",
    "TR001": "Validate the model's arguments against the tool schema before the call and "
    "answer a failure with a tool error the model can correct.",
    "FL001": "Stop the repeated call: answer a repeat with the earlier result, or tell the "
    "model in the tool result why the call did not help.",
    "TR004": "Trim or summarise the history to fit the model's context window (summarise old "
    "tool results instead of keeping them verbatim).",
    "SC001": "Fix the tool definition the provider rejects (`toolcall lint` checks it).",
}

#: A cause with no related code (its words in the catalogue) → its fix.
TRANSIENT_FIXES: dict[str, str] = {
    "rate-limited": "Back off and retry: honour Retry-After (else exponential backoff with "
    "jitter), and lower the request rate or raise the quota. The request itself is fine.",
    "overloaded": "Retry with exponential backoff, or fail over to another deployment; the "
    "request itself is fine.",
    "model name": "Use a model name the provider serves, with a key that has access to it; "
    "retries fail until then.",
    "tool_choice": "Relax tool_choice to 'auto', or give the model a tool that fits the turn.",
}

#: The fix when nothing more specific applies.
GENERIC_FIX = (
    "Read the provider's words quoted above: they name what the request got wrong; repair "
    "it before retrying."
)


def fix_for(cause: str, related_code: str | None) -> str:
    """The fix of a provider error with this *cause* and *related_code*."""
    if related_code in HISTORY_FIXES:
        fix = HISTORY_FIXES[related_code]
        return fix if related_code == "SC001" else f"{fix} {_SAME_WAY}"
    for words, fix in TRANSIENT_FIXES.items():
        if words in cause:
            return fix
    return GENERIC_FIX
