"""Code that runs *inside the child process*, in the user's own interpreter.

Everything in this folder needs only the standard library and torch: the
user's environment may not have mlsleuth's dependencies (pydantic, mcp), and
may even be a different Python. The parent starts a harness script from this
folder by path, so modules here import their siblings by bare name (the
script's folder is ``sys.path[0]``) and never import ``mlsleuth``.

* ``channel``  - report results and progress back to the parent (JSON files).
* ``observer`` - the hook protocol the script runner calls; ``trace`` and ``nan``
  each implement an observer.
"""
