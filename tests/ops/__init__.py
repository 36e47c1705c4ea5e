"""Operating capicu: the production stack, nginx in front, metrics, logs, health."""
