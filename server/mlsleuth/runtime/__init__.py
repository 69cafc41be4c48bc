"""Runtime tools that execute the user's code in a child process.

* ``prepared`` - :class:`PreparedRun`, the shape every runtime tool (trace,
  diagnose, nan) hands to the CLI and the MCP server.
* ``trace``    - ``mlsleuth trace SCRIPT``: watch the first steps of a real script.
* ``diagnose`` - ``mlsleuth diagnose FILE:FUNCTION``: the cheap check battery.
* ``checks``   - the documentation (RuleDoc) of every trace/diagnose check.

Nothing here imports torch: torch lives only in the child (``mlsleuth.harness``).
"""
