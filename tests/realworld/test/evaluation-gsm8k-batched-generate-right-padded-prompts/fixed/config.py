from dataclasses import dataclass


@dataclass
class EvalConfig:
    model_name_or_path: str = "checkpoints/llama2-7b-gsm8k-sft"
    data_file: str = "data/gsm8k_test.jsonl"
    batch_size: int = 16
    max_prompt_length: int = 512
    max_new_tokens: int = 256
    padding_side: str = "left"
    output_file: str = "outputs/gsm8k_predictions.jsonl"
