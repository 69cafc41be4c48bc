"""Entry script of ``mlsleuth trace``: ``python trace_main.py CONFIG.json``.

The config holds ``script``, ``argv`` and ``max_steps`` (see ``run_user_script.main_with_config``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run_user_script
from trace_observer import TraceObserver
from trace_rl import RLObserver

if __name__ == "__main__":
    run_user_script.main_with_config(lambda config: [TraceObserver(config), RLObserver(config)])
