#!/usr/bin/env bash
# Install the Debian packages gatecrawl's demo and tests need, when they are missing:
#   chromium      - the browser scrapy-playwright drives (Debian's, no Playwright download)
#   chromium-headless-shell - its headless-only build, used for headless crawls (less memory)
#   redis-server  - the shared frontier for distributed crawls (scrapy-redis) in tests
#   tesseract-ocr - optional OCR of scanned PDF pages (recipes enable it with pdf.ocr = true)
# Safe to run repeatedly: it does nothing when everything is present.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -x /usr/lib/chromium/chromium-headless-shell ] || missing+=(chromium-headless-shell)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "system-deps: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
    exit 0
  fi
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
