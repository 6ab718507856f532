"""Package discovery from the tree (the rest of the metadata is in pyproject.toml).

Every package under ascend_doctor/ is found automatically, so a new subpackage cannot be left out
of the wheel; checks/ and compat_matrix/ live at the top of the repository (the layout users
asked for) and ship as ascend_doctor.checks / ascend_doctor.compat_matrix (package-dir in
pyproject.toml).
"""

import os
import subprocess
import sys

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class BuildPyWithCatalogue(build_py):
    """Also compile the check catalogue into the built package (start-up, issue 10: an installed
    `ascend-doctor check` then imports only the check modules it runs; see ascend_doctor/registry.py).
    A failure leaves the package without it: it then imports every check module, as a checkout does."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the tree: nothing is compiled for it
        target = os.path.abspath(os.path.join(self.build_lib, "ascend_doctor", "compat_matrix", "catalogue.pickle"))
        # The build environment's own PYTHONPATH kept behind the built package: pip's isolated build
        # finds its requirements (click, packaging: pyproject.toml) through it.
        path = os.pathsep.join(p for p in (os.path.abspath(self.build_lib), os.environ.get("PYTHONPATH")) if p)
        env = {**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "0"}
        done = subprocess.run([sys.executable, "-m", "ascend_doctor.compiled_data", "--catalogue", target],
                              env=env, cwd=self.build_lib, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"warning: check catalogue not compiled: {done.stderr.strip()[-500:]}", file=sys.stderr)


setup(packages=[*find_packages(include=["ascend_doctor", "ascend_doctor.*"]),
                "ascend_doctor.checks", "ascend_doctor.compat_matrix"],
      cmdclass={"build_py": BuildPyWithCatalogue})
