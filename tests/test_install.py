"""The package installed into a fresh venv from the checkout, used from another folder (issue 16):
no stray top-level packages, ``from gatecrawl import convert``, and the ``gatecrawl`` console
command (``convert`` on a saved page, ``crawl`` on a recipe file, ``list``) outside any Scrapy
project. Offline: the new venv reaches the already installed dependencies through a ``.pth``
file, and pip installs only gatecrawl (``--no-deps --no-index``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from crawlutil import ROOT
from mockserver import article

pytestmark = pytest.mark.slow

_IGNORE = shutil.ignore_patterns(".venv", ".git", "output", "__pycache__", ".pytest_cache", ".gatecrawl-spool", "build", "dist", "*.egg-info", ".scrapy", "tests", "bench")


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    # setuptools 65 builds wheels with the `wheel` package (requirements-dev.txt).
    pytest.importorskip("wheel", reason="the wheel package (requirements-dev.txt) builds the wheel")
    base = tmp_path_factory.mktemp("install")
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=_IGNORE)  # pip builds in the tree: keep the checkout clean
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True).stdout.strip())
    (site / "_dev_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "--no-build-isolation", "--disable-pip-version-check", "-q", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    work = base / "work"
    work.mkdir()
    return env_dir, site, work


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "GATECRAWL_RECIPES_DIRS")}
    return {**env, **extra}


def test_only_gatecrawl_is_installed_at_the_top_level(venv):
    _, site, work = venv
    assert (site / "gatecrawl" / "recipes" / "demo.toml").is_file()
    assert (site / "gatecrawl" / "schema" / "evidence-packet.schema.json").is_file()
    assert not (site / "recipes").exists(), "no top-level package named recipes"
    tops = [p.name for p in site.iterdir() if p.is_dir() and not p.name.endswith((".dist-info", "__pycache__"))]
    assert tops == ["gatecrawl"], tops
    out = subprocess.run([str(venv[0] / "bin" / "python"), "-c", "import gatecrawl; from gatecrawl import convert; print(gatecrawl.__file__)"], cwd=work, env=_env(), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(site)), out.stdout


def test_gatecrawl_convert_a_saved_page_from_another_folder(venv):
    env_dir, _, work = venv
    page = work / "page.html"
    page.write_bytes(article(7))
    done = subprocess.run([str(env_dir / "bin" / "gatecrawl"), "convert", str(page), "--url", "https://example.org/a"], cwd=work, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("# Article 7\n"), done.stdout[:300]
    assert not (work / "output").exists(), "converting a file writes nothing"


def test_gatecrawl_crawl_a_recipe_file_and_list(venv, origin):
    env_dir, _, work = venv
    recipe = work / "my_site.toml"
    recipe.write_text(f'start_urls = ["{origin.url("/links")}"]\n[follow]\nmax_depth = 1\n[validation]\nmin_markdown_chars = 50\n')
    origin.links = [origin.url("/article/1")]
    env = _env(GATECRAWL_EGRESS_ALLOW=f"127.0.0.3:{origin.port}")
    done = subprocess.run(
        [str(env_dir / "bin" / "gatecrawl"), "crawl", str(recipe), "-s", "ROBOTSTXT_OBEY=False", "-O", "pages.jsonl", "--nolog"],
        cwd=work, env=env, capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((work / "output" / "my_site" / "pages").glob("*.md"))) == 2
    rows = [json.loads(line) for line in (work / "pages.jsonl").read_text("utf-8").splitlines()]
    assert sorted(r["url"] for r in rows) == sorted([origin.url("/links"), origin.url("/article/1")])
    listed = subprocess.run([str(env_dir / "bin" / "gatecrawl"), "list"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and listed.stdout.split() == ["demo"], listed.stdout + listed.stderr
