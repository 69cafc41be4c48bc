"""What a rule may ask about code. Nothing here imports the pipeline or the rules.

* :mod:`.context`: :class:`~mlsleuth.scan.analysis.context.FileContext`, one parsed file
  (qualified names behind aliases, parents, enclosing scopes, local values);
* :mod:`.value_origins`: what produced a value (softmax, sigmoid, a loss call...);
* :mod:`.kwargs_dicts`: what a ``**kwargs`` dict holds at a call, path by path;
* :mod:`.training_step_model`: the training events of each loop, in order;
* :mod:`.torch_idioms`: module classes, module kinds, grad-off contexts, model names;
* :mod:`.preprocessing` and :mod:`.loss_inputs`: the questions the data and loss rules share.
"""
