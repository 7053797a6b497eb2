"""The report and the runner stand on their own: report imports nothing of the runner."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_report_does_not_import_the_runner():
    code = "import sys, bench.report; assert 'bench.runner' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
