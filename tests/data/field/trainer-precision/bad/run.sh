CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py \
    --model_name_or_path THUDM/chatglm2-6b \
    --do_train \
    --per_device_train_batch_size 4 \
    --learning_rate 2e-5 \
    --output_dir outputs-sft \
    --deepspeed deepspeed_zero_stage2_config.json
