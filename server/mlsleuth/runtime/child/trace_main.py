"""Entry script of ``mlsleuth trace``: ``python trace_main.py CONFIG.json``.

The config holds ``script``, ``argv`` and ``max_steps`` (see ``run_user_script.main_with_config``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rank_launcher

if __name__ == "__main__" and rank_launcher.launch_if_asked(os.path.abspath(__file__)):
    sys.exit(0)  # this process launched the ranks (--nproc-per-node) and wrote their results

import rank_metrics
import rank_sync
import run_user_script
from trace_generic import GenericObserver
from trace_observer import TraceObserver
from trace_pinn import PinnObserver
from trace_rl import RLObserver
from trace_terms import TermsObserver

if __name__ == "__main__":
    run_user_script.main_with_config(
        lambda config: [TraceObserver(config), PinnObserver(config), RLObserver(config), GenericObserver(config),
                    TermsObserver(config)]
        + ([rank_sync.RankObserver(config), rank_metrics.ShardEvalObserver(config)] if rank_sync.world() else [])
    )
    rank_sync.leave_if_rank()
