-- Extensions the schema needs before any table: pgvector for embedding columns and HNSW indexes.
CREATE EXTENSION IF NOT EXISTS vector;
