"""Builds the Blender add-on zip: the add-on and the compiled meshcodec package.

    python3 blender/build.py [--out DIR] [--wheel WHEEL]

The package is built from ``python/`` as a stable-ABI wheel (``pip wheel``, which
fetches maturin by itself) for this machine's platform and CPython 3.9+ (Blender 3.4's
3.11 included), unpacked into the add-on under ``meshcodec_blender/vendor/``; the wheel
itself goes under ``meshcodec_blender/wheels/`` with a ``blender_manifest.toml`` that
lists it, for Blender 4.2+'s extensions. The zip installs with
``bpy.ops.preferences.addon_install(filepath=ZIP)`` and
``bpy.ops.preferences.addon_enable(module="meshcodec_blender")``. The last line
printed is the zip's path.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
ADDON = HERE / "meshcodec_blender"

MANIFEST = """schema_version = "1.0.0"
id = "meshcodec_blender"
version = "0.1.0"
name = "meshcodec"
tagline = "Roblox FileMesh, CSG data, union graphics, UNIGINE and STF, exactly"
maintainer = "meshcodec"
type = "add-on"
blender_version_min = "4.2.0"
license = ["SPDX:MIT", "SPDX:Apache-2.0"]
platforms = ["{platform}"]
wheels = ["./wheels/{wheel}"]

[permissions]
files = "Read and write the mesh files imported and exported"
"""


def blender_platform(wheel: pathlib.Path) -> str:
    """The Blender extension platform (``linux-x64`` ...) of a wheel's platform tag."""
    tag = wheel.stem.split("-")[-1]
    arch = "arm64" if tag.endswith(("arm64", "aarch64")) else "x64"
    system = "windows" if tag.startswith("win") else "macos" if tag.startswith("macosx") else "linux"
    return f"{system}-{arch}"


def build_wheel(out: pathlib.Path) -> pathlib.Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO / "python")],
        check=True,
    )
    wheels = sorted(out.glob("meshcodec-*.whl"))
    if not wheels:
        sys.exit("build.py: pip wheel made no meshcodec wheel")
    return wheels[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "target" / "blender")
    ap.add_argument("--wheel", type=pathlib.Path, help="use this meshcodec wheel instead of building one")
    args = ap.parse_args()
    if args.wheel is not None and not re.fullmatch(r"meshcodec-[^-]+(-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl", args.wheel.name):
        # Blender 4.2+ reads the platform from the name (blender_manifest.toml lists it).
        sys.exit(f"build.py: --wheel {args.wheel.name}: not a meshcodec wheel's name "
                 "(meshcodec-VERSION-PYTHON-ABI-PLATFORM.whl, as pip or maturin names it)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or build_wheel(pathlib.Path(tmp))
        zip_path = args.out / "meshcodec_blender-0.1.0.zip"
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(ADDON.rglob("*")):
                if p.is_file() and "__pycache__" not in p.parts:
                    z.write(p, p.relative_to(HERE))
            with zipfile.ZipFile(wheel) as w:
                for name in w.namelist():
                    if name.startswith("meshcodec/"):
                        z.writestr(f"meshcodec_blender/vendor/{name}", w.read(name))
            z.write(wheel, f"meshcodec_blender/wheels/{wheel.name}")
            z.writestr("meshcodec_blender/blender_manifest.toml", MANIFEST.format(wheel=wheel.name, platform=blender_platform(wheel)))
    print(zip_path)


if __name__ == "__main__":
    main()
