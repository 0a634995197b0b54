"""CLI command modules. Each module defines click commands and a
`register(group)` function; cli.py registers every module named in
COMMAND_MODULES, so areas of the CLI live in their own files."""

COMMAND_MODULES = (
    "records",
    "connect",
    "scoring",
    "config",
    "live",
    "deploy",
    "emulation",
    "show",
    "enter",
    "archive",
    "evening",
    "season",
    "twin",
    "wifi",
    "board",
    "rules",
    "why",
    "release",
)
