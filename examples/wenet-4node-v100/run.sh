#!/bin/bash
# A WeNet-style recipe (stage 4 only) reproducing a reported case: NCCL watchdog timeouts
# on 4 nodes x 4 V100 over Ethernet with num_workers 4 and prefetch 250.
. ./path.sh || exit 1;

export CUDA_VISIBLE_DEVICES="0,1,2,3"
stage=4
stop_stage=4

# Multi-node: run this script on every node with its own node_rank.
num_nodes=4
node_rank=0
HOST_NODE_ADDR="node0.cluster:29400"
job_id=2023

data_type=shard
train_set=train
train_config=conf/train.yaml
dir=exp/conformer
checkpoint=

num_workers=4
prefetch=250

train_engine=deepspeed
deepspeed_config=conf/ds_stage2.json
deepspeed_save_states="model_only"

. tools/parse_options.sh || exit 1;

if [ ${stage} -le 4 ] && [ ${stop_stage} -ge 4 ]; then
  mkdir -p $dir
  num_gpus=$(echo $CUDA_VISIBLE_DEVICES | awk -F "," '{print NF}')
  dist_backend="nccl"
  echo "$0: num_nodes is $num_nodes, proc_per_node is $num_gpus"
  torchrun --nnodes=$num_nodes --nproc_per_node=$num_gpus \
           --rdzv_id=$job_id --rdzv_backend="c10d" --rdzv_endpoint=$HOST_NODE_ADDR \
    wenet/bin/train.py \
      --train_engine ${train_engine} \
      --config $train_config \
      --data_type $data_type \
      --train_data data/$train_set/data.list \
      --cv_data data/dev/data.list \
      ${checkpoint:+--checkpoint $checkpoint} \
      --model_dir $dir \
      --ddp.dist_backend $dist_backend \
      --num_workers ${num_workers} \
      --prefetch ${prefetch} \
      --pin_memory \
      --deepspeed_config ${deepspeed_config} \
      --deepspeed.save_states ${deepspeed_save_states}
fi
