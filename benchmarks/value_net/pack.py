"""Write a network trained by ``train.py`` (its JSON) as a Python module: the shapes and the
weights as little-endian float32, base64, so that a bot could ship them in the package (the
package data of bots/ is code only) and read them with the standard library
(:func:`value_net.unpack`)::

    python benchmarks/value_net/pack.py /tmp/value_net.json /tmp/value_net_weights.py
"""

from __future__ import annotations

import argparse
import base64
import json
import struct
import sys
import textwrap
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", type=Path, help="JSON from train.py --weights")
    parser.add_argument("out", type=Path)
    parser.add_argument("--note", default="", help="a line on where the weights come from")
    args = parser.parse_args(argv)
    net = json.loads(args.weights.read_text())
    shapes: list[tuple[int, int]] = []
    values: list[float] = []
    for layer in net["layers"]:
        w, b = layer["w"], layer["b"]
        shapes.append((len(w), len(b)))
        for row in w:
            values.extend(row)
        values.extend(b)
    blob = base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()
    lines = "\n".join(f'    "{chunk}"' for chunk in textwrap.wrap(blob, 92))
    args.out.write_text(
        '"""A value network\'s weights (value_net.unpack), written by benchmarks/value_net/pack.py'
        f'.\n\n{args.note}\n"""\n\n'
        f"SHAPES = {tuple(shapes)!r}\n"
        '"""(inputs, outputs) of each layer; then, layer by layer, the weights by input and the '
        'biases."""\n\n'
        f"WEIGHTS = (\n{lines}\n)\n"
        '"""Little-endian float32, base64."""\n'
    )
    print(f"{len(values)} weights, {len(blob)} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
