"""Hard-link torch, and what it requires, from the running venv into another venv's site-packages.

CI installs the same local torch wheel into three venvs (the checkout's, the package step's clean one, vLLM's);
each copy is about 1 GB, and a CI machine has run out of disk on the second. Hard links to the checkout's
install cost no space, and pip then finds torch already installed, as the README's install order leaves it.
Prints nothing and exits 1 where links cannot be made (another file system): the caller installs instead.

Usage: python .ci/link_torch.py TARGET_SITE_PACKAGES
"""

import importlib.metadata as metadata
import os
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def distributions_torch_needs() -> list[metadata.Distribution]:
    """torch and its requirements, recursively, as installed here (extras and other platforms' markers left out)."""
    found, todo = {}, ["torch"]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        found[name] = dist = metadata.distribution(name)
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


def link_into(target: Path) -> int:
    count = 0
    for dist in distributions_torch_needs():
        for file in dist.files or []:
            if file.parts[0] == "..":  # console scripts in bin/: their shebang names this venv's python
                continue
            source, destination = Path(file.locate()), target / file
            if not source.is_file() or destination.exists():
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.link(source, destination)
            count += 1
    return count


if __name__ == "__main__":
    try:
        print(f"{link_into(Path(sys.argv[1]))} files of torch and its requirements hard-linked")
    except OSError:
        sys.exit(1)
