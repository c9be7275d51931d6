"""The example training jobs of python/examples, run as python3 -m synergy.examples.NAME."""
