"""Package discovery from the tree (the rest of the metadata is in pyproject.toml).

Every package under ascend_doctor/ is found automatically, so a new subpackage cannot be left out
of the wheel; checks/ and compat_matrix/ live at the top of the repository (the layout users
asked for) and ship as ascend_doctor.checks / ascend_doctor.compat_matrix (package-dir in
pyproject.toml). Nothing is compiled at build time: the built data (compat_matrix/compiled.pickle,
checks/_catalogue.py) is committed, made by `python -m ascend_doctor.compiled_data`, so a wheel
ships what a checkout runs.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["ascend_doctor", "ascend_doctor.*"]),
                "ascend_doctor.checks", "ascend_doctor.compat_matrix"])
