"""The extension synergy._agent for `pip install ./python` (pyproject.toml).

The extension binds libsynergy_agent, which speaks gRPC to synergyd: it is
built by the project's own CMake build (the agent, its protocol and the
pybind11 module, nothing else) for the interpreter pip runs, and copied
where setuptools puts extensions. No network: every dependency is a Debian
package (scripts/install-deps).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def project_version():
    match = re.search(r"project\(synergy VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    return match.group(1) if match else None


class CMakeExtension(build_ext):
    """Builds synergy._agent with CMake instead of compiling sources itself."""

    def build_extension(self, ext):
        # SYNERGY_PIP_BUILD_DIR: where CMake builds (tests keep the checkout
        # clean); else setuptools' build_temp.
        build_dir = Path(os.environ.get("SYNERGY_PIP_BUILD_DIR") or Path(self.build_temp).resolve() / "cmake")
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DSYNERGY_BUILD_TESTS=OFF", "-DSYNERGY_BUILD_BENCH=OFF",
            "-DSYNERGY_WITH_TORCH=OFF", "-DSYNERGY_WITH_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        env = dict(os.environ)
        # Objects the project's own builds compiled under this tree are
        # ccache hits here too (paths below it are hashed as relative).
        env.setdefault("CCACHE_BASEDIR", str(ROOT))
        subprocess.run(configure, check=True, env=env)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "synergy_python_agent", "-j", jobs],
                       check=True, env=env)
        built = list((build_dir / "python" / "synergy").glob("_agent*.so"))
        if len(built) != 1:
            raise RuntimeError(f"the CMake build left {len(built)} _agent*.so in {build_dir}/python/synergy")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


if project_version() != "0.1.0":
    sys.exit(f"setup.py: pyproject.toml says 0.1.0, CMakeLists.txt {project_version()}: make them agree")

setup(ext_modules=[Extension("synergy._agent", sources=[])], cmdclass={"build_ext": CMakeExtension})
