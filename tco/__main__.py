import os

# The BLAS products here are small (the Monte Carlo's blocks): BLAS threads would only spin, burning CPU that
# the other work (and the batch's worker processes) need. Set before numpy is imported; the user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from tco.cli import main  # noqa: E402

if __name__ == "__main__":  # not when a spawned worker process imports it
    raise SystemExit(main())
