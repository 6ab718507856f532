"""Package discovery from the tree (the rest of the metadata is in pyproject.toml).

Every package under ascend_doctor/ is found automatically, so a new subpackage cannot be left out
of the wheel; checks/ and compat_matrix/ live at the top of the repository (the layout users
asked for) and ship as ascend_doctor.checks / ascend_doctor.compat_matrix (package-dir in
pyproject.toml).
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["ascend_doctor", "ascend_doctor.*"]),
                "ascend_doctor.checks", "ascend_doctor.compat_matrix"])
