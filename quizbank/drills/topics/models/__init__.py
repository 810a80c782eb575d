"""Model conversion: Meta's interleaved q/k weights to Hugging Face's half layout."""
