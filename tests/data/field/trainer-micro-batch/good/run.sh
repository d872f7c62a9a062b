deepspeed ./train.py --model_name_or_path ckip-joint/bloom-1b1-zh --do_train --do_eval --output_dir ./bloom --overwrite_output_dir --fp16 --deepspeed ds_config.json
