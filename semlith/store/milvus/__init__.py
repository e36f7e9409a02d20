"""The Milvus backend: a store's text space and keyword index in a
Milvus collection, its client, its target, filters and checks."""
