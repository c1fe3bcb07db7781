"""promptmem.memory: the store protocol, the SQLite store, ranking, embeddings, shared stores."""
