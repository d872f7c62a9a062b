accelerate launch --config_file  ./fsdp.yml  train.py \
    --model_name_or_path /baichuan \
    --do_train \
    --output_dir out/train_2023  \
    --per_device_train_batch_size 4 \
    --per_device_eval_batch_size 4 \
    --gradient_accumulation_steps 2 \
    --lr_scheduler_type cosine \
    --logging_steps 100 \
    --save_steps 100 \
    --eval_steps 100 \
    --learning_rate 5e-5 \
    --max_grad_norm 0.5 \
    --num_train_epochs 3 \
    --eval_strategy steps \
    --load_best_model_at_end \
    # --fp16
