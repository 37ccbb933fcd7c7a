"""Provider profiles: what each provider accepts in a tool definition (`--profile`).

Facts encoded:

- OpenAI tool names match ``^[a-zA-Z0-9_-]{1,64}$`` (dots are invalid; BFCL rewrites them to
  ``_``). Anthropic documents the same pattern. MCP (2025-11-25) allows 1–128 characters of
  ``A-Za-z0-9_-.``. ``generic`` only refuses empty names and whitespace/control characters.
- OpenAI function parameters must be a ``type: object`` schema without ``oneOf``/``anyOf``/
  ``allOf``/``enum``/``not`` at the top level; Anthropic and MCP also require a root object.
- OpenAI strict mode (``openai-strict``, or any OpenAI tool declaring ``"strict": true``):
  ``additionalProperties: false`` on every object, every property listed in ``required``
  (optional = a union with ``null``), a root object that is not ``anyOf``; ``allOf``, ``not``,
  ``if``/``then``/``else``, ``dependentRequired``, ``dependentSchemas`` are rejected; at most
  5,000 object properties, 10 levels of nesting, 1,000 enum values and 120,000 characters of
  property names and enum values per schema.
- Fine-tuned models in strict mode (``openai-strict-finetuned``) also reject ``minLength``,
  ``maxLength``, ``pattern``, ``format``, ``minimum``, ``maximum``, ``multipleOf``,
  ``patternProperties``, ``minItems``, ``maxItems`` — so SC005/SC006 never ask for them there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolcall_cli.model.config_keys import DEFAULT_LINT_PROFILE

STRICT_REJECTED = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas")
FINETUNED_REJECTED = (
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "multipleOf",
    "patternProperties",
    "minItems",
    "maxItems",
)
ROOT_REJECTED = ("oneOf", "anyOf", "allOf", "enum", "not")


@dataclass(frozen=True, slots=True)
class Limits:
    """Structured-output size limits (per schema)."""

    properties: int = 5000
    nesting: int = 10
    enum_values: int = 1000
    chars: int = 120_000


@dataclass(frozen=True, slots=True)
class Profile:
    """What one provider accepts."""

    name: str
    name_pattern: re.Pattern[str]
    name_rule: str  # human form of the pattern, for messages
    provider: str  # "openai" | "anthropic" | "mcp" | "generic"
    strict: bool = False
    rejected: tuple[str, ...] = ()  # keywords rejected anywhere (strict / fine-tuned)
    root_rejected: tuple[str, ...] = ()  # keywords rejected at the top level
    root_object: bool = False  # the parameters schema must be type: object
    limits: Limits | None = None

    def forbids(self, keyword: str) -> bool:
        """True when this profile rejects *keyword* (so no rule may ask for it)."""
        return keyword in self.rejected

    def with_strict(self) -> Profile:
        """This profile as used for a tool that opts into strict mode itself."""
        if self.strict:
            return self
        return Profile(
            name=self.name,
            name_pattern=self.name_pattern,
            name_rule=self.name_rule,
            provider=self.provider,
            strict=True,
            rejected=tuple(dict.fromkeys(self.rejected + STRICT_REJECTED)),
            root_rejected=self.root_rejected,
            root_object=True,
            limits=Limits(),
        )


_OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OPENAI = Profile(
    "openai",
    _OPENAI_NAME,
    "^[a-zA-Z0-9_-]{1,64}$",
    "openai",
    root_rejected=ROOT_REJECTED,
    root_object=True,
)

PROFILES: dict[str, Profile] = {
    "openai": _OPENAI,
    "openai-strict": Profile(
        "openai-strict",
        _OPENAI_NAME,
        _OPENAI.name_rule,
        "openai",
        strict=True,
        rejected=STRICT_REJECTED,
        root_rejected=ROOT_REJECTED,
        root_object=True,
        limits=Limits(),
    ),
    "openai-strict-finetuned": Profile(
        "openai-strict-finetuned",
        _OPENAI_NAME,
        _OPENAI.name_rule,
        "openai",
        strict=True,
        rejected=STRICT_REJECTED + FINETUNED_REJECTED,
        root_rejected=ROOT_REJECTED,
        root_object=True,
        limits=Limits(),
    ),
    "anthropic": Profile(
        "anthropic", _OPENAI_NAME, _OPENAI.name_rule, "anthropic", root_object=True
    ),
    "mcp": Profile(
        "mcp",
        re.compile(r"^[A-Za-z0-9_.-]{1,128}$"),
        "^[A-Za-z0-9_.-]{1,128}$",
        "mcp",
        root_object=True,
    ),
    "generic": Profile(
        "generic",
        re.compile(r"^[^\s\x00-\x1f\x7f]{1,256}$"),
        "1-256 characters, no whitespace or control characters",
        "generic",
    ),
}

DEFAULT_PROFILE = DEFAULT_LINT_PROFILE


def get_profile(name: str) -> Profile:
    """The profile called *name*; unknown → UsageError listing the choices."""
    from toolcall_cli.errors import UsageError

    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(
            f"unknown profile {name!r}", hint=f"choose one of: {', '.join(PROFILES)}"
        ) from None
