"""promptmem.lm: the embedded models, llama.cpp (grammar, server, prefix reuse), cores."""
