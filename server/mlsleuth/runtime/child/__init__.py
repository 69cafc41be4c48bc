"""Code that runs *inside the child process*, in the user's own interpreter.

Everything in this folder needs only the standard library and torch: the
user's environment may not have mlsleuth's dependencies (pydantic, mcp), and
may even be a different Python. The parent (:mod:`mlsleuth.process_runner`)
starts an entry script from this folder by path (``python trace_main.py
CONFIG.json``; see ``CHILD_DIR`` in :mod:`mlsleuth.runtime.common`), so modules
here import their siblings by bare name (the script's folder is
``sys.path[0]``) and never import ``mlsleuth`` (checked by
tests/runtime/test_imports.py).

* entry scripts: ``trace_main``, ``diagnose_main``, ``nan_main``;
* ``run_user_script`` - runs the user's script unmodified under observation (trace, nan);
* ``setup_contract``  - loads a ``FILE:FUNCTION`` setup (diagnose, nan);
* ``channel``  - report results and progress back to the parent (JSON files);
* ``observer`` - the hook protocol the script runner calls; ``trace`` and ``nan``
  each implement an observer (``trace_observer``, ``nan_watch``);
* ``probes``, ``diagnose_checks``, ``nan_ops``, ``nan_snapshots`` - the measurements;
* ``compile_guard`` - torch.compile'd code runs eagerly while observed (dynamo would trace the hooks);
* ``trace_amp`` - GradScaler and accelerate for trace: the loss as computed, skipped steps, scaled clipping.
"""
