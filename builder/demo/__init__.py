"""The demo instance: synthetic data (synth_*), written as a complete signed, sealed instance (instance)."""
