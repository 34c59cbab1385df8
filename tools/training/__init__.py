"""Training the evaluation: self-play data (datagen, selfplay, dataset,
positions), the network's trainer (train; model: its float network) and the
hand-crafted weights' tuner (tune)."""
