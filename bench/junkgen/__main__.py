import argparse
import sys

from bench.junkgen import JUNK_DIR, check, write

ap = argparse.ArgumentParser(prog="python -m bench.junkgen", description="Write the labelled junk corpus to bench/junk/.")
ap.add_argument("--check", action="store_true", help="only compare the committed corpus with the generator's output")
args = ap.parse_args()
if args.check:
    diff = check()
    for d in diff:
        print("differs:", d)
    sys.exit(1 if diff else 0)
n = write()
print(f"wrote {n} pages and labels.json to {JUNK_DIR}")
