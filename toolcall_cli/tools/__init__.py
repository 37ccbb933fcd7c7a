"""Tool definitions: the loaders for every shape a tool registry takes, and the registry model.

`lint` checks these definitions, `pipeline` (replay) validates calls against them, and
`diagnose` asks them which tools exist; all three read them here. Modules: `documents`
(JSON / JSON lines / YAML files), `linemap` (pointer → line), `loaders` (`ToolDef`, every
provider shape), `dialect` (BFCL's type names → JSON Schema), `registry` (`ToolRegistry`).
"""
