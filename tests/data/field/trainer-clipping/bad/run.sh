torchrun --nproc_per_node 8 train.py --output_dir out --max_grad_norm 0.3 --deepspeed zero2.json
