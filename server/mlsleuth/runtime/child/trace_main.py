"""Entry script of ``mlsleuth trace``: ``python trace_main.py CONFIG.json``.

The config holds ``script``, ``argv`` and ``max_steps`` (see ``run_user_script.main_with_config``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rank_launcher

if __name__ == "__main__" and rank_launcher.launch_if_asked(os.path.abspath(__file__)):
    sys.exit(0)  # this process launched the ranks (--nproc-per-node) and wrote their results

import channel
import rank_sync
import run_user_script
import trace_spawn

if __name__ == "__main__":
    built: list = []

    def observers(config):
        built.extend(trace_spawn.trace_observers(config, in_world=bool(rank_sync.world())))
        return built

    payload = run_user_script.main_with_config(observers)
    world = trace_spawn.world_payload(built, payload or {})
    if world is not None:  # the script started its own ranks (torch.multiprocessing.spawn): their merged result
        channel.write_result(world)
    rank_sync.leave_if_rank()
