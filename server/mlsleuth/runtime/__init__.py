"""Runtime tools that execute the user's code in a child process.

* ``trace``    - ``mlsleuth trace SCRIPT``: watch the first steps of a real script.
* ``diagnose`` - ``mlsleuth diagnose FILE:FUNCTION``: the cheap check battery.
* ``nan``      - ``mlsleuth nan SCRIPT | FILE:FUNCTION``: where the first NaN/Inf is born.

Each tool is a package with one entry point in its ``__init__`` (``prepare_*``,
returning a :class:`~mlsleuth.runtime.prepared.PreparedRun`) and one
``checks.py`` where every check is a function decorated with
:func:`mlsleuth.runtime.registry.runtime_check`. Shared by the three:

* ``child``      - the code that runs *inside* the child (stdlib + torch only);
* ``prepared``   - :class:`PreparedRun`, what every tool hands to the CLI and the MCP server;
* ``registry``   - the check decorator and the check runner;
* ``common``     - interpreter choice, child config, child errors, number formatting;
* ``selection``  - ``--select`` / ``--ignore`` / ``--min-severity`` as a validated Selection;
* ``thresholds`` - every number a check compares against.

Nothing here imports torch: torch lives only in the child (``mlsleuth.runtime.child``).
The process runner is :mod:`mlsleuth.process_runner`.
"""
