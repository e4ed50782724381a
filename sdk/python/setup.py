"""For setuptools older than 61 (RHEL 8 and 9 ship such), which cannot read pyproject.toml's [project]
table; newer ones take everything from pyproject.toml."""

import setuptools

if int(setuptools.__version__.split(".")[0]) >= 61:
    setuptools.setup()
else:
    setuptools.setup(name="blackboard-worker", version="0.1.0", python_requires=">=3.9",
                     package_dir={"": "src"}, packages=["blackboard_worker"],
                     package_data={"blackboard_worker": ["py.typed"]})
