"""Training the evaluation: self-play data (datagen, selfplay, dataset,
positions), the network's trainer (train) and the hand-crafted
weights' tuner (tune)."""
