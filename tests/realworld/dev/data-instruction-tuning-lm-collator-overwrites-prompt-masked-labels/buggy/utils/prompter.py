import json
from pathlib import Path

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


class PromptBuilder:
    """Renders an instruction record into the prompt text the model sees."""

    def __init__(self, name="alpaca"):
        self.template = json.loads((TEMPLATE_DIR / f"{name}.json").read_text())

    def prompt(self, instruction, context=""):
        if context:
            return self.template["with_context"].format(instruction=instruction, input=context)
        return self.template["without_context"].format(instruction=instruction)

    def answer_of(self, generated):
        return generated.split(self.template["answer_marker"], 1)[-1].strip()
