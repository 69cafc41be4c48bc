"""Fit the ``Classifier`` of another script of this folder with mlsleuth's callback: ``with_callback.py SCRIPT_NAME REPORT.json [STEPS]``."""
import importlib
import sys

import lightning as L
from mlsleuth.integrations.lightning import MlsleuthCallback
from toy_data import loaders, trainer

if __name__ == "__main__":
    name, report_path = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    L.seed_everything(0)
    train, val = loaders()
    model = importlib.import_module(name).Classifier()
    trainer(max_steps=steps, callbacks=[MlsleuthCallback(report_path=report_path)]).fit(model, train, val)
