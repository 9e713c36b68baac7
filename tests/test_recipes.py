"""Recipes: strict validation with file/key/reason errors, defaults, spider loading and arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crawlutil import ROOT
from gatecrawl.core.recipes import RECIPE_KEYS, RecipeError, load_recipe_file, load_recipe_text
from gatecrawl.spiders.args import parse_spider_args


def load(text: str, name: str = "site"):
    return load_recipe_text(text, source=f"recipes/{name}.toml", default_name=name)


def test_three_line_recipe_works_with_defaults():
    r = load('start_urls = ["https://example.com/docs/"]\n')
    assert r.name == "site"
    assert r.allowed_domains == ("example.com",)
    assert r.render_policy == "auto" and r.max_pages == 1000 and r.min_markdown_chars == 200
    assert r.digest.startswith("sha256:")


@pytest.mark.parametrize(
    "text, key, reason",
    [
        ("bogus = 1", "bogus", "unknown key"),
        ("[follow]\nmax_dept = 3", "follow.max_dept", "unknown key"),
        ('start_urls = "https://x.org"', "start_urls", "expected a list"),
        ('start_urls = ["ftp://x.org/"]', "start_urls[0]", "not an absolute http(s) URL"),
        ('start_urls = ["/relative"]', "start_urls[0]", "not an absolute http(s) URL"),
        ('[follow]\nmax_depth = "3"', "follow.max_depth", "expected an integer"),
        ("[follow]\nmax_pages = 0", "follow.max_pages", "must be between"),
        ('[follow]\nallow = ["(unclosed"]', "follow.allow[0]", "bad regular expression"),
        ('[content]\nmain_selectors = ["div[[["]', "content.main_selectors[0]", "bad CSS selector"),
        ('[render]\npolicy = "always"', "render.policy", "must be one of"),
        ('[[render.rules]]\npattern = "/app/"\npolicy = "sometimes"', "render.rules[0].policy", "must be one of"),
        ("[gate]\nmin_unique_word_ratio = 1.5", "gate.min_unique_word_ratio", "must be between"),
        ('[validation]\nrequired_fields = ["colour"]', "validation.required_fields[0]", "must be one of"),
        ("[validation]\nexpected_heading_pattern = '(['", "validation.expected_heading_pattern", "bad regular expression"),
        ("[settings]\ndownload_delay = 1", "settings.download_delay", "UPPER_SNAKE_CASE"),
        ('name = "other"', "name", "must equal the file name"),
        ("gate = 3", "gate", "expected a table"),
        ('allowed_domains = ["exa mple.com"]', "allowed_domains[0]", "not a host name"),
    ],
)
def test_bad_recipes_name_file_key_and_reason(text, key, reason):
    with pytest.raises(RecipeError) as info:
        load(text)
    err = info.value
    assert err.source == "recipes/site.toml"
    assert err.key == key
    assert reason in err.reason
    assert str(err).startswith(f"recipes/site.toml: key '{key}': ")


@pytest.mark.parametrize(
    "name, value",
    [
        ("GATECRAWL_EGRESS_ENABLED", "false"),
        ("GATECRAWL_EGRESS_ALLOW", '["0.0.0.0/0"]'),
        ("GATECRAWL_EGRESS_RESOLVER", '"x:y"'),
        ("TWISTED_DNS_RESOLVER", '"twisted.internet.base.ThreadedResolver"'),
        ("ROBOTSTXT_OBEY", "false"),
        ("ROBOTSTXT_PARSER", '"x.y"'),
        ("GATECRAWL_ROBOTS_UNREACHABLE_RETRY", "0"),
        ("GATECRAWL_REDACTION_ENABLED", "false"),
        ("AWS_SECRET_ACCESS_KEY", '"k"'),
        ("AWS_ENDPOINT_URL", '"http://169.254.169.254/"'),
        ("HTTPPROXY_AUTH_ENCODING", '"latin-1"'),
        ("DOWNLOADER_MIDDLEWARES", "{}"),
        ("DOWNLOADER_MIDDLEWARES_BASE", "{}"),
        ("EXTENSIONS", "{}"),
        ("ITEM_PIPELINES", "{}"),
        ("DOWNLOAD_HANDLERS", "{}"),
        ("PLAYWRIGHT_LAUNCH_OPTIONS", "{}"),
        ("TELNETCONSOLE_ENABLED", "true"),
        ("COOKIES_DEBUG", "true"),
        ("GATECRAWL_S3_TIMEOUT", "1"),
    ],
)
def test_security_settings_are_refused_in_recipes(name, value):
    """Issue 15: recipes are site configuration, not security policy."""
    with pytest.raises(RecipeError) as info:
        load(f"[settings]\n{name} = {value}")
    assert info.value.key == f"settings.{name}" and "security" in info.value.reason
    assert str(info.value).startswith(f"recipes/site.toml: key 'settings.{name}': ")


def test_site_settings_stay_allowed_in_recipes():
    r = load("[settings]\nDOWNLOAD_DELAY = 1\nCONCURRENT_REQUESTS_PER_DOMAIN = 2\nGATECRAWL_EGRESS_ADMIT_START_URLS = true")
    assert r.settings["DOWNLOAD_DELAY"] == 1 and r.settings["GATECRAWL_EGRESS_ADMIT_START_URLS"] is True


def test_invalid_toml_names_the_file():
    with pytest.raises(RecipeError, match=r"^recipes/site.toml: invalid TOML"):
        load("start_urls = [")


def test_packaged_recipes_load(tmp_path):
    for path in sorted((ROOT / "recipes").glob("*.toml")):
        recipe = load_recipe_file(path)
        assert recipe.name == path.stem


def test_every_recipe_key_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text("utf-8")
    missing = [k for k in RECIPE_KEYS if f"`{k}`" not in readme]
    assert not missing, missing


def test_spider_arguments_override_the_recipe():
    r = load('start_urls = ["https://example.com/"]\n')
    o = parse_spider_args(r, start_url="https://a.example/x https://b.example/y", max_pages="7", render="skip")
    assert o.start_urls == ("https://a.example/x", "https://b.example/y")
    assert set(o.allowed_domains) >= {"example.com", "a.example", "b.example"}
    assert o.max_pages == 7 and o.render_policy == "skip"
    for kwargs, arg in [({"max_pages": "many"}, "max_pages"), ({"render": "maybe"}, "render"), ({"start_url": "nope"}, "start_url")]:
        with pytest.raises(ValueError, match=f"spider argument {arg}"):
            parse_spider_args(r, **kwargs)


def test_render_rules_match_per_url():
    r = load('start_urls = ["https://example.com/"]\n[render]\npolicy = "skip"\n[[render.rules]]\npattern = "/app/"\npolicy = "force"\n')
    assert r.render_policy_for("https://example.com/app/x") == ("force", "rule:/app/")
    assert r.render_policy_for("https://example.com/blog") == ("skip", "recipe")


def _scrapy(*args: str, extra_dir: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scrapy", *args]
    if extra_dir:
        cmd += ["-s", f"GATECRAWL_RECIPES_DIRS={extra_dir}"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_scrapy_list_shows_one_spider_per_recipe(tmp_path):
    (tmp_path / "docs_site.toml").write_text('start_urls = ["https://docs.example.org/"]\n')
    proc = _scrapy("list", extra_dir=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    names = proc.stdout.split()
    expected = sorted(p.stem for p in (ROOT / "recipes").glob("*.toml")) + ["docs_site"]
    assert sorted(names) == sorted(expected)


def test_broken_recipe_is_named_with_file_key_and_reason_and_never_runs(tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text('start_urls = ["https://x.example/"]\n[follow]\nmax_depth = "deep"\n')
    proc = _scrapy("list", extra_dir=str(tmp_path))
    # The other spiders are still listed (Scrapyd's listspiders needs status 0).
    assert proc.returncode == 0 and "demo" in proc.stdout.split() and "broken" not in proc.stdout.split()
    assert f"{bad}: key 'follow.max_depth': expected an integer" in proc.stderr
    crawl = _scrapy("crawl", "broken", extra_dir=str(tmp_path))
    assert crawl.returncode == 2
    assert f"{bad}: key 'follow.max_depth': expected an integer" in crawl.stderr
