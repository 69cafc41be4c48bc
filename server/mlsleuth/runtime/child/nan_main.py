"""Entry script of ``mlsleuth nan`` (runs in the child: ``python nan_main.py CONFIG.json``).

Two modes, one watcher (:class:`nan_watch.NanObserver`; replays use its subclass
:class:`nan_watch.NanReplayObserver`, which adds the module hooks the locator needs):

* ``script``: the user's unmodified script runs under the shared runner
  (``run_user_script.run``) with cheap watching. At the first non-finite value the
  run stops; then the *same script* is run again in a fresh process (a child of
  this one, so a timeout still kills it) with the operation-level locator armed
  for the failing step only. That second run also compares per-step parameter
  fingerprints with the first, so a run that does not repeat itself is caught
  and reported as non-deterministic instead of being trusted.
* ``function``: a ``FILE:FUNCTION`` setup (see ``setup_contract``) is trained
  here for ``max_steps`` steps under the same runner patches. At the first
  non-finite value the model, optimizer and RNG states are restored from the
  newest good snapshot in the ring and the steps from it up to the failing one
  are replayed on their saved batches, in this process: the steps before the
  failing one with the cheap checks (their parameter fingerprints compared with
  the first run's), the failing one with the locator armed.

Every step of the first run is checked, so the failing step is known exactly
and a replay never needs to search for it (no bisection): it steps forward
from its starting point. Its result says which steps it ran (``replayed``).

The JSON result is the runner's payload plus ``mode`` and ``replay_run``.
Standard library and torch only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from typing import Any

import channel
import run_user_script
from observer import StopTraining

REPLAY_STDERR_TAIL = 4000


def _exception(exc: BaseException) -> dict[str, str]:
    return run_user_script.exception_info(exc)


# -- script mode ------------------------------------------------------------------------------
def run_script(config: dict[str, Any]) -> dict[str, Any]:
    import rank_sync
    from nan_watch import NanObserver, NanReplayObserver

    obs = (NanObserver if config.get("replay_step") is None else NanReplayObserver)(config)
    payload = run_user_script.run(
        config["script"],
        config.get("argv", []),
        observers=[obs, rank_sync.RankObserver(config)] if rank_sync.world() else [obs],
        max_steps=config.get("max_steps"),
        extra={"mode": "script"},
        write=False,
    )
    if obs.failure is not None and config.get("replay", True) and config.get("replay_step") is None:
        payload["replay_run"] = replay_script(config, obs)
    return payload


def replay_script(config: dict[str, Any], obs: Any) -> dict[str, Any]:
    """Run the script again in a fresh process, with the locator armed for the failing step."""
    import rank_sync

    step = obs.failure["step"]
    rendezvous = rank_sync.free_rendezvous()  # this process may still hold the rendezvous port
    if rendezvous is None:
        return {"status": "replay-skipped", "error": "a rank of a multi-process run cannot be replayed alone; "
                "run `mlsleuth nan --nproc-per-node N` to let mlsleuth replay every rank"}
    # inside the run's scratch folder (the result file's): removed with it even if the run is killed
    scratch = os.path.dirname(os.environ.get(channel.RESULT_ENV, "")) or None
    with tempfile.TemporaryDirectory(prefix="mlsleuth-nan-replay-", dir=scratch) as tmp:
        cfg = dict(config)
        cfg.update({"replay_step": step, "max_steps": step + 1, "expected": obs.fingerprints, "save_dir": None, "snapshot_every": 0, "copy_batches": False})
        cfg_path = os.path.join(tmp, "config.json")
        with open(cfg_path, "w", encoding="utf-8") as fh:
            json.dump(cfg, fh)
        result_path = os.path.join(tmp, "result.json")
        err_path = os.path.join(tmp, "stderr.txt")
        env = dict(os.environ)
        env[channel.RESULT_ENV] = result_path
        env.pop(channel.PROGRESS_ENV, None)  # the replay's steps must not look like progress of the first run
        env.pop(channel.STEP_ENV, None)
        env.update(rendezvous)
        channel.progress(f"replaying step {step} with operation-level instrumentation", step=step, replay=True, force=True)
        with open(err_path, "wb") as err:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), cfg_path],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=env,
                cwd=os.getcwd(),
                check=False,
            )
        try:
            with open(result_path, encoding="utf-8") as fh:
                result = json.load(fh)
        except (OSError, ValueError) as exc:
            with open(err_path, "rb") as fh:
                tail = fh.read()[-REPLAY_STDERR_TAIL:].decode("utf-8", "replace")
            return {"status": "replay-failed", "error": f"the replay run wrote no result ({exc}); exit status {proc.returncode}", "stderr": tail}
    return {
        "status": result.get("status"),
        "steps": result.get("steps"),
        "exception": result.get("exception"),
        "observer_errors": result.get("observer_errors", []),
        "nan": (result.get("observers") or {}).get("nan"),
        "replayed": _replayed("script-start", 0, step, result.get("steps")),
    }


def _replayed(source: str, first: int, failing: int, steps_run: Any) -> dict[str, Any]:
    """Which steps a replay ran and how: the cheap checks on ``first .. failing - 1``, every operation on ``failing``.

    The watch checks every step, so the failing step is known exactly: the replay steps forward
    from its starting point and arms the operation-level locator for that one step only (a
    bisection over the steps would re-run more of them to learn what is already known).
    """
    return {"from": source, "first": first, "failing": failing, "checked": [first, failing - 1] if failing > first else None,
            "instrumented": failing, "steps_run": steps_run}


# -- function mode --------------------------------------------------------------------------------
def _batches(setup: Any):
    """The setup's single batch forever, or its loader epoch after epoch (stops when an epoch is empty)."""
    if setup.batch is not None:
        while True:
            yield setup.batch
    while True:
        got = False
        for batch in setup.loader:
            got = True
            yield batch
        if not got:
            return


def _device_of(model: Any) -> Any:
    for p in model.parameters():
        return p.device
    return None


def _train(setup: Any, model: Any, optimizer: Any, obs: Any, runner: Any, batches: Any, first_step: int, last_step: int, move: Any) -> tuple[str, Any]:
    """Train steps ``first_step .. last_step - 1``; return (status, exception info)."""
    device = _device_of(model)
    try:
        for step in range(first_step, last_step):
            try:
                batch = next(batches)
            except StopIteration:
                return "finished", None
            if device is not None:
                batch = move(batch, device)
            obs.note_batch(runner, batch)
            if obs.failure is not None:
                return "non-finite", None
            optimizer.zero_grad()
            loss, _ = setup.loss(model, batch)
            loss.backward()
            optimizer.step()
        return "max-steps", None
    except StopTraining as stop:
        return str(stop) or "max-steps", None
    except Exception as exc:  # noqa: BLE001 - the user's code failed mid-run: a result, not our crash
        return "exception", _exception(exc)


def run_function(config: dict[str, Any]) -> dict[str, Any]:
    import setup_contract
    from nan_watch import NanObserver

    max_steps = int(config.get("max_steps") or 100)
    payload: dict[str, Any] = {"mode": "function", "status": "setup-error", "steps": 0, "last_good_step": None, "max_steps": max_steps, "exception": None, "observers": {}, "observer_errors": []}
    try:
        setup = setup_contract.load_setup(config["spec"])
        model = setup.model
        optimizer = setup.make_optimizer(model.parameters())
    except setup_contract.SetupError as exc:
        payload["exception"] = {"type": "SetupError", "message": str(exc), "traceback": ""}
        return payload
    except Exception as exc:  # noqa: BLE001 - building the model or optimizer failed in user code: reported as a setup error
        payload["exception"] = _exception(exc)
        return payload
    model.train()
    obs = NanObserver({**config, "copy_batches": True})
    obs.model, obs.optimizer = model, optimizer
    obs.param_names = {id(p): n for n, p in model.named_parameters()}
    runner = run_user_script.Runner([obs], max_steps)
    try:
        runner.install()
        runner.notify("on_start")
        status, exc_info = _train(setup, model, optimizer, obs, runner, _batches(setup), 0, max_steps, setup_contract.move)
        if status == "non-finite" or obs.failure is not None:
            status = "non-finite"
    finally:
        runner.uninstall()
    payload.update({"status": status, "steps": runner.step, "last_good_step": runner.step - 1 if runner.step else None, "exception": exc_info, "observer_errors": runner.observer_errors})
    payload["observers"]["nan"] = obs.result()
    if obs.failure is not None and config.get("replay", True):
        payload["replay_run"] = replay_function(config, setup, model, optimizer, obs)
    payload["environment"] = run_user_script.environment_info()
    return payload


def replay_function(config: dict[str, Any], setup: Any, model: Any, optimizer: Any, obs: Any) -> dict[str, Any]:
    """Restore the newest good snapshot and re-run the steps up to the failing one, armed for that step."""
    import setup_contract
    from nan_watch import NanReplayObserver

    step = obs.failure["step"]
    snap = obs.ring.latest_before(step)
    if snap is None:
        why = obs.ring.disabled_reason or "no snapshot was taken before the failing step"
        return {"status": "no-snapshot", "error": why}
    missing = [s for s in range(snap.step, step + 1) if s not in snap.batches]
    if missing:
        return {"status": "no-snapshot", "error": f"the snapshot of step {snap.step} lacks the batches of steps {missing[:5]} (the memory budget could not hold them; raise --memory-budget or lower --snapshot-every)"}
    channel.progress(f"replaying steps {snap.step}..{step} from the snapshot of step {snap.step}", step=step, replay=True, force=True)
    cfg = dict(config)
    cfg.update({"replay_step": step, "expected": obs.fingerprints, "save_dir": None, "snapshot_every": 0, "copy_batches": False})
    obs2 = NanReplayObserver(cfg)
    obs.restore(snap, model, optimizer)
    obs2.model, obs2.optimizer = model, optimizer
    obs2.param_names = dict(obs.param_names)
    runner = run_user_script.Runner([obs2], step + 1)
    runner.step = snap.step
    batches = iter([snap.batches[s] for s in range(snap.step, step + 1)])
    try:
        runner.install()
        runner.notify("on_start")
        status, exc_info = _train(setup, model, optimizer, obs2, runner, batches, snap.step, step + 1, setup_contract.move)
    finally:
        runner.uninstall()
        obs2.on_end(runner, "replay")
    return {"status": status, "steps": runner.step, "exception": exc_info, "from_snapshot": snap.step, "observer_errors": runner.observer_errors, "nan": obs2.result(),
            "replayed": _replayed("snapshot", snap.step, step, runner.step - snap.step)}


def main() -> None:
    import rank_launcher

    if rank_launcher.launch_if_asked(os.path.abspath(__file__)):
        return  # this process launched the ranks (--nproc-per-node) and wrote their results
    try:
        with open(sys.argv[1], encoding="utf-8") as fh:
            config = json.load(fh)
        if config.get("mode") == "function":
            payload = run_function(config)
        else:
            payload = run_script(config)
    except BaseException as exc:
        channel.write_result({"status": "harness-error", "steps": 0, "last_good_step": None, "exception": {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()[-6000:]}, "observers": {}, "observer_errors": []})
        raise
    channel.write_result(payload)
    import rank_sync

    rank_sync.leave_if_rank()


if __name__ == "__main__":
    main()
