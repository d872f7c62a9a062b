# A minimal Hugging Face training script of the shape the reports run (HfArgumentParser ->
# TrainingArguments -> Trainer), written by hand for recipelint's tests.
from dataclasses import dataclass, field

import transformers
from transformers import HfArgumentParser, Trainer


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="gpt2")


@dataclass
class DataArguments:
    data_path: str = field(default="")


def main() -> None:
    parser = HfArgumentParser((ModelArguments, DataArguments, transformers.Seq2SeqTrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    Trainer(model=None, args=training_args).train()


if __name__ == "__main__":
    main()
