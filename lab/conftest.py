"""The lab's tests (`python -m pytest lab`, outside the default run; .ci/run runs them after
it): each topic's scripts checked in small, beside them. A test imports its script by name
(pytest puts the test's folder first on the path, as running the script does), or runs its
documented command in small (`run_script`)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def run_script():
    """run_script("lab/luck/luck_ceiling.py", "--hands", "3"): the script run as its page
    says (from the repository's root, in a process of its own); its standard output, once
    it exited 0."""
    def run(script, *args, timeout=300):
        done = subprocess.run([sys.executable, os.path.join(ROOT, script), *map(str, args)],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout
    return run
