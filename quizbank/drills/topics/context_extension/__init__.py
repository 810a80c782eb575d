"""Context extension: NTK-aware, YaRN and Llama 3 frequencies, position interpolation."""
