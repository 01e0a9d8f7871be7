"""FX: the USD/BRL history, the risk paths, their sums and percentiles."""
