"""Helpers shared by sitehost's own tests (imported by tests; conftest files hold only fixtures)."""

from __future__ import annotations

from pathlib import Path


def install_entry_point_plugin(folder: Path, distribution: str, version: str, name: str, module: str) -> Path:
    """Make `module` an installed distribution with a `sitehost` entry point, the way pip would.

    Writes a `.dist-info` folder beside the package's source so that importlib.metadata
    (and so sitehost's plugin discovery) finds it once `folder` is on sys.path.
    """
    dist_info = folder / f"{distribution.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (dist_info / "entry_points.txt").write_text(f"[sitehost]\n{name} = {module}\n")
    return folder
