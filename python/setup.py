"""Builds the widecol package from a checkout where `make` has been run.

The package holds the compiled libraries (widecol.so, and
widecol_bigtable.so, widecol_hbase.so and widecol_cassandra.so when they
were built) and the version, both taken from the checkout at build time: the version from its one place, the public
header ext/widecol.h.  Install without network access:

    make
    /usr/bin/python3 -m pip install --no-build-isolation ./python
"""
import os
import re
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel: pip builds none, setup.py install needs none
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "ext", "widecol.h")) as f:
        return re.search(r'#define WIDECOL_VERSION "([^"]+)"', f.read()).group(1)


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "widecol")
        core = os.path.join(ROOT, "widecol.so")
        if not os.path.exists(core):
            raise SystemExit("widecol: %s is not built; run make in %s first" % (core, ROOT))
        for name in ("widecol.so", "widecol_bigtable.so", "widecol_hbase.so",
                     "widecol_cassandra.so"):
            src = os.path.join(ROOT, name)
            if os.path.exists(src):
                shutil.copy2(src, os.path.join(target, name))
        with open(os.path.join(target, "_version.py"), "w") as f:
            f.write('__version__ = "%s"\n' % version())


class BinaryDistribution(Distribution):
    """The package holds libraries built for this machine: not pure."""

    def has_ext_modules(self):
        return True


commands = {"build_py": BuildWithLibraries}
if bdist_wheel:
    class PlatformWheel(bdist_wheel):
        """Tagged for this machine's platform (linux_x86_64, say) and any
        Python 3: the libraries are SQLite's extensions, not Python's."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = PlatformWheel

setup(
    version=version(),
    packages=["widecol"],
    package_data={"widecol": ["*.so"]},
    cmdclass=commands,
    distclass=BinaryDistribution,
    zip_safe=False,
)
